// What the flow engine does not run, refused when the scenario is loaded (exit 2 at "engine"):
// workloads that are not execution graphs (parameter server, gossip) and in-network
// aggregation, whose switch protocol only the packet engine plays.
#pragma once

#include <optional>
#include <string>

#include "sim/scenario/scenario.h"

namespace hfsim {

/// Why `scenario` cannot run on the flow engine, or nothing when it can.
std::optional<std::string> FlowRefusal(const Scenario& scenario);

}  // namespace hfsim
