// The report of an execution graph run message by message (GraphDriver), whatever carried the
// messages: ns-3 packets (the packet engine) or fluid flows (the flow engine). One definition,
// so both engines describe a run the same way: the reported class's breakdown, its collectives
// merged as the analytical report merges them, its sends' traffic per dimension, the timeline.
#pragma once

#include <optional>

#include "sim/analytical/graph-pricing.h"
#include "sim/messages/collective-executor.h"
#include "sim/messages/graph-driver.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "topologies/topology.h"

namespace hfsim {

/// Fills `report` from a finished run of `pricing`'s graph (iteration, collectives,
/// communication time, point-to-point traffic, the graph summary for a scenario whose ranks run
/// different programs) and, when `want_timeline`, its timeline. Returns the job's total traffic
/// when the ranks run different programs (one rank's times the NPUs would be wrong then).
std::optional<double> FillGraphReport(const Scenario& scenario, const GraphPricing& pricing,
                                      const GraphDriver& driver, const CollectiveExecutor& executor,
                                      const Topology& topology, Report& report,
                                      bool want_timeline);

}  // namespace hfsim
