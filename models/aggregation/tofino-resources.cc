#include "models/aggregation/tofino-resources.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/fixed-point.h"

namespace hfsim {

namespace {

uint32_t CeilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

TofinoLimits MakeTofino1() {
  TofinoLimits limits;
  limits.generation = TofinoGeneration::kTofino1;
  limits.name = "Tofino-1";
  return limits;
}

TofinoLimits MakeTofino2() {
  TofinoLimits limits;
  limits.generation = TofinoGeneration::kTofino2;
  limits.name = "Tofino-2";
  limits.mau_stages = 20;
  limits.register_pair_bits = 128;
  limits.alu_output_words_per_pass = 4;
  // p4c's Tofino-2 PHV: 48 x 8, 72 x 16 and 48 x 32-bit normal containers (plus 16/24/16 mocha
  // and as many dark ones), where Tofino-1 has 64/96/64 normal and 32/48/32 tagalong.
  limits.phv_normal_8bit_containers = 48;
  limits.phv_normal_16bit_containers = 72;
  limits.phv_normal_32bit_containers = 48;
  return limits;
}

// Bits needed by a signed integer of magnitude up to `magnitude`.
uint32_t SignedBits(uint64_t magnitude) {
  uint32_t bits = 0;
  while (bits < 64 && (uint64_t{1} << bits) <= magnitude) ++bits;
  return bits + 1;
}

}  // namespace

const TofinoLimits& LimitsOf(TofinoGeneration generation) {
  static const TofinoLimits kTofino1 = MakeTofino1();
  static const TofinoLimits kTofino2 = MakeTofino2();
  return generation == TofinoGeneration::kTofino2 ? kTofino2 : kTofino1;
}

TofinoResourceUse ComputeTofinoResources(const AggregationSwitchSpec& spec) {
  const TofinoLimits& limits = LimitsOf(spec.generation);
  TofinoResourceUse use;
  const uint32_t sets = spec.SlotSets();
  const bool exponent = spec.HasExponentRegister();

  use.control_stages = limits.control_stages;
  use.value_alus = CeilDiv(spec.RegisterWords(), limits.values_per_alu);
  // THC: one exact-match lookup table per index byte (256 entries: the byte's indices -> their
  // table integers), applied in stages of their own before the value registers.
  use.thc_lookup_tables = spec.IsThc() ? spec.UpdateValueBytes() : 0;
  use.thc_lookup_stages = CeilDiv(use.thc_lookup_tables, limits.logical_tables_per_stage);
  // The max-exponent register is keyed on the counter's result like the values, so it needs a
  // stateful ALU after the control stages: a THC lookup stage has all four free, otherwise it
  // takes one beside the value registers.
  use.exponent_value_alus = exponent && use.thc_lookup_stages == 0 ? 1 : 0;
  use.value_stages =
      CeilDiv(use.value_alus + use.exponent_value_alus, limits.stateful_alus_per_stage);
  // A completed slot becomes a result in the stage after the counter at the earliest, and is
  // routed in the one after that: however few the values, the program takes 5 stages.
  const uint32_t laid_out = use.control_stages + use.thc_lookup_stages + use.value_stages;
  use.routing_stages = laid_out < use.control_stages + 2 ? use.control_stages + 2 - laid_out : 0;
  use.mau_stages = laid_out + use.routing_stages;
  // One bitmap register per set (the packet's set and the other are then different registers, so
  // both are reached in one pass), one counter, one max-exponent register.
  use.control_alus = sets + 1 + (exponent ? 1 : 0);
  use.stateful_alus = use.value_alus + use.control_alus;
  // The RegisterActions of the generated program (p4/p4-program.cc). Value pair: write, add,
  // read (a resent result), and on Tofino-1 read-second (the harvest pass). Bitmap: test-and-set,
  // clear. Counter: increment modulo W, read. Exponent: write, max, read.
  use.max_register_actions = limits.alu_output_words_per_pass >= limits.values_per_alu ? 3 : 4;
  // The counter compares with W - 1; the bitmap and values need no constants.
  use.register_file_constants =
      static_cast<int64_t>(spec.workers) - 1 > limits.alu_immediate_max ? 1 : 0;

  use.register_entries = uint64_t{spec.aggregator_slots} * sets;
  use.value_register_bits = use.register_entries * limits.values_per_alu * 32 * use.value_alus;
  const uint64_t block_bits = uint64_t{limits.sram_block_entries} * limits.sram_block_bits;
  // Tofino gives every stateful register one spare SRAM block beyond its data.
  const uint32_t value_register_blocks =
      CeilDiv(use.register_entries * limits.values_per_alu * 32, block_bits) + 1;
  use.sram_blocks_per_value_stage =
      value_register_blocks * std::min(use.value_alus, limits.stateful_alus_per_stage);
  const uint32_t bitmap_blocks = CeilDiv(uint64_t{spec.aggregator_slots} * 32, block_bits) + 1;
  const uint32_t counter_blocks = CeilDiv(use.register_entries * 32, block_bits) + 1;
  // The max exponent is an int<8> register (p4/p4-ingress.cc).
  const uint32_t exponent_blocks = CeilDiv(use.register_entries * 8, block_bits) + 1;
  use.sram_blocks = value_register_blocks * use.value_alus + bitmap_blocks * sets + counter_blocks +
                    (exponent ? exponent_blocks : 0);

  // PHV (see the header comment): the value words, against the normal containers less the
  // reserve for headers and metadata.
  use.phv_value_bits = 32 * spec.RegisterWords();
  use.phv_value_capacity_bits =
      8 * limits.phv_normal_8bit_containers + 16 * limits.phv_normal_16bit_containers +
      32 * limits.phv_normal_32bit_containers - limits.phv_normal_reserved_bits;
  use.harvest_passes_per_slot =
      CeilDiv(limits.values_per_alu, limits.alu_output_words_per_pass) - 1;
  use.bitmap_bits = spec.workers;
  use.thc_lane_sum = spec.IsThc() ? uint64_t{spec.workers} * spec.thc_granularity : 0;
  const uint64_t magnitude =
      spec.scheme == FixedPointScheme::kBlockExponent
          ? uint64_t{spec.workers} * static_cast<uint64_t>(QuantisationLimit(spec))
          : uint64_t{spec.workers} * ((uint64_t{1} << spec.value_bits) - 1);
  use.worst_sum_bits = SignedBits(magnitude);
  use.parsed_header_bytes = kFrameHeaderBytes;
  return use;
}

std::vector<ResourceLine> TofinoResourceTable(const AggregationSwitchSpec& spec) {
  const TofinoLimits& limits = LimitsOf(spec.generation);
  const TofinoResourceUse use = ComputeTofinoResources(spec);
  const std::string_view tofino = limits.name;
  const uint32_t value_stage_room = limits.mau_stages - limits.control_stages;
  std::vector<ResourceLine> lines;
  lines.push_back(
      {"bitmap_bits", "workers", use.bitmap_bits, limits.bitmap_bits,
       fmt::format("workers {} need a {}-bit worker bitmap per slot and {} has {}-bit "
                   "register elements (at most {} workers per job)",
                   spec.workers, use.bitmap_bits, tofino, limits.bitmap_bits, limits.bitmap_bits)});
  lines.push_back({"even_values_per_packet", "values_per_packet", spec.values_per_packet % 2, 0,
                   fmt::format("values_per_packet {} must be even: each stateful ALU of {} holds "
                               "a pair of values",
                               spec.values_per_packet, tofino)});
  // THC's bound also depends on its lookup stages: thc_lookup_stages says it.
  lines.push_back(
      {"value_stages", "values_per_packet", use.value_stages, value_stage_room,
       fmt::format("values_per_packet {} needs {} register stages ({} pair registers{}, {} a "
                   "stage) and {} has {} after {} control stages{}",
                   spec.values_per_packet, use.value_stages, use.value_alus,
                   use.exponent_value_alus > 0 ? " and the max exponent" : "",
                   limits.stateful_alus_per_stage, tofino, value_stage_room,
                   limits.control_stages,
                   spec.IsThc() ? std::string()
                                : fmt::format(" (at most {} values per packet)",
                                              (value_stage_room * limits.stateful_alus_per_stage -
                                               use.exponent_value_alus) *
                                                  limits.values_per_alu))});
  lines.push_back({"stateful_alus", "values_per_packet", use.stateful_alus,
                   uint64_t{limits.mau_stages} * limits.stateful_alus_per_stage,
                   fmt::format("{} value and {} control stateful ALUs and {} has {} stages x {}",
                               use.value_alus, use.control_alus, tofino, limits.mau_stages,
                               limits.stateful_alus_per_stage)});
  lines.push_back({"register_entries", "aggregator_slots", use.register_entries,
                   limits.max_register_entries,
                   fmt::format("aggregator_slots {} x {} slot set(s) need {} register entries and "
                               "a {} pair register holds {}",
                               spec.aggregator_slots, spec.SlotSets(), use.register_entries, tofino,
                               limits.max_register_entries)});
  lines.push_back(
      {"register_actions", "aggregator_slots", use.max_register_actions,
       limits.register_actions_per_register,
       fmt::format("{} RegisterActions on the busiest register and {} allows {}",
                   use.max_register_actions, tofino, limits.register_actions_per_register)});
  lines.push_back(
      {"sram_blocks_per_stage", "aggregator_slots", use.sram_blocks_per_value_stage,
       limits.sram_blocks_per_stage,
       fmt::format("a value stage needs {} SRAM blocks and {} has {} per stage",
                   use.sram_blocks_per_value_stage, tofino, limits.sram_blocks_per_stage)});
  lines.push_back(
      {"phv_value_bits", "values_per_packet", use.phv_value_bits, use.phv_value_capacity_bits,
       fmt::format("values_per_packet {} puts {} bits of value words in the PHV's normal "
                   "containers and {} has {} there besides {} for headers and metadata{}",
                   spec.values_per_packet, use.phv_value_bits, tofino,
                   use.phv_value_capacity_bits,
                   limits.phv_normal_reserved_bits,
                   spec.IsThc() ? std::string()
                                : fmt::format(" (at most {} values per packet)",
                                              use.phv_value_capacity_bits / 32 / 2 * 2))});
  lines.push_back({"egress_parse_depth_bytes", "values_per_packet", use.parsed_header_bytes,
                   limits.egress_parse_depth_bytes,
                   fmt::format("egress parses {} header bytes to address each multicast copy and "
                               "{} parses at most {}",
                               use.parsed_header_bytes, tofino, limits.egress_parse_depth_bytes)});
  if (spec.IsThc()) {
    lines.push_back({"thc_values_per_packet", "values_per_packet", spec.values_per_packet % 8, 0,
                     fmt::format("values_per_packet {} must be a multiple of 8: THC lanes fill "
                                 "whole 32-bit register words and indices whole bytes",
                                 spec.values_per_packet)});
    lines.push_back(
        {"thc_lookup_stages", "values_per_packet", use.mau_stages, limits.mau_stages,
         fmt::format("values_per_packet {} at {} bits needs {} index lookup tables ({} stage(s) "
                     "of {}), {} value stage(s) and {} control stages, and {} has {} stages",
                     spec.values_per_packet, spec.thc_bits, use.thc_lookup_tables,
                     use.thc_lookup_stages, limits.logical_tables_per_stage, use.value_stages,
                     limits.control_stages, tofino, limits.mau_stages)});
    lines.push_back({"thc_lane_sum", "workers", use.thc_lane_sum, 255,
                     fmt::format("workers {} x granularity {} = {} must fit an 8-bit lane, or "
                                 "sums carry into the next lane (accepted: workers at most {})",
                                 spec.workers, spec.thc_granularity, use.thc_lane_sum,
                                 255 / spec.thc_granularity)});
  }
  // A saturating add clamps instead of overflowing, so only wrapping adds bound the width;
  // THC's lanes are bound above instead.
  if (spec.overflow == OverflowBehaviour::kWrap && !spec.IsThc()) {
    lines.push_back({"int32_sum_bits", "value_bits", use.worst_sum_bits, 32,
                     fmt::format("value_bits {} summed over {} workers needs {} bits with sign and "
                                 "the switch adds int32 with wrap-around (accepted: value_bits at "
                                 "most {}, or \"overflow\": \"saturate\")",
                                 spec.value_bits, spec.workers, use.worst_sum_bits,
                                 WidestSafeValueBits(spec.workers))});
  }
  return lines;
}

std::vector<ResourceLine> CheckTofinoFit(const AggregationSwitchSpec& spec) {
  std::vector<ResourceLine> violations;
  for (ResourceLine& line : TofinoResourceTable(spec)) {
    if (!line.Fits()) violations.push_back(std::move(line));
  }
  return violations;
}

}  // namespace hfsim
