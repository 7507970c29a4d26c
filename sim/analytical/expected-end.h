// Where a packet or flow run is expected to end, for its progress line (run-progress.h): the
// analytical engine's time of everything the run simulates (every parameter-server iteration,
// every gossip step; its report gives one), or 0 when it cannot price the scenario. It prices
// the graph the loader placed: no graph is built again for it.
#pragma once

#include "sim/scenario/scenario.h"

namespace hfsim {

double ExpectedEndNs(const Scenario& scenario);

}  // namespace hfsim
