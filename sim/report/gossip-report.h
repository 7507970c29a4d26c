// What a gossip run produces (docs/report.md, "gossip"): the learning (accuracy over time), the
// traffic in the simulated model's bytes, and the time the fabric adds. Part of Report; set only
// for workload "gossip".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hfsim {

struct GossipEvaluationRow {
  uint32_t step = 0;          ///< local steps completed
  double time_ns = 0.0;       ///< simulated time at the end of that step
  uint64_t bytes = 0;         ///< exchange bytes sent so far
  double mean_model_accuracy = 0.0;
  double worker_accuracy = 0.0;
};

struct GossipReport {
  std::string rule;
  std::string trigger;
  uint32_t workers = 0;
  uint32_t steps = 0;
  uint64_t model_bytes = 0;
  uint64_t messages = 0;
  uint64_t total_bytes = 0;
  double compute_ns = 0.0;   ///< steps x step_compute_ns
  double exchange_ns = 0.0;  ///< the exchange phases of every step together
  double total_ns = 0.0;
  double final_accuracy = 0.0;         ///< mean model, test split
  double final_worker_accuracy = 0.0;  ///< the workers' own models, averaged
  double target_accuracy = 0.0;
  /// The first evaluation at or above the target: its time, step and bytes; unset if never.
  std::optional<GossipEvaluationRow> reached_target;
  std::vector<uint32_t> exchanges_per_worker;
  std::vector<GossipEvaluationRow> evaluations;
};

}  // namespace hfsim
