#include "sim/analytical/validation-run.h"

#include <exception>
#include <filesystem>

#include <fmt/format.h>

#include "base/failure-message.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/report/bus-bandwidth.h"
#include "sim/report/throughput.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

double Predicted(ValidationQuantity quantity, const Report& report, const Scenario& scenario) {
  const ValidationSpec& spec = *scenario.validation;
  switch (quantity) {
    case ValidationQuantity::kIterationS:
      return report.iteration.total_ns * 1e-9;
    case ValidationQuantity::kTokensPerSPerGpu:
      // The loader accepts it only for a model with tokens.
      return ReportThroughput(report, scenario)->tokens_per_s_per_gpu.value_or(0.0);
    case ValidationQuantity::kModelTflopsPerGpu:
      return ReportThroughput(report, scenario, *spec.flop_convention)->model_tflops_per_gpu;
    case ValidationQuantity::kBusbwGBps: {
      uint64_t ranks = 1;
      for (uint32_t d : scenario.collective.dimensions) ranks *= scenario.dimensions[d].size;
      return BusBandwidthGBps(scenario.collective.kind, ranks, spec.size_bytes,
                              report.iteration.total_ns);
    }
  }
  return 0.0;
}

// The rows of a scenario that could not be predicted: one per quantity its block measures (read
// from the document when the loader refused it), or one with none.
std::vector<ValidationRow> FailedRows(const std::string& name,
                                      const std::vector<std::pair<std::string, double>>& measured,
                                      const std::string& message) {
  std::vector<ValidationRow> rows;
  ValidationRow row;
  row.scenario = name;
  row.failure = message;
  for (const auto& [quantity, value] : measured) {
    row.quantity = quantity;
    row.measured = value;
    rows.push_back(row);
  }
  if (rows.empty()) rows.push_back(row);
  return rows;
}

// What a refused document's block measures, as far as it can be read: the known quantities
// given as numbers.
std::vector<std::pair<std::string, double>> MeasuredInDocument(const nlohmann::json& document) {
  std::vector<std::pair<std::string, double>> measured;
  const auto block = document.find("validation");
  if (block == document.end() || !block->is_object()) return measured;
  const auto values = block->find("measured");
  if (values == block->end() || !values->is_object()) return measured;
  for (std::string_view name : kValidationQuantityNames) {
    const auto value = values->find(std::string(name));
    if (value != values->end() && value->is_number()) {
      measured.emplace_back(std::string(name), value->get<double>());
    }
  }
  return measured;
}

}  // namespace

std::string DeviceLabel(const Scenario& scenario) {
  // The dense peak stands for the device until scenarios name one (npu.device).
  if (scenario.workload_kind != WorkloadKind::kTraining) return "";
  return fmt::format("{:g} TFLOP/s peak", scenario.training.peak_TFLOPS);
}

std::vector<ValidationRow> PredictValidation(const std::string& name, const Scenario& scenario) {
  Scenario analytical = scenario;
  analytical.engine = EngineKind::kAnalytical;
  const Report report = AnalyticalEngine().Run(analytical);
  std::vector<ValidationRow> rows;
  for (const auto& [quantity, value] : scenario.validation->measured) {
    ValidationRow row;
    row.scenario = name;
    row.quantity = ToString(quantity);
    row.measured = value;
    row.predicted = Predicted(quantity, report, analytical);
    row.device = DeviceLabel(scenario);
    rows.push_back(std::move(row));
  }
  return rows;
}

ValidationFile ValidateScenarioFile(const std::string& path) {
  const std::string name = std::filesystem::path(path).stem().string();
  ValidationFile file;
  auto document = LoadScenarioDocument(path);
  if (!document) {
    file.outcome = ValidationOutcome::kRefused;
    file.message = document.Error().ToString();
    file.rows = FailedRows(name, {}, file.message);
    return file;
  }
  if (!document.Value().is_object() || !document.Value().contains("validation")) {
    file.outcome = ValidationOutcome::kSkipped;
    return file;
  }
  const auto measured = MeasuredInDocument(document.Value());
  auto scenario = ParseScenario(document.Value());
  if (!scenario) {
    file.outcome = ValidationOutcome::kRefused;
    file.message = path + ": " + scenario.Error().ToString();
    file.rows = FailedRows(name, measured, file.message);
    return file;
  }
  try {
    file.rows = PredictValidation(name, scenario.Value());
  } catch (const std::exception& error) {
    file.outcome = ValidationOutcome::kRunFailed;
    file.message = path + ": " + FailureMessage(error);
    file.rows = FailedRows(name, measured, file.message);
  }
  return file;
}

}  // namespace hfsim
