// What both engines share for a gossip workload (docs/learning.md): the learning runs first,
// in-process (models/learning/gossip.h), and yields every exchange message with the step it
// belongs to; the learning does not depend on the network's timing, so an engine only has to say
// when each step ended. From those step end times this file builds the whole gossip report
// (accuracy against time and bytes, time to target, per-dimension traffic), identically for the
// analytical and the packet engine.
//
// The step model (both engines): every worker computes one local step (step_compute_ns), then the
// step's exchange messages cross the fabric concurrently, and the next step starts when the last
// of them has arrived. A worker waits for its exchange before its next step (the conservative
// choice; gossip implementations that overlap would be faster).
#pragma once

#include <cstdint>
#include <vector>

#include "models/learning/gossip.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Runs the workers' learning of the scenario's gossip workload on its task, seeded by the
/// scenario's seed as it is now (so `hfsim run --seed` reseeds the task and the workers). Throws
/// std::invalid_argument (from the learning) or std::runtime_error (a data set that cannot be
/// read).
GossipTrace TrainGossip(const Scenario& scenario);

/// The NPU of a trace node: workers 0..W-1 are worker_npus, node W is the elastic centre's server.
uint32_t GossipNodeNpu(const GossipWorkload& gossip, uint32_t node);

/// Fills report.gossip, npus, the iteration (one local step on average), communication_ns and
/// the per-dimension reports from the trace and `step_end_ns[s]`, the simulated time at which
/// step s ended (ns since the start, non-decreasing, one per step).
void ReportGossip(const Scenario& scenario, const GossipTrace& trace,
                  const std::vector<double>& step_end_ns, Report& report);

}  // namespace hfsim
