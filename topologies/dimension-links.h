// The links inside one group of a dimension and the route between two of its members.
//
// This is the single definition of "which links does a transfer between two peers of a dimension
// use": the analytical pricing of schedules (models/) and the fabric graph (fabric-graph.h) both
// call it, so the engines route alike. It is a value handle on the dimension's DimensionShape
// (dimension-shape.h), which each kind implements in topologies/kinds/ (the local link ids of
// each kind are documented there).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "topologies/dimension-shape.h"
#include "topologies/dimension.h"

namespace hfsim {

class DimensionLinks {
 public:
  /// A dimension of a kind without parameters (every kind but Clos and Torus2D).
  DimensionLinks(DimensionKind kind, uint32_t size);
  /// Throws std::invalid_argument when the dimension's size or parameters do not fit its kind.
  explicit DimensionLinks(const Dimension& dim);

  const DimensionShape& Shape() const { return *m_shape; }
  DimensionKind Kind() const { return m_shape->Kind(); }
  uint32_t Size() const { return m_shape->Size(); }
  /// Number of local link ids (some FullyConnected ids i*n+i are unused).
  uint32_t LinkIdCount() const { return m_link_id_count; }
  /// Fraction of the NPU's per-dimension bandwidth that one of the NPU's links carries.
  double LinkBandwidthFraction() const { return m_npu_fraction; }
  /// The same for any link: on a Clos the leaf-spine links differ.
  double LinkBandwidthFraction(uint32_t local_link) const {
    return m_shape->LinkFraction(local_link);
  }
  /// Links traversed from src to dst (0 when src == dst).
  uint32_t Hops(uint32_t src, uint32_t dst) const { return m_shape->Hops(src, dst); }

  /// Calls visit(link_id) for every link on the route src -> dst, in order. src != dst. `ecmp`
  /// picks the spine of a Clos route across leaves (ecmp mod S); other kinds ignore it.
  template <typename Visit>
  void ForEachLinkOnRoute(uint32_t src, uint32_t dst, uint64_t ecmp, Visit&& visit) const {
    m_shape->Route(src, dst, ecmp).ForEachLink([&](uint32_t local, uint32_t) { visit(local); });
  }
  template <typename Visit>
  void ForEachLinkOnRoute(uint32_t src, uint32_t dst, Visit&& visit) const {
    ForEachLinkOnRoute(src, dst, 0, std::forward<Visit>(visit));
  }

 private:
  std::shared_ptr<const DimensionShape> m_shape;
  uint32_t m_link_id_count;
  double m_npu_fraction;
};

}  // namespace hfsim
