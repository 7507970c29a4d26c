// gnuplot scripts (data inline, so each script is self-contained next to its picture) for a
// finished sweep:
//   heatmap.gp: iteration time over the first two dimensions whose bandwidth varies, the
//     best time over the other dimensions in each cell (first parameter combination); cells
//     tile the plane however uneven the grid, grey where no point exists;
//     with a single varying dimension, time.gp: the time along it;
//   parameters.gp: with swept parameters, the (fastest) time against the first parameter, one
//     line per combination of the others (at most 8 drawn);
//   frontier.gp: every point's cost and time (sampled above 20,000 per combination) and the
//     Pareto frontier, one colour per parameter combination (at most 8 drawn); only when the
//     fabric can be priced and there is more than one allocation to trade.
#pragma once

#include <string>
#include <vector>

#include "sim/report/gnuplot-script.h"
#include "sim/sweep/sweep-summary.h"

namespace hfsim {

/// Every picture the sweep can draw meaningfully, and a note for each one it leaves out.
PlotSet SweepPlots(const SweepPlan& plan, SweepTable& table,
                   const std::vector<CombinationSummary>& summary, const std::string& title);

}  // namespace hfsim
