#include "workloads/graph/group-shape.h"

#include <algorithm>

#include <fmt/format.h>

#include "topologies/dimension-kinds.h"

namespace hfsim {

std::vector<std::vector<uint32_t>> CoordinatesOfGroup(const Topology& topology,
                                                      const std::vector<uint32_t>& ranks) {
  const uint32_t dimension_count = topology.DimensionCount();
  // Each coordinate is kept the first time it is seen and the few kept are sorted: scanning a
  // whole dimension for each group instead (2,048 positions for each of Llama 3 405B's 2,176
  // groups on 16,384 GPUs) was half the time of loading that job (bench/RESULTS.md).
  std::vector<std::vector<bool>> seen(dimension_count);
  for (uint32_t d = 0; d < dimension_count; ++d) seen[d].assign(topology.Dim(d).size, false);
  std::vector<std::vector<uint32_t>> coordinates(dimension_count);
  for (const uint32_t rank : ranks) {
    for (uint32_t d = 0; d < dimension_count; ++d) {
      const uint32_t c = topology.Coordinate(rank, d);
      if (!seen[d][c]) {
        seen[d][c] = true;
        coordinates[d].push_back(c);
      }
    }
  }
  for (std::vector<uint32_t>& kept : coordinates) std::sort(kept.begin(), kept.end());
  return coordinates;
}

std::variant<GroupShape, std::string> ShapeOfGroup(const Topology& topology,
                                                   const std::vector<uint32_t>& ranks,
                                                   const std::vector<uint32_t>& order) {
  return ShapeOfCoordinates(CoordinatesOfGroup(topology, ranks), ranks.size(), order);
}

std::variant<GroupShape, std::string> ShapeOfCoordinates(
    const std::vector<std::vector<uint32_t>>& coordinates, uint64_t rank_count,
    const std::vector<uint32_t>& order) {
  const uint32_t dimension_count = static_cast<uint32_t>(coordinates.size());
  auto distinct = [&](uint32_t d) { return static_cast<uint32_t>(coordinates[d].size()); };
  uint64_t product = 1;
  for (uint32_t d = 0; d < dimension_count; ++d) product *= distinct(d);
  if (product != rank_count) {
    return fmt::format("its {} ranks are not every combination of their coordinates on the "
                       "fabric ({} combinations), so it cannot be priced dimension by dimension; "
                       "accepted: whole or partial dimensions and their products",
                       rank_count, product);
  }
  GroupShape shape;
  if (order.empty()) {
    for (uint32_t d = 0; d < dimension_count; ++d) {
      if (distinct(d) > 1) shape.dimensions.push_back(d);
    }
  } else {
    for (uint32_t d = 0; d < dimension_count; ++d) {
      if (distinct(d) > 1 && std::find(order.begin(), order.end(), d) == order.end()) {
        return fmt::format("it spans dimension {}, which its communicator's dimension order "
                           "does not list", d);
      }
    }
    for (const uint32_t d : order) {
      if (d < dimension_count && distinct(d) > 1) shape.dimensions.push_back(d);
    }
  }
  for (const uint32_t d : shape.dimensions) shape.sizes.push_back(distinct(d));
  return shape;
}

double BandwidthShare(const Dimension& whole, uint32_t group_size) {
  // The kind's rule (a FullyConnected group uses only its links among its members); a kind that
  // prices whole groups only never gets here with part of one.
  const auto share = KindEntry(whole.kind).partial_group_share;
  return share == nullptr ? 1.0 : share(whole.size, group_size);
}

std::vector<Dimension> DimensionsSeenBy(const std::vector<Dimension>& dimensions,
                                        const GroupShape& shape) {
  std::vector<Dimension> seen = dimensions;
  for (size_t i = 0; i < shape.dimensions.size(); ++i) {
    seen[shape.dimensions[i]].size = shape.sizes[i];
  }
  return seen;
}

}  // namespace hfsim
