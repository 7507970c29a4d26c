// Loader checks for the "in_network" collective algorithm (docs/in-network.md): what it needs
// from the rest of the scenario, which no single section can see on its own.
#pragma once

#include <optional>

#include "base/expected.h"
#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Whether any dimension's all_reduce algorithm is "in_network".
bool UsesInNetwork(const Scenario& scenario);

/// Each "in_network" entry needs a Switch dimension, an "aggregation" section in "allreduce"
/// mode whose workers equal the dimension's size, and hfsim pricing; the other kinds' lists may
/// not name it. Throws JsonPathError naming the entry (or the aggregation key) at fault.
void CheckInNetworkAlgorithms(const JsonCursor& root, const Scenario& scenario);

/// Libra-style scenarios (a parameter_server workload with aggregation.mode "parameter_server",
/// sim/analytical/ina-ps-pricing.h): one Switch dimension, the spec's workers and server_shards
/// equal to the workload's, servers on their own NPUs. Throws JsonPathError.
void CheckLibraScenario(const JsonCursor& root, const Scenario& scenario);

/// Why the packet engine cannot run the scenario's in-network aggregation, or nullopt. It runs
/// in_network as a one-dimension "collective" all_reduce with "chunks": 1. Called by the loader
/// (engine "packet") and by `hfsim run --engine packet`.
std::optional<UserError> InNetworkPacketRefusal(const Scenario& scenario);

}  // namespace hfsim
