// The links inside one group of a dimension and the route between two of its members.
//
// This is the single definition of "which links does a transfer between two peers of a dimension
// use": the analytical pricing of schedules (models/) and the fabric graph (fabric-graph.h) both
// call it, so the two engines route alike.
//
// Local link ids, for a group of n peers with local indices 0..n-1:
//   Ring, n >= 3:   link i     = i -> i+1 (clockwise),      i in [0, n)
//                   link n + i = i -> i-1 (counter-clockwise)
//                   each carries half the NPU's bandwidth; a route takes the shorter way round,
//                   clockwise on a tie.  Example n = 4: 0 -> 2 uses links 0 (0->1) and 1 (1->2).
//   Ring, n == 2:   link 0 = 0 -> 1, link 1 = 1 -> 0, each with the NPU's full bandwidth.
//   FullyConnected: link i*n + j = i -> j (i != j), each with 1/(n-1) of the NPU's bandwidth.
//   Switch:         link i = i -> switch (up), link n + j = switch -> j (down), full bandwidth
//   each;
//                   every route is 2 hops: up-link of the source, down-link of the destination.
//   Clos (k NPUs per leaf, L = n / k leaves, S spines):
//                   link i = i -> leaf i/k (up), link n + j = leaf j/k -> j (down), full bandwidth;
//                   link 2n + l*S + s = leaf l -> spine s, link 2n + L*S + l*S + s = spine s ->
//                   leaf l, each with k / (S x r) of the NPU's bandwidth (r: oversubscription).
//                   Within a leaf a route is up, down (2 hops); across leaves up, leaf -> spine,
//                   spine -> leaf, down (4 hops), the spine chosen by the caller's ECMP value
//                   (its remainder modulo S).
#pragma once

#include <cstdint>
#include <utility>

#include "topologies/dimension.h"

namespace hfsim {

class DimensionLinks {
 public:
  /// Every kind but Clos, whose links need its leaves and spines: the constructor below.
  DimensionLinks(DimensionKind kind, uint32_t size);
  explicit DimensionLinks(const Dimension& dim);

  DimensionKind Kind() const { return m_kind; }
  uint32_t Size() const { return m_size; }
  /// Number of local link ids (some FullyConnected ids i*n+i are unused).
  uint32_t LinkIdCount() const;
  /// Fraction of the NPU's per-dimension bandwidth that one link carries (same for all links;
  /// on a Clos, the NPU links').
  double LinkBandwidthFraction() const;
  /// The same for one link: on a Clos the leaf-spine links differ.
  double LinkBandwidthFraction(uint32_t local_link) const;
  /// Clos only: NPUs per leaf and spines (0 otherwise).
  uint32_t LeafNpus() const { return m_leaf_npus; }
  uint32_t Spines() const { return m_spines; }
  /// Links traversed from src to dst (0 when src == dst).
  uint32_t Hops(uint32_t src, uint32_t dst) const;

  /// Calls visit(link_id) for every link on the route src -> dst, in order. src != dst. `ecmp`
  /// picks the spine of a Clos route across leaves (ecmp mod S); other kinds ignore it.
  template <typename Visit>
  void ForEachLinkOnRoute(uint32_t src, uint32_t dst, uint64_t ecmp, Visit&& visit) const;
  template <typename Visit>
  void ForEachLinkOnRoute(uint32_t src, uint32_t dst, Visit&& visit) const {
    ForEachLinkOnRoute(src, dst, 0, std::forward<Visit>(visit));
  }

  /// A Ring route as an arc: `hops` consecutive links starting at `first_link`, all clockwise
  /// (ids first_link.. wrapping within [0,n)) or all counter-clockwise (ids within [n,2n)).
  /// Lets a caller add load to a whole arc at once (difference arrays) instead of hop by hop.
  struct RingArc {
    bool clockwise;
    uint32_t start_peer;  ///< the source
    uint32_t hops;
  };
  RingArc RingRoute(uint32_t src, uint32_t dst) const;

 private:
  DimensionKind m_kind;
  uint32_t m_size;
  uint32_t m_leaf_npus = 0;
  uint32_t m_spines = 0;
  double m_spine_fraction = 0.0;
};

template <typename Visit>
void DimensionLinks::ForEachLinkOnRoute(uint32_t src, uint32_t dst, uint64_t ecmp,
                                        Visit&& visit) const {
  switch (m_kind) {
    case DimensionKind::kRing: {
      if (m_size == 2) {
        visit(src);  // link 0 = 0->1, link 1 = 1->0
        return;
      }
      const RingArc arc = RingRoute(src, dst);
      uint32_t at = src;
      for (uint32_t h = 0; h < arc.hops; ++h) {
        if (arc.clockwise) {
          visit(at);
          at = (at + 1) % m_size;
        } else {
          visit(m_size + at);
          at = (at + m_size - 1) % m_size;
        }
      }
      return;
    }
    case DimensionKind::kFullyConnected:
      visit(src * m_size + dst);
      return;
    case DimensionKind::kSwitch:
      visit(src);
      visit(m_size + dst);
      return;
    case DimensionKind::kClos: {
      visit(src);
      const uint32_t from = src / m_leaf_npus;
      const uint32_t to = dst / m_leaf_npus;
      if (from != to) {
        const uint32_t spine = static_cast<uint32_t>(ecmp % m_spines);
        const uint32_t leaf_links = (m_size / m_leaf_npus) * m_spines;
        visit(2 * m_size + from * m_spines + spine);
        visit(2 * m_size + leaf_links + to * m_spines + spine);
      }
      visit(m_size + dst);
      return;
    }
  }
}

}  // namespace hfsim
