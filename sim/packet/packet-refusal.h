// Every reason a packet-engine run is refused before it starts, in one place for the commands
// that can switch a scenario to the packet engine after it loaded (run --engine packet, packet
// sweeps, optimize --verify): an in-network setup the packet engine cannot run, a gossip run too
// large to train in-process, a run whose estimated memory is over its limit, and a message
// larger than the RDMA transport can number.
#pragma once

#include <optional>

#include "base/expected.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The first refusal (JSON path and reason), or nullopt when the packet engine can run it.
std::optional<UserError> PacketRunRefusal(const Scenario& scenario);

}  // namespace hfsim
