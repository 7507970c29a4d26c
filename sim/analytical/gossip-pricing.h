// The analytical engine's run of a gossip scenario (docs/learning.md, sim/runs/gossip-run.h): each
// step costs step_compute_ns plus one phase in which that step's exchange messages cross the
// fabric concurrently, priced like any set of concurrent point-to-point messages
// (transfer-phase.h: the busiest link's bytes over its bandwidth plus the longest route latency).
#pragma once

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

void RunGossipAnalytical(const Scenario& scenario, Report& report);

}  // namespace hfsim
