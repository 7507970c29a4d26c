// The "workload.gossip" section of a scenario (docs/scenario.md §3.14, docs/learning.md):
// decentralised SGD with gossip exchanges among workers on chosen NPUs. Internal to the loader
// (throws JsonPathError).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Bytes a gossip run may put on the packet engine's fabric at most (every worker exchanging
/// every step, elastic averaging's two messages each): 2 TiB, about 3·10^9 events or 20 minutes
/// at the 2.7 M events/s bench/RESULTS.md measures for gossip.
inline constexpr double kMaxGossipPacketBytes = 2.0 * 1099511627776.0;

/// With the packet engine: refuses (at workload.gossip) a run whose worst case, steps x workers
/// x messages per exchange x model_bytes, exceeds kMaxGossipPacketBytes. The loader and
/// `hfsim run --engine packet` both call it.
std::optional<UserError> GossipPacketRefusal(const Scenario& scenario);

/// Reads the section (scenario.dimensions and seed must already be read).
GossipWorkload ReadGossipSection(const JsonCursor& section, const Scenario& scenario);
nlohmann::json GossipSectionToJson(const GossipWorkload& gossip);

}  // namespace hfsim
