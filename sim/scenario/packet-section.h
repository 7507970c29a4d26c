// The "packet" section of a scenario: options of the packet-level engine. Internal to the
// loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "packet" (or keeps the defaults when `section` is null). scenario.dimensions must be read.
void ReadPacketSection(const JsonCursor* section, Scenario& scenario);
nlohmann::json PacketSectionToJson(const PacketSpec& spec);

}  // namespace hfsim
