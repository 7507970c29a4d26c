#include "sim/report/convergence-report-json.h"

#include <fmt/format.h>

#include "sim/report/summary-table.h"

namespace hfsim {

namespace {

nlohmann::json RowToJson(const ConvergenceRow& row) {
  return {{"step", row.step}, {"accuracy", row.accuracy}, {"time_ns", row.time_ns}};
}

}  // namespace

nlohmann::json ConvergenceReportToJson(const ConvergenceReport& c) {
  nlohmann::json evaluations = nlohmann::json::array();
  for (const ConvergenceRow& row : c.evaluations) evaluations.push_back(RowToJson(row));
  return {{"scheme", c.scheme},
          {"task", c.task},
          {"classifier", c.classifier},
          {"workers", c.workers},
          {"steps", c.steps},
          {"iteration_ns", c.iteration_ns},
          {"target_accuracy", c.target_accuracy},
          {"final_accuracy", c.final_accuracy},
          {"reached_target", c.reached_target ? RowToJson(*c.reached_target) : nlohmann::json()},
          {"time_to_accuracy_ns",
           c.reached_target ? nlohmann::json(c.reached_target->time_ns) : nlohmann::json()},
          {"evaluations", evaluations}};
}

std::string ConvergenceSummary(const ConvergenceReport& c) {
  std::string out = fmt::format(
      "convergence: {} gradients, {} workers train a {} classifier on the {} task, {} steps; "
      "final accuracy {:.1f}%\n",
      c.scheme, c.workers, c.classifier, c.task, c.steps, 100.0 * c.final_accuracy);
  if (c.reached_target) {
    out += fmt::format("  reached {:.1f}% after {} steps: time to accuracy {}\n",
                       100.0 * c.target_accuracy, c.reached_target->step,
                       FormatDuration(c.reached_target->time_ns));
  } else {
    out += fmt::format("  did not reach {:.1f}% in {} steps\n", 100.0 * c.target_accuracy, c.steps);
  }
  return out;
}

}  // namespace hfsim
