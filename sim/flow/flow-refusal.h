// What the flow engine does not run, refused when the scenario is loaded (exit 2 at "engine"):
// workloads that are not execution graphs (parameter server, gossip), in-network aggregation,
// whose switch protocol only the packet engine plays, and runs whose memory estimate
// (flow-memory.h) is above packet.max_memory_GiB.
#pragma once

#include <optional>
#include <string>

#include "sim/scenario/scenario.h"

namespace hfsim {

/// What the flow engine does not model in `scenario` (its workload kind, in-network stages):
/// cheap, for checks made while the scenario is still being read (the sweep section).
std::optional<std::string> FlowModelRefusal(const Scenario& scenario);
/// Why `scenario` cannot run on the flow engine, or nothing when it can: the above, then the
/// memory estimate (which builds the execution graph, so the scenario must be fully checked).
std::optional<std::string> FlowRefusal(const Scenario& scenario);

}  // namespace hfsim
