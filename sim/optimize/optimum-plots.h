// The picture `hfsim optimize -o DIR` draws, as a self-contained gnuplot script (data inline):
//   frontier.gp, when the objective gives a frontier of two or more budgets (time_x_cost): the
//     optimal time per budget against network cost, the chosen point and the equal split;
//   bandwidth.gp otherwise (time, time_under_budget: one optimum, which as a frontier would be a
//     single point): one panel per dimension, the time as that dimension's bandwidth moves
//     around the optimum while the other free dimensions, scaled together, hold what binds
//     there: the total, else the budget (else they keep their bandwidths); only allocations
//     within the constraints. Priced by the optimiser's own time model (time-model.h), so each
//     curve's lowest point is the optimum.
// With --verify, the engines' times of the verified allocations are drawn next to the model's.
#pragma once

#include <vector>

#include "sim/report/gnuplot-script.h"
#include "sim/optimize/optimizer.h"
#include "sim/optimize/verify.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The picture, or a note saying why none is drawn (every dimension pinned by the constraints).
/// `verified` is empty without --verify.
PlotSet OptimumPlots(const OptimizeOutcome& outcome, const Scenario& scenario,
                     const std::vector<VerifyRow>& verified);

}  // namespace hfsim
