#include "topologies/dimension-links.h"

#include <stdexcept>

namespace hfsim {

DimensionLinks::DimensionLinks(DimensionKind kind, uint32_t size) : m_kind(kind), m_size(size) {
  if (size < 2) throw std::invalid_argument("DimensionLinks: a dimension needs at least 2 peers");
  if (kind == DimensionKind::kClos) {
    throw std::invalid_argument("DimensionLinks: a Clos dimension needs its leaves and spines");
  }
}

DimensionLinks::DimensionLinks(const Dimension& dim) : m_kind(dim.kind), m_size(dim.size) {
  if (dim.size < 2)
    throw std::invalid_argument("DimensionLinks: a dimension needs at least 2 peers");
  if (dim.kind != DimensionKind::kClos) return;
  // The loader's rules (scenario.md): k divides n with at least 2 leaves, 1 <= S <= k, r >= 1.
  if (dim.leaf_npus == 0 || dim.size % dim.leaf_npus != 0 || dim.size / dim.leaf_npus < 2 ||
      dim.spines == 0 || dim.spines > dim.leaf_npus || !(dim.oversubscription >= 1.0)) {
    throw std::invalid_argument("DimensionLinks: a Clos dimension's leaves and spines do not fit");
  }
  m_leaf_npus = dim.leaf_npus;
  m_spines = dim.spines;
  m_spine_fraction = dim.SpineLinkFraction();
}

uint32_t DimensionLinks::LinkIdCount() const {
  switch (m_kind) {
    case DimensionKind::kRing:
      return m_size == 2 ? 2 : 2 * m_size;
    case DimensionKind::kFullyConnected:
      return m_size * m_size;
    case DimensionKind::kSwitch:
      return 2 * m_size;
    case DimensionKind::kClos:
      return 2 * m_size + 2 * (m_size / m_leaf_npus) * m_spines;
  }
  return 0;
}

double DimensionLinks::LinkBandwidthFraction(uint32_t local_link) const {
  if (m_kind == DimensionKind::kClos && local_link >= 2 * m_size) return m_spine_fraction;
  return LinkBandwidthFraction();
}

double DimensionLinks::LinkBandwidthFraction() const {
  switch (m_kind) {
    case DimensionKind::kRing:
      return m_size == 2 ? 1.0 : 0.5;
    case DimensionKind::kFullyConnected:
      return 1.0 / static_cast<double>(m_size - 1);
    case DimensionKind::kSwitch:
    case DimensionKind::kClos:
      return 1.0;
  }
  return 0.0;
}

uint32_t DimensionLinks::Hops(uint32_t src, uint32_t dst) const {
  if (src == dst) return 0;
  switch (m_kind) {
    case DimensionKind::kRing:
      return m_size == 2 ? 1 : RingRoute(src, dst).hops;
    case DimensionKind::kFullyConnected:
      return 1;
    case DimensionKind::kSwitch:
      return 2;
    case DimensionKind::kClos:
      return src / m_leaf_npus == dst / m_leaf_npus ? 2 : 4;
  }
  return 0;
}

DimensionLinks::RingArc DimensionLinks::RingRoute(uint32_t src, uint32_t dst) const {
  const uint32_t forward = (dst + m_size - src) % m_size;  // clockwise distance
  const uint32_t backward = m_size - forward;
  if (forward <= backward) return RingArc{true, src, forward};
  return RingArc{false, src, backward};
}

}  // namespace hfsim
