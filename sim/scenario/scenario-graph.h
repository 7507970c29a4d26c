// The execution graph of a scenario's workload: the one place that knows which generator
// makes which workload's graph. The loader generates and places it once
// (PlaceWorkloadGraph, Scenario::placed_graph); admission checks, engines, the optimiser and
// sweeps read it through PlacedGraphOf; nothing after it knows where the graph came from.
//
// Parameter-server and gossip workloads are not graphs yet: their drivers model a server's
// queue and a learning process that a per-rank DAG does not express (docs/graph.md).
#pragma once

#include <memory>

#include "base/expected.h"
#include "sim/scenario/scenario.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/graph/placed-graph.h"

namespace hfsim {

/// Whether the job's ranks run different programs (a graph given, or ranks composed from the
/// parallel axes): the report then names the rank whose breakdown it shows and sums each
/// program's traffic times its ranks.
bool RanksRunDifferentPrograms(const Scenario& scenario);
/// Whether the scenario's workload is run as an execution graph.
bool RunsAsGraph(const Scenario& scenario);

/// The graph of a training, collective or graph workload (RunsAsGraph must hold), generated
/// anew; a layout the generator refuses is a UserError at the key it breaks
/// ("workload.training.parallelism").
Expected<ExecutionGraph> GenerateWorkloadGraph(const Scenario& scenario);
/// The same, for a scenario the loader accepted (std::logic_error otherwise). Tests read it;
/// runs read the placed graph instead.
ExecutionGraph BuildExecutionGraph(const Scenario& scenario);

/// The workload's graph generated and placed on the scenario's fabric, for the loader; errors
/// name the workload's key ("workload.training.parallelism", "workload.collective",
/// "workload.graph").
Expected<std::shared_ptr<const PlacedGraph>> PlaceWorkloadGraph(const Scenario& scenario);

/// The placed graph the loader made (std::logic_error when there is none: a scenario not from
/// the loader, or a workload that is no graph).
const std::shared_ptr<const PlacedGraph>& PlacedGraphOf(const Scenario& scenario);

}  // namespace hfsim
