// The "workload.gossip" section of a scenario (docs/scenario.md §3.14, docs/learning.md):
// decentralised SGD with gossip exchanges among workers on chosen NPUs. Internal to the loader
// (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/json-cursor.h"
#include "sim/scenario.h"

namespace hfsim {

/// Reads the section (scenario.dimensions and seed must already be read).
GossipWorkload ReadGossipSection(const JsonCursor& section, const Scenario& scenario);
nlohmann::json GossipSectionToJson(const GossipWorkload& gossip);

}  // namespace hfsim
