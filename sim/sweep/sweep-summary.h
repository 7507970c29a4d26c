// What a finished sweep found, per parameter combination: the fastest point, the point with the
// least time x cost, and the Pareto frontier of time versus network cost (no other point of
// the combination is both cheaper and faster). Printed as a table and stored in sweep.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep-table.h"

namespace hfsim {

struct CombinationSummary {
  uint64_t combination = 0;
  uint64_t points = 0;  ///< recorded points of this combination
  std::optional<uint64_t> fastest;
  std::optional<uint64_t> best_time_x_cost;  ///< absent when the fabric cannot be priced
  /// Points on the time-vs-cost frontier, by increasing cost (and decreasing time).
  std::vector<uint64_t> frontier;
};

/// Ties go to the lower point number, so the summary is the same however the sweep ran.
std::vector<CombinationSummary> SummariseSweep(const SweepPlan& plan, SweepTable& table);

nlohmann::json SweepSummaryJson(const SweepPlan& plan, SweepTable& table,
                                const std::vector<CombinationSummary>& summary);
std::string SweepSummaryText(const SweepPlan& plan, SweepTable& table,
                             const std::vector<CombinationSummary>& summary);

}  // namespace hfsim
