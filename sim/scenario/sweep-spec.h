// What `hfsim sweep` evaluates: a set of per-NPU bandwidth allocations (a grid, every split of a
// total, or a list) crossed with values of other scenario keys ("parameters"). Plain validated
// data, read by sim/scenario/sweep-section.h; the points themselves are enumerated by sim/sweep/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hfsim {

/// Declared in sim/scenario/scenario.h (a scoped enum is complete once declared).
enum class EngineKind;

enum class AllocationSetKind {
  kTopology,  ///< no "bandwidth_GBps": the topology's own bandwidths, one allocation
  kGrid,      ///< the cartesian product of one axis of values per dimension
  kSplit,     ///< every split of a total into multiples of a step, each at least a minimum
  kList,      ///< explicit allocations
};

/// Every allocation B with B_d = min + k_d * step (k_d >= 0 integers) for d < D-1 and
/// B_{D-1} = total - sum of the others >= min.
struct SplitSpec {
  double total_GBps = 0.0;
  double step_GBps = 0.0;
  double min_GBps = 0.0;
};

/// One scenario key swept over values, e.g. path "workload.collective.size_bytes". The path has
/// the form the loader's error messages use (keys joined by '.', array indices as [i]).
struct SweepParameter {
  std::string path;
  std::vector<nlohmann::json> values;
};

struct SweepSpec {
  bool given = false;
  std::optional<EngineKind> engine;  ///< absent: the scenario's engine
  AllocationSetKind allocations = AllocationSetKind::kTopology;
  std::vector<std::vector<double>> grid;  ///< kGrid: one axis of values per dimension
  SplitSpec split;                        ///< kSplit
  std::vector<std::vector<double>> list;  ///< kList
  std::vector<SweepParameter> parameters;
  /// The section as the user wrote it (axes stay as from/to/step), echoed back verbatim.
  nlohmann::json source;
  /// Refused before anything is allocated: a sweep holds 8 bytes per point while it runs.
  static constexpr uint64_t kMaxPoints = uint64_t{1} << 27;  // 134 M points, 1 GiB of times
};

}  // namespace hfsim
