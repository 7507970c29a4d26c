// Reads an ASTRA-sim analytical network YAML (topology, npus_count, bandwidth, latency; one
// entry per dimension, dimension 0 fastest) into hfsim's "topology" object, converting units:
// ASTRA-sim's bandwidth is GB/s per one-way link with 1 GB = 2^30 B, hfsim's bandwidth_GBps the
// total egress of one NPU into the dimension in 10^9 B/s (docs/astra-sim.md §2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"

namespace hfsim {

struct AstraNetwork {
  nlohmann::json topology;      ///< {"dimensions": [...]} as the scenario loader reads it
  std::vector<uint32_t> sizes;  ///< npus_count per dimension
};

/// Files larger than this are refused before they are parsed.
inline constexpr uint64_t kMaxAstraInputBytes = uint64_t{1} << 20;

/// The network file's topology; errors name the file, the YAML key and entry, and the line.
Expected<AstraNetwork> ReadAstraNetwork(const std::string& path);
/// The same for the file's text; messages name `source_name` where they would name the file.
Expected<AstraNetwork> ParseAstraNetworkText(const std::string& text, const std::string& source_name);

/// Per-NPU bandwidth in 10^9 B/s for a per-link ASTRA-sim bandwidth in 2^30 B/s.
double AstraLinkToNpuGBps(const std::string& kind, uint32_t size, double link_GiBps);

}  // namespace hfsim
