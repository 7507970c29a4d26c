// Time to accuracy for a parameter_server workload (S5; docs/compression.md): the workers train
// the learning task's small classifier by synchronous data-parallel SGD, their gradients going
// through the scenario's compression scheme exactly as its aggregator combines them
// (models/learning/compressed-sgd.h); each step is one iteration of the simulated workload, so
// the time to the target accuracy is the steps it takes times the iteration time the engine
// measured. The learning does not depend on the engine, so both engines call this after their
// run, and the same scenario gives the same steps on both.
#pragma once

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Sets report.convergence when scenario.convergence is given (after report.iteration is set).
/// Throws std::runtime_error when the task's data set cannot be read.
void AddConvergence(const Scenario& scenario, Report& report);

}  // namespace hfsim
