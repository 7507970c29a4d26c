#include "topologies/dimension-links.h"

#include "topologies/dimension-kinds.h"

namespace hfsim {

namespace {

Dimension WithoutParameters(DimensionKind kind, uint32_t size) {
  Dimension dim;
  dim.kind = kind;
  dim.size = size;
  return dim;
}

}  // namespace

DimensionLinks::DimensionLinks(DimensionKind kind, uint32_t size)
    : DimensionLinks(WithoutParameters(kind, size)) {}

DimensionLinks::DimensionLinks(const Dimension& dim)
    : m_shape(MakeShape(dim)),
      m_link_id_count(m_shape->LinkIdCount()),
      m_npu_fraction(m_shape->NpuLinkFraction()) {}

}  // namespace hfsim
