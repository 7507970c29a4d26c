// A multi-dimensional fabric: its dimensions and the addressing of its NPUs.
//
// NPU ids are mixed-radix numbers with dimension 0 varying fastest. Example, dimensions of sizes
// [2, 4, 3] (24 NPUs): NPU 13 = 1 + 2*(2 + 4*1) has coordinates (1, 2, 1); its peers along
// dimension 1 (its "group" in dimension 1) are NPUs 9, 11, 13, 15 = coordinates (1, 0..3, 1).
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/dimension.h"

namespace hfsim {

class Topology {
 public:
  /// Dimensions must be non-empty with sizes >= 2 (the scenario loader checks this and the
  /// total size first, with errors a user can read; here a violation throws std::invalid_argument).
  explicit Topology(std::vector<Dimension> dimensions);

  const std::vector<Dimension>& Dimensions() const { return m_dimensions; }
  const Dimension& Dim(uint32_t d) const { return m_dimensions[d]; }
  uint32_t DimensionCount() const { return static_cast<uint32_t>(m_dimensions.size()); }
  uint64_t NpuCount() const { return m_npu_count; }

  /// Coordinate of `npu` along dimension d.
  uint32_t Coordinate(uint64_t npu, uint32_t d) const {
    return static_cast<uint32_t>((npu / m_stride[d]) % m_dimensions[d].size);
  }
  std::vector<uint32_t> Coordinates(uint64_t npu) const;
  uint64_t NpuId(const std::vector<uint32_t>& coordinates) const;
  /// Distance in NPU id between neighbours along dimension d (product of sizes of dims < d).
  uint64_t Stride(uint32_t d) const { return m_stride[d]; }
  /// The NPU that shares all coordinates with `npu` except dimension d, where it has `index`.
  uint64_t PeerAlong(uint64_t npu, uint32_t d, uint32_t index) const {
    return npu + (static_cast<int64_t>(index) - Coordinate(npu, d)) * static_cast<int64_t>(m_stride[d]);
  }
  /// Number of separate groups of dimension d (NpuCount / size_d).
  uint64_t GroupCount(uint32_t d) const { return m_npu_count / m_dimensions[d].size; }
  /// First NPU (coordinate 0 along d) of the g-th group of dimension d, g in [0, GroupCount(d)).
  uint64_t GroupBase(uint32_t d, uint64_t group) const;

 private:
  std::vector<Dimension> m_dimensions;
  std::vector<uint64_t> m_stride;
  uint64_t m_npu_count = 1;
};

}  // namespace hfsim
