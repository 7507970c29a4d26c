// Where a process group sits on the fabric: the dimensions it spans and how many of its ranks
// lie along each. Engines that price collectives per dimension (the analytical engine) need
// this; engines that route messages (the packet engine) do not.
//
// A group is priced dimension by dimension only when it is a product of per-dimension
// coordinate sets: {ranks} = C_0 x C_1 x ... (every combination of its coordinates is a member).
// Whole dimensions, part of one (4 of the 8 NPUs of a FullyConnected dimension), strided sets
// and groups spanning several dimensions all are. Its size along dimension d is |C_d|; a
// dimension with |C_d| = 1 is not spanned.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "topologies/topology.h"

namespace hfsim {

struct GroupShape {
  /// Spanned dimensions, in the order a multi-dimensional collective visits them.
  std::vector<uint32_t> dimensions;
  /// sizes[i]: the group's ranks along dimensions[i] (>= 2).
  std::vector<uint32_t> sizes;
  bool operator==(const GroupShape&) const = default;
};

/// Per dimension, the distinct coordinates `ranks` take there, ascending.
std::vector<std::vector<uint32_t>> CoordinatesOfGroup(const Topology& topology,
                                                      const std::vector<uint32_t>& ranks);

/// The shape of `ranks` (distinct, each < topology.NpuCount()), visiting spanned dimensions in
/// `order` when given (every spanned dimension must be in it), else in ascending order. Returns
/// the reason as text when the group is not a product set or `order` misses a dimension.
std::variant<GroupShape, std::string> ShapeOfGroup(const Topology& topology,
                                                   const std::vector<uint32_t>& ranks,
                                                   const std::vector<uint32_t>& order = {});
/// The same from the group's coordinates (CoordinatesOfGroup) and its rank count.
std::variant<GroupShape, std::string> ShapeOfCoordinates(
    const std::vector<std::vector<uint32_t>>& coordinates, uint64_t rank_count,
    const std::vector<uint32_t>& order = {});

/// The share of a dimension's per-NPU bandwidth a group of `group_size` of its NPUs can use:
/// (k - 1) / (n - 1) on a FullyConnected dimension, whose links to the other n - k NPUs stay
/// idle; 1 elsewhere (a Switch up-link is private; a partial Ring is priced as a Ring of k).
double BandwidthShare(const Dimension& whole, uint32_t group_size);

/// The fabric as a group of this shape sees it: spanned dimensions resized to the group's size,
/// the rest unchanged.
std::vector<Dimension> DimensionsSeenBy(const std::vector<Dimension>& dimensions,
                                        const GroupShape& shape);

}  // namespace hfsim
