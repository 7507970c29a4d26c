// What a convergence run produces (docs/report.md, "convergence"): how many synchronous
// data-parallel steps the scenario's compression scheme needs to reach the target accuracy on
// the learning task, and what that costs at the engine's iteration time (S5's time to accuracy).
// Part of Report; set only when workload.parameter_server.convergence is given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hfsim {

struct ConvergenceRow {
  uint32_t step = 0;     ///< steps (iterations) completed
  double accuracy = 0.0; ///< test accuracy of the shared model
  double time_ns = 0.0;  ///< step x the iteration time
};

struct ConvergenceReport {
  std::string scheme;     ///< the compression scheme the gradients travelled with
  std::string task;       ///< "synthetic" or "fashion_mnist"
  std::string classifier; ///< "logistic" or "mlp"
  uint32_t workers = 0;
  uint32_t steps = 0;          ///< steps trained (max_steps)
  double iteration_ns = 0.0;   ///< the engine's mean iteration time
  double target_accuracy = 0.0;
  double final_accuracy = 0.0;
  /// The first evaluation at or above the target; unset if never. Its time is the time to
  /// accuracy.
  std::optional<ConvergenceRow> reached_target;
  std::vector<ConvergenceRow> evaluations;
};

}  // namespace hfsim
