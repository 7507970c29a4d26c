#include "sim/report/gossip-report-json.h"

#include <fmt/format.h>

#include "sim/report/summary-table.h"

namespace hfsim {

namespace {

nlohmann::json RowToJson(const GossipEvaluationRow& row) {
  return {{"step", row.step},
          {"time_ns", row.time_ns},
          {"bytes", row.bytes},
          {"mean_model_accuracy", row.mean_model_accuracy},
          {"worker_accuracy", row.worker_accuracy}};
}

}  // namespace

nlohmann::json GossipReportToJson(const GossipReport& g) {
  nlohmann::json evaluations = nlohmann::json::array();
  for (const GossipEvaluationRow& row : g.evaluations) evaluations.push_back(RowToJson(row));
  return {{"rule", g.rule},
          {"trigger", g.trigger},
          {"workers", g.workers},
          {"steps", g.steps},
          {"model_bytes", g.model_bytes},
          {"messages", g.messages},
          {"total_bytes", g.total_bytes},
          {"compute_ns", g.compute_ns},
          {"exchange_ns", g.exchange_ns},
          {"total_ns", g.total_ns},
          {"final_accuracy", g.final_accuracy},
          {"final_worker_accuracy", g.final_worker_accuracy},
          {"target_accuracy", g.target_accuracy},
          {"reached_target", g.reached_target ? RowToJson(*g.reached_target) : nlohmann::json()},
          {"exchanges_per_worker", g.exchanges_per_worker},
          {"evaluations", evaluations}};
}

std::string GossipSummary(const GossipReport& g) {
  std::string out = fmt::format(
      "gossip: {} rule, {} trigger, {} workers, {} steps; {} messages of {} ({} in all)\n", g.rule,
      g.trigger, g.workers, g.steps, g.messages, FormatBytes(static_cast<double>(g.model_bytes)),
      FormatBytes(static_cast<double>(g.total_bytes)));
  out += fmt::format("  time {} = compute {} + exchanges {}; final accuracy {:.1f}% (workers {:.1f}%)\n",
                     FormatDuration(g.total_ns), FormatDuration(g.compute_ns),
                     FormatDuration(g.exchange_ns), 100.0 * g.final_accuracy,
                     100.0 * g.final_worker_accuracy);
  if (g.reached_target) {
    out += fmt::format("  reached {:.1f}% after {} steps, {}, {} sent\n", 100.0 * g.target_accuracy,
                       g.reached_target->step, FormatDuration(g.reached_target->time_ns),
                       FormatBytes(static_cast<double>(g.reached_target->bytes)));
  } else {
    out += fmt::format("  did not reach {:.1f}%\n", 100.0 * g.target_accuracy);
  }
  return out;
}

}  // namespace hfsim
