#include "sim/scenario/aggregation-section.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/aggregation/tofino-resources.h"

namespace hfsim {

namespace {

// Wire limits (models/aggregation/aggregation-packet.h): worker id is 8 bits with 0xFF reserved,
// slot 16 bits, value count 8 bits, host numbers 16 bits.
constexpr uint64_t kMaxWorkers = 254;
constexpr uint64_t kMaxSlots = 65536;
constexpr uint64_t kMaxValuesPerPacket = 255;
constexpr uint64_t kMaxServerShards = 65534;
constexpr double kMaxFixedScale = 1e15;

void RefuseOutsideMode(const JsonCursor& section, std::string_view key, std::string_view mode) {
  if (section.Has(key)) {
    section.Child(key).Fail(
        fmt::format("applies only with \"mode\": \"{}\"; remove it or set the "
                    "mode",
                    mode));
  }
}

}  // namespace

void ReadAggregationSection(const JsonCursor& section, Scenario& scenario) {
  section.ExpectObject({"mode", "workers", "aggregator_slots", "values_per_packet", "value_bits",
                        "fixed_point", "fixed_scale", "overflow", "shadow_copies",
                        "hot_key_capacity_keys", "server_shards", "tofino_generation", "udp_port",
                        "multicast_group", "value_format", "thc"});
  AggregationSwitchSpec spec;
  if (auto v = section.Find("mode")) {
    spec.mode = v->Choice(kAggregationModeNames);
  }
  if (auto v = section.Find("value_format")) {
    spec.value_format = v->Choice(kValueFormatNames);
  }
  if (spec.IsThc()) {
    // THC's values are table indices: no float-to-integer conversion, and lanes that cannot
    // overflow (checked with the Tofino fit below) instead of int32 adds.
    for (std::string_view key : {"value_bits", "fixed_point", "fixed_scale", "overflow"}) {
      if (section.Has(key)) {
        section.Child(key).Fail("applies only with \"value_format\": \"int32\" (THC values are "
                                "table indices summed in 8-bit lanes); remove it");
      }
    }
    if (spec.mode != AggregationMode::kAllReduce) {
      section.Child("value_format")
          .Fail("\"thc\" runs with \"mode\": \"allreduce\" only so far; accepted: \"int32\"");
    }
    if (auto t = section.Find("thc")) {
      t->ExpectObject({"bits", "granularity"});
      if (auto b = t->Find("bits")) {
        const uint64_t bits = b->Integer(1, 4);
        if (bits == 3) b->Fail("got 3; accepted: 1, 2 or 4 (whole indices in a byte)");
        spec.thc_bits = static_cast<uint32_t>(bits);
      }
      const uint32_t levels = (1u << spec.thc_bits) - 1;
      if (auto g = t->Find("granularity")) {
        spec.thc_granularity = static_cast<uint32_t>(g->Integer(levels, 255));
      } else {
        spec.thc_granularity = std::max(spec.thc_granularity, levels);
      }
    }
  } else if (section.Has("thc")) {
    section.Child("thc").Fail("applies only with \"value_format\": \"thc\"; remove it or set it");
  }
  if (auto v = section.Find("workers"))
    spec.workers = static_cast<uint32_t>(v->Integer(1, kMaxWorkers));
  if (auto v = section.Find("aggregator_slots")) {
    spec.aggregator_slots = static_cast<uint32_t>(v->Integer(1, kMaxSlots));
  }
  if (auto v = section.Find("values_per_packet")) {
    spec.values_per_packet = static_cast<uint32_t>(v->Integer(1, kMaxValuesPerPacket));
  }
  if (auto v = section.Find("fixed_point")) {
    spec.scheme = v->Choice(kFixedPointSchemeNames);
  }
  if (spec.scheme == FixedPointScheme::kFixedScale) {
    if (auto v = section.Find("fixed_scale"))
      spec.fixed_scale = v->Number(0.0, kMaxFixedScale, true);
  } else if (section.Has("fixed_scale")) {
    section.Child("fixed_scale")
        .Fail(
            "applies only with \"fixed_point\": \"fixed_scale\" (block "
            "exponents choose their scale per packet); remove it");
  }
  if (auto v = section.Find("overflow")) {
    spec.overflow = v->Choice(kOverflowBehaviourNames);
  }
  // Default: the widest value a W-worker sum cannot overflow with, or all 31 bits when adds
  // saturate.
  spec.value_bits =
      spec.overflow == OverflowBehaviour::kSaturate ? 31 : WidestSafeValueBits(spec.workers);
  if (auto v = section.Find("value_bits"))
    spec.value_bits = static_cast<uint32_t>(v->Integer(1, 31));
  if (auto v = section.Find("shadow_copies")) spec.shadow_copies = v->Bool();
  if (spec.mode == AggregationMode::kParameterServer) {
    if (auto v = section.Find("hot_key_capacity_keys")) {
      spec.hot_key_capacity_keys = v->Integer(1, kAllKeysHot);
    }
    if (auto v = section.Find("server_shards")) {
      spec.server_shards = static_cast<uint32_t>(v->Integer(1, kMaxServerShards));
    }
  } else {
    RefuseOutsideMode(section, "hot_key_capacity_keys", "parameter_server");
    RefuseOutsideMode(section, "server_shards", "parameter_server");
  }
  if (auto v = section.Find("tofino_generation")) {
    spec.generation = static_cast<TofinoGeneration>(v->Integer(1, 2));
  }
  if (auto v = section.Find("udp_port")) {
    spec.udp_port = static_cast<uint16_t>(v->Integer(kFirstAggregationPort, kLastAggregationPort));
  }
  if (auto v = section.Find("multicast_group")) {
    spec.multicast_group = static_cast<uint16_t>(v->Integer(1, 65535));
  }

  const std::vector<ResourceLine> violations = CheckTofinoFit(spec);
  if (!violations.empty()) {
    const ResourceLine& first = violations.front();
    const TofinoLimits& limits = LimitsOf(spec.generation);
    const JsonCursor where = section.Has(first.spec_key) ? section.Child(first.spec_key) : section;
    where.Fail(fmt::format("does not fit {}: limit \"{}\" (uses {}, has {}): {}", limits.name,
                           first.limit, first.used, first.available, first.explanation));
  }
  scenario.aggregation = spec;
}

nlohmann::json AggregationSectionToJson(const AggregationSwitchSpec& spec) {
  nlohmann::json out = {{"mode", ToString(spec.mode)},
                        {"workers", spec.workers},
                        {"aggregator_slots", spec.aggregator_slots},
                        {"values_per_packet", spec.values_per_packet},
                        {"shadow_copies", spec.shadow_copies},
                        {"tofino_generation", static_cast<int>(spec.generation)},
                        {"udp_port", spec.udp_port},
                        {"multicast_group", spec.multicast_group}};
  if (spec.IsThc()) {
    out["value_format"] = ToString(spec.value_format);
    out["thc"] = {{"bits", spec.thc_bits}, {"granularity", spec.thc_granularity}};
  } else {
    out["value_bits"] = spec.value_bits;
    out["fixed_point"] = ToString(spec.scheme);
    out["overflow"] = ToString(spec.overflow);
  }
  if (spec.scheme == FixedPointScheme::kFixedScale) out["fixed_scale"] = spec.fixed_scale;
  if (spec.mode == AggregationMode::kParameterServer) {
    out["hot_key_capacity_keys"] = spec.hot_key_capacity_keys;
    out["server_shards"] = spec.server_shards;
  }
  return out;
}

}  // namespace hfsim
