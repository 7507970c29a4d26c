// One dimension of a multi-dimensional fabric: its shape, size and link parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

/// The physical shape of one dimension's groups.
enum class DimensionKind {
  kRing,            ///< each NPU links to its two neighbours; per-NPU bandwidth split over 2 links
  kFullyConnected,  ///< each NPU links to every peer; per-NPU bandwidth split over size-1 links
  kSwitch,          ///< each NPU has one up-link to the group's switch (2 hops between NPUs)
  /// Two tiers: NPUs on leaf switches (leaf_npus each), every leaf linked to every spine;
  /// routes between leaves pick a spine by ECMP (2 hops within a leaf, 4 across).
  kClos,
};

/// Scenario spellings, in the order messages list them.
inline constexpr NameTable<DimensionKind, 4> kDimensionKindNames = {{
    {DimensionKind::kRing, "Ring"},
    {DimensionKind::kFullyConnected, "FullyConnected"},
    {DimensionKind::kSwitch, "Switch"},
    {DimensionKind::kClos, "Clos"},
}};

inline std::string_view ToString(DimensionKind kind) { return NameIn(kDimensionKindNames, kind); }
inline std::optional<DimensionKind> ParseDimensionKind(std::string_view text) {
  return ParseIn(kDimensionKindNames, text);
}

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
  /// Clos only (0 / 1 otherwise): NPUs per leaf (divides size, at most size / 2), spines (at
  /// most leaf_npus), and the oversubscription r >= 1: a leaf's up-links carry 1/r of what its
  /// NPUs can send, so each leaf-spine link has bandwidth_Bpns x leaf_npus / (spines x r).
  uint32_t leaf_npus = 0;
  uint32_t spines = 0;
  double oversubscription = 1.0;

  uint32_t Leaves() const { return leaf_npus == 0 ? 0 : size / leaf_npus; }
  /// One leaf-spine link's share of an NPU's bandwidth (Clos only).
  double SpineLinkFraction() const {
    return static_cast<double>(leaf_npus) / (static_cast<double>(spines) * oversubscription);
  }

  bool operator==(const Dimension&) const = default;
};

}  // namespace hfsim
