// The analytical engine's iteration time as a function of the per-dimension bandwidths B
// (bytes/ns, numerically GB/s), compiled once from a scenario so the optimiser can evaluate it
// (with a subgradient) in microseconds.
//
// Every collective costs sum_s (a_s + b_s / B_d(s)) + (C - 1) * max_d W_d(B), with
// W_d = sum of the stage times on d (sim/analytical/collective-pricing.h), and the training
// timeline (workloads/training-loop.h) combines collectives and compute with + and max only, so
// the time is convex in B > 0. Identical collectives (same kind, group and size) are priced once.
// The value is the engine's to the last bit: same profiles, same arithmetic, same order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/schedule-profile.h"
#include "sim/expected.h"
#include "sim/optimize/time-gradient.h"
#include "sim/scenario.h"

namespace hfsim {

/// Why TimeModel cannot price `scenario` exactly as the analytical engine does (a JSON path and
/// the reason), or nullopt. It covers training and collective workloads under hfsim's pricing
/// without in-network stages: there the time is convex in the bandwidths (the optimiser's
/// certificate needs that). `optimize` refuses the rest with exit 2; `sweep` prices the rest
/// with the analytical engine itself, point by point.
std::optional<UserError> TimeModelRefusal(const Scenario& scenario);

class TimeModel {
 public:
  /// `scenario` must be accepted by TimeModelRefusal (std::invalid_argument otherwise).
  explicit TimeModel(const Scenario& scenario);

  uint32_t DimensionCount() const { return m_dimension_count; }
  /// Iteration (or collective) time in ns with bandwidth_Bpns[d] for dimension d (all > 0).
  double TimeNs(const std::vector<double>& bandwidth_Bpns) const;
  /// The same time with its gradient d time / d B_d (ns per byte/ns); a subgradient where a max
  /// has a tie.
  TimeGradient Evaluate(const std::vector<double>& bandwidth_Bpns) const;
  /// Bytes one NPU sends into each dimension per iteration (independent of B).
  const std::vector<double>& TrafficBytes() const { return m_traffic_bytes; }

 private:
  struct Stage {
    uint32_t dimension = 0;
    const ScheduleProfile* profile = nullptr;
    double buffer_bytes = 0.0;  ///< one chunk's buffer
  };
  struct Collective {
    std::vector<Stage> stages;
  };
  /// Index into m_collectives (or -1) and repeat count for each of a layer's three phases.
  struct LayerComm {
    int32_t collective[3] = {-1, -1, -1};
    uint32_t count[3] = {0, 0, 0};
  };

  template <typename Time>
  Time Play(const std::vector<double>& bandwidth_Bpns) const;
  template <typename Time>
  Time CollectiveTime(const Collective& collective, const std::vector<double>& bandwidth_Bpns) const;
  int32_t AddCollective(CollectiveKind kind, uint64_t size_bytes,
                        const std::vector<uint32_t>& dimensions, uint32_t count);

  std::vector<Dimension> m_dimensions;
  CommunicationSpec m_communication;
  uint32_t m_dimension_count;
  bool m_training;
  TrainingIteration m_iteration;
  std::vector<LayerComm> m_layers;
  std::vector<Collective> m_collectives;
  /// Key of each collective, to find identical ones while compiling.
  struct Key {
    CollectiveKind kind;
    uint64_t size_bytes;
    std::vector<uint32_t> dimensions;
  };
  std::vector<Key> m_keys;
  std::vector<double> m_traffic_bytes;
};

}  // namespace hfsim
