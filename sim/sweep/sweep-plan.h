// Every point of a sweep: the scenario of each parameter combination (each parsed and checked
// by the loader before the sweep starts) crossed with the allocation space. Point p is
// combination p / A and allocation p % A (A allocations), so a point's number says what it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "models/cost-model.h"
#include "sim/scenario/scenario.h"
#include "sim/sweep/allocation-space.h"

namespace hfsim {

struct SweepCombination {
  Scenario scenario;  ///< with the parameter values applied
  /// The parameter values as CSV cells (JSON text, quoted for CSV when needed).
  std::vector<std::string> cells;
  /// Prices the allocations; absent when the cost section cannot price this fabric.
  std::optional<CostModel> cost;
  /// Its topology's bandwidths in GB/s: the one allocation of a sweep without
  /// "bandwidth_GBps", where a parameter may sweep them.
  std::vector<double> topology_GBps;
};

class SweepPlan {
 public:
  /// The plan for `document` (the scenario file's JSON) whose parsed form is `scenario`, which
  /// must have a "sweep" section. A UserError names the parameter value that makes a bad
  /// scenario, or a combination whose dimension count differs from the allocations'.
  static Expected<SweepPlan> Build(const nlohmann::json& document, const Scenario& scenario);

  uint64_t PointCount() const { return m_combinations.size() * m_space.Count(); }
  uint64_t AllocationCount() const { return m_space.Count(); }
  const AllocationSpace& Space() const { return m_space; }
  const std::vector<SweepCombination>& Combinations() const { return m_combinations; }
  const std::vector<SweepParameter>& Parameters() const { return m_parameters; }
  /// Bandwidths in GB/s of `point`: its allocation, or without "bandwidth_GBps" its
  /// combination's own topology bandwidths. Valid until `walker` is used again.
  const std::vector<double>& Bandwidths(AllocationWalker& walker, uint64_t point) const;
  EngineKind Engine() const { return m_engine; }
  void SetEngine(EngineKind engine) { m_engine = engine; }

 private:
  SweepPlan(AllocationSpace space) : m_space(std::move(space)) {}
  AllocationSpace m_space;
  std::vector<SweepCombination> m_combinations;
  std::vector<SweepParameter> m_parameters;
  EngineKind m_engine = EngineKind::kAnalytical;
  bool m_topology_bandwidths = false;  ///< no "bandwidth_GBps": see Bandwidths()
};

}  // namespace hfsim
