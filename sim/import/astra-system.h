// Reads an ASTRA-sim system JSON into hfsim's "communication" object with
// "pricing": "astra_sim" (docs/astra-sim.md §3 lists every key and how it maps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"

namespace hfsim {

/// ASTRA-sim's endpoint-delay when its system file has none: 10 cycles (Sys::Sys,
/// astra-sim/system/Sys.cc, sets communication_delay = 10 before the file is read).
inline constexpr double kAstraDefaultEndpointDelay = 10.0;

/// `sizes` are the network's npus_count (implementation lists need one entry per dimension).
/// Errors name the file and the JSON key.
/// `chakra`: the workload is a Chakra trace, whose collectives the "*-implementation-custom"
/// keys may implement (read by the trace importer, docs/chakra.md §6); refused otherwise.
Expected<nlohmann::json> ReadAstraSystem(const std::string& path, const std::vector<uint32_t>& sizes,
                                         bool chakra = false);
/// The same for the file's text; messages name `source_name` where they would name the file.
Expected<nlohmann::json> ParseAstraSystemText(const std::string& text, const std::string& source_name,
                                              const std::vector<uint32_t>& sizes, bool chakra = false);

}  // namespace hfsim
