#include "sim/scenario/validation-section.h"

#include <fmt/format.h>

#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

// The largest measured value accepted: far above any time, rate or bandwidth a run reports, and
// small enough that no error percentage leaves double's range.
constexpr double kMaxMeasured = 1e15;

std::string_view WorkloadName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kTraining:
      return "training";
    case WorkloadKind::kCollective:
      return "collective";
    case WorkloadKind::kParameterServer:
      return "parameter_server";
    case WorkloadKind::kGossip:
      return "gossip";
    case WorkloadKind::kGraph:
      return "graph";
  }
  return "unknown";
}

// A quantity the workload cannot predict is refused where it is measured.
void CheckMeasurable(const JsonCursor& value, ValidationQuantity quantity,
                     const Scenario& scenario) {
  const WorkloadKind kind = scenario.workload_kind;
  switch (quantity) {
    case ValidationQuantity::kIterationS:
      return;
    case ValidationQuantity::kTokensPerSPerGpu:
      if (kind == WorkloadKind::kTraining && scenario.training.sequence_length_tokens == 0) {
        value.Fail(fmt::format(
            "model \"{}\" has no sequence length (a CNN, or a model given row by row), so it "
            "has no tokens; accepted: iteration_s or model_tflops_per_gpu for this model",
            scenario.training.model_name));
      }
      [[fallthrough]];
    case ValidationQuantity::kModelTflopsPerGpu:
      if (kind != WorkloadKind::kTraining) {
        value.Fail(fmt::format(
            "is measured for a training workload; this scenario's workload is \"{}\"; accepted "
            "for it: iteration_s{}",
            WorkloadName(kind), kind == WorkloadKind::kCollective ? " or busbw_GBps" : ""));
      }
      return;
    case ValidationQuantity::kBusbwGBps:
      if (kind != WorkloadKind::kCollective) {
        value.Fail(fmt::format(
            "is measured for a collective workload (nccl-tests' bus bandwidth); this "
            "scenario's workload is \"{}\"; accepted for it: iteration_s{}",
            WorkloadName(kind),
            kind == WorkloadKind::kTraining ? ", tokens_per_s_per_gpu or model_tflops_per_gpu"
                                            : ""));
      }
      return;
  }
}

}  // namespace

void ReadValidationSection(const JsonCursor& section, Scenario& scenario) {
  section.ExpectObject({"measured", "source", "flop_convention", "notes"});
  ValidationSpec spec;
  const JsonCursor measured =
      section.At("measured",
                 "an object with what the run measured: iteration_s, tokens_per_s_per_gpu, "
                 "model_tflops_per_gpu, or busbw_GBps with size_bytes");
  measured.ExpectObject(
      {"iteration_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "busbw_GBps", "size_bytes"});
  for (size_t q = 0; q < kValidationQuantityNames.size(); ++q) {
    const auto value = measured.Find(kValidationQuantityNames[q]);
    if (!value) continue;
    const auto quantity = static_cast<ValidationQuantity>(q);
    spec.measured.emplace_back(quantity, value->Number(0.0, kMaxMeasured, true));
    CheckMeasurable(*value, quantity, scenario);
  }
  if (spec.measured.empty()) {
    measured.Fail(
        "measures nothing; accepted: at least one of iteration_s, tokens_per_s_per_gpu, "
        "model_tflops_per_gpu, busbw_GBps (with size_bytes)");
  }
  const bool busbw = measured.Has("busbw_GBps");
  if (const auto size = measured.Find("size_bytes")) {
    if (!busbw) size->Fail("goes with busbw_GBps (the size nccl-tests printed); remove it");
    spec.size_bytes = size->Integer(1, ScenarioLimits::kMaxCollectiveBytes);
    if (spec.size_bytes != scenario.collective.size_bytes) {
      size->Fail(fmt::format(
          "got {}, but the workload's collective moves {} bytes; accepted: the workload's "
          "size_bytes (nccl-tests prints the whole buffer, as hfsim counts it)",
          spec.size_bytes, scenario.collective.size_bytes));
    }
  } else if (busbw) {
    measured.At("size_bytes", "the size nccl-tests printed for the measured bus bandwidth");
  }
  spec.source = section
                    .At("source",
                        "a string: the paper and table, or the repository and file, of the "
                        "measurement")
                    .String();
  if (spec.source.empty()) {
    section.Child("source").Fail(
        "is empty; accepted: the paper and table, or the repository and file, of the "
        "measurement");
  }
  const bool tflops = measured.Has("model_tflops_per_gpu");
  if (const auto convention = section.Find("flop_convention")) {
    if (!tflops) {
      convention->Fail(
          "says how model_tflops_per_gpu was counted, which \"measured\" does not give; remove "
          "it (or give model_tflops_per_gpu)");
    }
    spec.flop_convention = static_cast<FlopConvention>(convention->Choice(
        std::vector<std::string_view>(kFlopConventionNames.begin(), kFlopConventionNames.end())));
  } else if (tflops) {
    section.At("flop_convention",
               "\"megatron-causal\" or \"megatron-full\": how the source counted its TFLOP/s "
               "(docs/validation.md)");
  }
  if (const auto notes = section.Find("notes")) spec.notes = notes->String();
  scenario.validation = std::move(spec);
}

nlohmann::json ValidationSectionToJson(const ValidationSpec& spec) {
  nlohmann::json measured = nlohmann::json::object();
  for (const auto& [quantity, value] : spec.measured)
    measured[std::string(ToString(quantity))] = value;
  if (spec.size_bytes > 0) measured["size_bytes"] = spec.size_bytes;
  nlohmann::json out = {{"measured", measured}, {"source", spec.source}};
  if (spec.flop_convention) out["flop_convention"] = ToString(*spec.flop_convention);
  if (!spec.notes.empty()) out["notes"] = spec.notes;
  return out;
}

}  // namespace hfsim
