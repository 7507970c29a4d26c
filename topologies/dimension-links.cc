#include "topologies/dimension-links.h"

#include <stdexcept>

namespace hfsim {

DimensionLinks::DimensionLinks(DimensionKind kind, uint32_t size) : m_kind(kind), m_size(size) {
  if (size < 2) throw std::invalid_argument("DimensionLinks: a dimension needs at least 2 peers");
}

uint32_t DimensionLinks::LinkIdCount() const {
  switch (m_kind) {
    case DimensionKind::kRing:
      return m_size == 2 ? 2 : 2 * m_size;
    case DimensionKind::kFullyConnected:
      return m_size * m_size;
    case DimensionKind::kSwitch:
      return 2 * m_size;
  }
  return 0;
}

double DimensionLinks::LinkBandwidthFraction() const {
  switch (m_kind) {
    case DimensionKind::kRing:
      return m_size == 2 ? 1.0 : 0.5;
    case DimensionKind::kFullyConnected:
      return 1.0 / static_cast<double>(m_size - 1);
    case DimensionKind::kSwitch:
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
