// gnuplot scripts (data inline, so each script is self-contained next to its picture) for a
// finished sweep:
//   heatmap.gp: iteration time over the first two dimensions whose bandwidth varies, the
//     best time over the other dimensions in each cell (first parameter combination);
//     with a single varying dimension, time.gp: the time along it;
//   frontier.gp: every point's cost and time (sampled above 20,000 per combination) and the
//     Pareto frontier, one colour per parameter combination (at most 8 drawn).
#pragma once

#include <optional>
#include <string>

#include "sim/sweep/sweep-summary.h"

namespace hfsim {

struct PlotScript {
  std::string script_name;  ///< "heatmap.gp"
  std::string png_name;     ///< "heatmap.png"
  std::string script;
};

/// Absent when no dimension's bandwidth varies.
std::optional<PlotScript> AllocationPlot(const SweepPlan& plan, SweepTable& table,
                                         const std::string& title);
/// Absent when the fabric cannot be priced.
std::optional<PlotScript> FrontierPlot(const SweepPlan& plan, SweepTable& table,
                                       const std::vector<CombinationSummary>& summary,
                                       const std::string& title);

}  // namespace hfsim
