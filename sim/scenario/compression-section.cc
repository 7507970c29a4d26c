#include "sim/scenario/compression-section.h"

#include <fmt/format.h>

#include "sim/scenario/scenario.h"

namespace hfsim {

CompressionChoice ReadCompression(const JsonCursor& section) {
  section.ExpectObject({"scheme", "top_k_fraction", "thc"});
  CompressionChoice choice;
  choice.scheme = section.At("scheme", QuotedAlternatives(kCompressionSchemeNames))
                      .Choice(kCompressionSchemeNames);
  if (auto f = section.Find("top_k_fraction")) {
    if (choice.scheme != CompressionScheme::kTopK) f->Fail("only with \"scheme\": \"top_k\"");
    choice.top_k_fraction = f->Number(0.0, 1.0, true);
  }
  if (auto t = section.Find("thc")) {
    if (choice.scheme != CompressionScheme::kThc) t->Fail("only with \"scheme\": \"thc\"");
    t->ExpectObject({"bits", "granularity", "clip", "block"});
    ThcConfig& thc = choice.thc;
    if (auto p = t->Find("bits")) thc.bits = static_cast<uint32_t>(p->Integer(1, 8));
    if (auto p = t->Find("granularity")) {
      thc.granularity = static_cast<uint32_t>(p->Integer((1u << thc.bits) - 1, 65535));
    } else if ((1u << thc.bits) - 1 > thc.granularity) {
      thc.granularity = (1u << thc.bits) - 1;  // 30 is too fine a grid for more than 5 bits' levels
    }
    if (auto p = t->Find("clip")) thc.clip = p->Number(0.0, 100.0, true);
    if (auto p = t->Find("block")) {
      const uint64_t block = p->Integer(1, uint64_t{1} << 24);
      if ((block & (block - 1)) != 0) {
        p->Fail(fmt::format("got {}; accepted: a power of two (the Hadamard transform's size)", block));
      }
      thc.block = static_cast<uint32_t>(block);
    }
  }
  return choice;
}

nlohmann::json CompressionToJson(const CompressionChoice& choice) {
  nlohmann::json out = {{"scheme", ToString(choice.scheme)}};
  if (choice.scheme == CompressionScheme::kTopK) out["top_k_fraction"] = choice.top_k_fraction;
  if (choice.scheme == CompressionScheme::kThc) {
    out["thc"] = {{"bits", choice.thc.bits},
                  {"granularity", choice.thc.granularity},
                  {"clip", choice.thc.clip},
                  {"block", choice.thc.block}};
  }
  return out;
}

namespace {

// Whether the workload's own all-reduces run "in_network" on some dimension they span: a
// collective all_reduce over its dimensions, or a training workload's data- and tensor-parallel
// all-reduces.
bool AllReducesInNetwork(const Scenario& scenario) {
  const auto& algorithms = scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce);
  auto any_in_network = [&](const std::vector<uint32_t>& dimensions) {
    for (uint32_t d : dimensions) {
      if (d < algorithms.size() && algorithms[d] == CollectiveAlgorithm::kInNetwork) return true;
    }
    return false;
  };
  if (scenario.workload_kind == WorkloadKind::kCollective) {
    return scenario.collective.kind == CollectiveKind::kAllReduce &&
           any_in_network(scenario.collective.dimensions);
  }
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    return any_in_network(scenario.training.data_dimensions) ||
           any_in_network(scenario.training.tensor_dimensions);
  }
  return false;
}

// A THC switch (aggregation.value_format "thc") sums the indices the workers' THC encoders
// produce, so the workers must run THC with the switch's bits and granularity.
void CheckThcSwitch(const JsonCursor& root, const Scenario& scenario) {
  const CompressionChoice& choice = scenario.communication.compression;
  const AggregationSwitchSpec& spec = *scenario.aggregation;
  const JsonCursor aggregation = root.Child("aggregation");
  if (choice.scheme != CompressionScheme::kThc) {
    aggregation.Child("value_format")
        .Fail(fmt::format("\"thc\" sums the workers' THC indices, so the workers must encode "
                          "with THC: accepted with it: communication.compression.scheme \"thc\" "
                          "(got \"{}\")",
                          ToString(choice.scheme)));
  }
  if (!AllReducesInNetwork(scenario)) {
    aggregation.Child("value_format")
        .Fail("nothing aggregates in this switch; accepted with \"thc\": an all_reduce collective, "
              "or a training workload, with communication.algorithms.all_reduce \"in_network\" "
              "on one of its dimensions");
  }
  const JsonCursor compression = root.Child("communication").Child("compression");
  const auto thc = compression.Find("thc");
  auto where = [&](std::string_view key) {
    return thc && thc->Has(key) ? thc->Child(key) : compression;
  };
  if (choice.thc.bits != spec.thc_bits) {
    where("bits").Fail(fmt::format("the workers encode {}-bit indices and the switch "
                                   "(aggregation.thc.bits) looks up {}-bit ones; accepted: {}",
                                   choice.thc.bits, spec.thc_bits, spec.thc_bits));
  }
  if (choice.thc.granularity != spec.thc_granularity) {
    where("granularity")
        .Fail(fmt::format("the workers' table has granularity {} and the switch's "
                          "(aggregation.thc.granularity) {}; accepted: {}",
                          choice.thc.granularity, spec.thc_granularity, spec.thc_granularity));
  }
}

}  // namespace

void ApplyCompression(const JsonCursor& root, Scenario& scenario) {
  const CompressionChoice& choice = scenario.communication.compression;
  if (scenario.aggregation && scenario.aggregation->IsThc()) {
    // THC summed in the switch: the in_network stages carry its indices and lane sums
    // (models/in-network-allreduce.h); nothing else changes size.
    CheckThcSwitch(root, scenario);
    return;
  }
  if (choice.scheme == CompressionScheme::kNone) return;
  const JsonCursor where = root.Child("communication").Child("compression");
  ParameterServerWorkload& ps = scenario.parameter_server;
  if (scenario.workload_kind != WorkloadKind::kParameterServer || ps.kind != PsModelKind::kDense) {
    where.Fail("applies to parameter_server workloads with a dense model (the software parameter "
               "server of S5), or to \"in_network\" all-reduce with a THC switch "
               "(aggregation.value_format \"thc\"); accepted: \"scheme\": \"none\", or leave it out");
  }
  if (scenario.aggregation) {
    where.Fail("cannot be combined with an int32 aggregation switch (it sums int32, not "
               "THC's table integers); accepted: \"scheme\": \"none\", or \"aggregation\" with "
               "\"value_format\": \"thc\" and \"scheme\": \"thc\"");
  }
  // Each key is one tensor for the compressor: its fp32 values, n workers for the lane width.
  const uint32_t workers = ps.Workers();
  ps.wire_encoding = [choice, workers](uint64_t value_bytes) {
    const WireBytes wire = CompressedWireBytes(choice, (value_bytes + 3) / 4, workers);
    return PsWireBytes{wire.up, wire.down};
  };
}

}  // namespace hfsim
