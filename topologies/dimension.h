// One dimension of a multi-dimensional fabric: its shape, size and link parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hfsim {

/// The physical shape of one dimension's groups.
enum class DimensionKind {
  kRing,            ///< each NPU links to its two neighbours; per-NPU bandwidth split over 2 links
  kFullyConnected,  ///< each NPU links to every peer; per-NPU bandwidth split over size-1 links
  kSwitch,          ///< each NPU has one up-link to the group's switch (2 hops between NPUs)
};

/// Scenario spelling: "Ring", "FullyConnected", "Switch".
std::string_view ToString(DimensionKind kind);
std::optional<DimensionKind> ParseDimensionKind(std::string_view text);

/// One dimension. Units: bandwidth in bytes per ns (numerically GB/s, 1 GB = 1e9 B), latency in ns.
struct Dimension {
  DimensionKind kind = DimensionKind::kRing;
  /// NPUs per group along this dimension (>= 2).
  uint32_t size = 2;
  /// Total egress bandwidth of one NPU into this dimension, bytes/ns. A Ring splits it over its
  /// two directions (a 2-NPU ring has one link each way carrying all of it), a FullyConnected
  /// dimension over its size-1 links, a Switch gives it all to the single up-link.
  double bandwidth_Bpns = 0.0;
  /// Latency of one link (one hop), ns.
  double latency_ns = 0.0;

  bool operator==(const Dimension&) const = default;
};

}  // namespace hfsim
