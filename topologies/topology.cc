#include "topologies/topology.h"

#include <stdexcept>

namespace hfsim {

Topology::Topology(std::vector<Dimension> dimensions) : m_dimensions(std::move(dimensions)) {
  if (m_dimensions.empty()) throw std::invalid_argument("Topology: no dimensions");
  m_stride.reserve(m_dimensions.size());
  for (const Dimension& dim : m_dimensions) {
    if (dim.size < 2) throw std::invalid_argument("Topology: dimension size below 2");
    m_stride.push_back(m_npu_count);
    // A wrapped count would make every id and group count silently wrong.
    if (__builtin_mul_overflow(m_npu_count, uint64_t{dim.size}, &m_npu_count)) {
      throw std::invalid_argument("Topology: NPU count exceeds 64 bits");
    }
  }
}

std::vector<uint32_t> Topology::Coordinates(uint64_t npu) const {
  std::vector<uint32_t> coordinates(m_dimensions.size());
  for (uint32_t d = 0; d < DimensionCount(); ++d) coordinates[d] = Coordinate(npu, d);
  return coordinates;
}

uint64_t Topology::NpuId(const std::vector<uint32_t>& coordinates) const {
  uint64_t id = 0;
  for (uint32_t d = 0; d < DimensionCount(); ++d) id += coordinates[d] * m_stride[d];
  return id;
}

uint64_t Topology::GroupBase(uint32_t d, uint64_t group) const {
  // Groups of dimension d enumerate the other coordinates in id order: split the group index
  // into the part below d (low) and the part above d (high), then leave a zero at d.
  const uint64_t low = group % m_stride[d];
  const uint64_t high = group / m_stride[d];
  return low + high * m_stride[d] * m_dimensions[d].size;
}

}  // namespace hfsim
