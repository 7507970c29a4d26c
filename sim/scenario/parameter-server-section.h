// The "workload.parameter_server" section of a scenario (docs/parameter-server.md): workers and
// server shards on NPUs, a dense or sparse (Zipf) model, key partitioning, iterations. Internal
// to the loader: throws JsonPathError, which ParseScenario turns into an Expected.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads the section (scenario.dimensions must already be read).
ParameterServerWorkload ReadParameterServerSection(const JsonCursor& section,
                                                   const Scenario& scenario);
/// Refuses what has no meaning for point-to-point workloads (parameter_server and gossip):
/// communication keys of collectives (chunks, per-step and per-message costs, ...) set away from
/// their defaults, and "optimize" or "sweep" sections (their time model prices collectives only);
/// for gossip also an "aggregation" section and the packet engine.
void CheckPointToPointWorkloadFits(const JsonCursor& root, const Scenario& scenario);

nlohmann::json ParameterServerSectionToJson(const ParameterServerWorkload& workload);

}  // namespace hfsim
