// Evaluates sweep points one at a time: the iteration (or collective) time of a point's
// scenario with its allocation. One evaluator per worker; it keeps per-worker caches, so it is
// not shared between threads.
//
//   analytical: the optimiser's TimeModel, compiled once per parameter combination and then
//               evaluated in microseconds; equal to AnalyticalEngine's time to the last bit
//               (tests/sweep check it). Where TimeModel does not apply (TimeModelRefusal:
//               astra_sim pricing, in-network stages, parameter servers, gossip) the analytical
//               engine itself prices each point;
//   packet:     a full PacketEngine run per point (ns-3 keeps one simulator per process, so
//               packet sweeps parallelise over processes, see sweep-runner.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/optimize/time-model.h"
#include "sim/sweep/sweep-plan.h"

namespace hfsim {

/// Thrown by TimeNs when the sweep's stop flag is set during a point that takes long (a flow
/// run): a sweep stops within a second of Ctrl-C or SIGTERM, not at the point's end.
struct SweepStopped {};

class PointEvaluator {
 public:
  /// `stop`, when given, is watched during flow-engine points.
  explicit PointEvaluator(const SweepPlan& plan, const std::atomic<bool>* stop = nullptr);

  /// Time in ns of point `point` (< plan.PointCount()).
  double TimeNs(uint64_t point);
 private:
  const SweepPlan* m_plan;
  const std::atomic<bool>* m_stop;
  std::vector<std::unique_ptr<TimeModel>> m_models;  ///< per combination, built on first use
  AllocationWalker m_walker;
};

}  // namespace hfsim
