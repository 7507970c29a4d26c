// One dimension of a multi-dimensional fabric: its kind, size, link parameters and the kind's own
// shape parameters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

/// The physical shape of one dimension's groups. Each kind is one file in topologies/kinds/ (its
/// parameters, links, routes, closed-form link loads and cost: dimension-kinds.h,
/// dimension-shape.h), registered in topologies/dimension-kinds.cc.
enum class DimensionKind {
  kRing,            ///< each NPU links to its two neighbours; per-NPU bandwidth split over 2 links
  kFullyConnected,  ///< each NPU links to every peer; per-NPU bandwidth split over size-1 links
  kSwitch,          ///< each NPU has one up-link to the group's switch (2 hops between NPUs)
  /// Two tiers: NPUs on leaf switches (leaf_npus each), every leaf linked to every spine;
  /// routes between leaves pick a spine by ECMP (2 hops within a leaf, 4 across).
  kClos,
  /// A 2-D torus of rows x columns NPUs, each linked to its 4 neighbours with wrap-around.
  kTorus2D,
};

/// Scenario spellings, in the order messages list them.
inline constexpr NameTable<DimensionKind, 5> kDimensionKindNames = {{
    {DimensionKind::kRing, "Ring"},
    {DimensionKind::kFullyConnected, "FullyConnected"},
    {DimensionKind::kSwitch, "Switch"},
    {DimensionKind::kClos, "Clos"},
    {DimensionKind::kTorus2D, "Torus2D"},
}};

inline std::string_view ToString(DimensionKind kind) { return NameIn(kDimensionKindNames, kind); }
inline std::optional<DimensionKind> ParseDimensionKind(std::string_view text) {
  return ParseIn(kDimensionKindNames, text);
}

/// Most parameters a kind has beyond size, bandwidth and latency (a Clos has 3).
inline constexpr size_t kMaxShapeParameters = 4;

/// One dimension. Units: bandwidth in bytes per ns (numerically GB/s, 1 GB = 1e9 B), latency in ns.
struct Dimension {
  DimensionKind kind = DimensionKind::kRing;
  /// NPUs per group along this dimension (>= 2).
  uint32_t size = 2;
  /// Total egress bandwidth of one NPU into this dimension, bytes/ns. Each kind splits it over the
  /// NPU's links (LinkFraction in dimension-shape.h): a Ring over its two directions (a 2-NPU ring
  /// has one link each way carrying all of it), a FullyConnected dimension over its size-1 links,
  /// a Switch gives it all to the single up-link.
  double bandwidth_Bpns = 0.0;
  /// Latency of one link (one hop), ns.
  double latency_ns = 0.0;
  /// The kind's own parameters, in the order its entry lists them (dimension-kinds.h; for a Clos
  /// leaf_npus, spines, oversubscription), 0 past them. Read and written through the kind's
  /// accessors (topologies/kinds/clos.h) or generically through its parameter list.
  std::array<double, kMaxShapeParameters> parameters{};

  bool operator==(const Dimension&) const = default;
};

}  // namespace hfsim
