// The table of dimension kinds: what is known of a kind before a dimension of it exists (its JSON
// shape, which traffic it carries, which engines' features it has), and the factory of its
// DimensionShape (dimension-shape.h) for a dimension whose parameters fit.
//
// Adding a kind: its enum value and name (dimension.h), one file in topologies/kinds/ defining
// its entry and shape, one line in dimension-kinds.cc, its source in topologies/CMakeLists.txt,
// its tests, and its section of docs/scenario.md. Nothing else switches on the kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "topologies/dimension-shape.h"
#include "topologies/dimension.h"

namespace hfsim {

/// The values a parameter accepts: [min, max], or (min, max] when min_exclusive.
struct ParameterRange {
  double min = 0.0;
  double max = 0.0;
  bool min_exclusive = false;
};

/// One of a kind's own keys in a scenario's dimension entry, beside kind, size, bandwidth_GBps
/// and latency_ns. The scenario parser reads them generically, in this order, into
/// Dimension::parameters.
struct ShapeParameter {
  std::string_view key;
  /// What is expected, for the message when the key is missing.
  std::string_view meaning;
  /// A JSON integer (else any finite number).
  bool integer = true;
  /// The value when the key is absent; a required key has none.
  std::optional<double> default_value;
  /// The accepted values for a dimension of this size and the parameters before this one.
  ParameterRange (*range)(const Dimension& so_far) = nullptr;
};

struct DimensionKindEntry {
  DimensionKind kind = DimensionKind::kRing;
  std::span<const ShapeParameter> parameters;
  /// Sizes the kind accepts (FullyConnected keeps below n^2 links of a million; a Torus2D needs
  /// 3 x 3).
  uint32_t min_size = 2;
  uint32_t max_size = 65536;
  /// The collective algorithm a dimension of this kind runs unless the scenario names one
  /// (models/collective.h's spelling): where it cannot run a collective on this kind, the first
  /// algorithm that can.
  std::string_view default_algorithm;
  /// The TrafficPattern bits whose steps the kind prices; an algorithm that makes another is
  /// refused on it.
  uint32_t patterns = 0;
  /// Each group has one switch that can aggregate (in-network all-reduce, hot-key aggregation).
  bool aggregating_switch = false;
  /// Routes depend on the ECMP value (EcmpValue in fabric-graph.h).
  bool ecmp = false;
  /// The share of an NPU's bandwidth a group of `members` of a dimension's `size` NPUs gets (a
  /// FullyConnected group only its links among them); nullptr when a group must span all of a
  /// dimension of this kind or none of it.
  double (*partial_group_share)(uint32_t size, uint32_t members) = nullptr;
  /// Hops ASTRA-sim's analytical backend counts between NPUs `distance` apart along the
  /// dimension (docs/astra-sim.md §4); nullptr when ASTRA-sim has no such topology.
  uint32_t (*astra_hops)(uint32_t npus, uint32_t distance) = nullptr;
  /// Why parameter `index` (just read, with the ones before it) does not fit the dimension, a
  /// message for that key; nullopt when it fits. nullptr: ranges say all.
  std::optional<std::string> (*check)(const Dimension& dim, size_t index) = nullptr;
  /// The shape of a dimension whose parameters fit (CheckDimension).
  std::unique_ptr<const DimensionShape> (*make)(const Dimension& dim) = nullptr;

  bool Carries(TrafficPattern pattern) const { return (patterns & PatternBit(pattern)) != 0; }
};

const DimensionKindEntry& KindEntry(DimensionKind kind);
/// Every kind, in DimensionKind order.
std::span<const DimensionKindEntry* const> AllDimensionKinds();

/// Why `dim` is not a valid dimension of its kind (size or a parameter out of range, parameters
/// that do not fit together), or nullopt.
std::optional<std::string> DimensionProblem(const Dimension& dim);
/// The shape of `dim`; throws std::invalid_argument with DimensionProblem's reason when it is not
/// valid.
std::unique_ptr<const DimensionShape> MakeShape(const Dimension& dim);

}  // namespace hfsim
