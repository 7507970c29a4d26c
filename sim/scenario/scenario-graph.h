// The execution graph of a scenario's workload: the one place that knows which generator
// makes which workload's graph. Engines call this and run the graph; nothing after it knows
// where the graph came from.
//
// Parameter-server and gossip workloads are not graphs yet: their drivers model a server's
// queue and a learning process that a per-rank DAG does not express (docs/graph.md).
#pragma once

#include "sim/scenario/scenario.h"
#include "workloads/graph/execution-graph.h"

namespace hfsim {

/// Whether the scenario's workload is run as an execution graph.
/// Whether the job's ranks run different programs (a graph given, or a pipeline's stages): the
/// report then names the rank whose breakdown it shows and sums each program's traffic times
/// its ranks.
bool RanksRunDifferentPrograms(const Scenario& scenario);
bool RunsAsGraph(const Scenario& scenario);

/// The graph of a training, collective or graph workload (RunsAsGraph must hold).
ExecutionGraph BuildExecutionGraph(const Scenario& scenario);

}  // namespace hfsim
