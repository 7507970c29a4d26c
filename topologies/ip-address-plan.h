// How the IP fabric (ip-fabric.h) numbers its nodes and how far its packets travel. Free of ns-3
// so that the scenario loader can refuse, with a JSON path, a fabric the TCP transport cannot
// number or reach.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "topologies/dimension-links.h"
#include "topologies/dimension.h"

namespace hfsim {

/// NPU addresses live in 10.0.0.0/8: each dimension's coordinate gets its own bit field of
/// bit_width(size - 1) bits, dimension 0 in the highest bits. NPUs that agree on dimensions 0..d
/// then share a prefix, so "the first dimension where we differ and the coordinate there", which
/// is all dimension-order routing looks at, is one masked route per (dimension, coordinate).
/// Switches are numbered densely in 11.0.0.0/8 (they are never a destination).
class IpAddressPlan {
 public:
  static constexpr uint32_t kNpuNetwork = 10u << 24;
  static constexpr uint32_t kSwitchNetwork = 11u << 24;
  static constexpr uint32_t kNetworkMask = 0xff000000u;
  static constexpr uint32_t kFieldBits = 24;  ///< bits below the /8

  explicit IpAddressPlan(std::span<const Dimension> dimensions) {
    uint32_t total = 0;
    for (const Dimension& dim : dimensions) {
      m_width.push_back(static_cast<uint32_t>(std::bit_width(dim.size - 1)));
      total += m_width.back();
    }
    m_total_bits = total;
    for (uint32_t width : m_width) {
      total -= width;
      m_shift.push_back(total);
    }
  }

  /// Bits the coordinates need; the plan works when this is at most kFieldBits.
  uint32_t TotalBits() const { return m_total_bits; }
  bool Fits() const { return m_total_bits <= kFieldBits; }

  /// The address (host order) of the NPU at `coordinates` (one per dimension).
  uint32_t NpuAddress(std::span<const uint32_t> coordinates) const {
    uint32_t address = kNpuNetwork;
    for (size_t d = 0; d < coordinates.size(); ++d) address |= coordinates[d] << m_shift[d];
    return address;
  }
  /// Coordinate along dimension d of the NPU with `address`.
  uint32_t Coordinate(uint32_t address, uint32_t d) const {
    return (address >> m_shift[d]) & ((1u << m_width[d]) - 1);
  }
  /// Mask of dimension d's field alone (a switch of dimension d routes on it).
  uint32_t FieldMask(uint32_t d) const {
    return kNetworkMask | (((1u << m_width[d]) - 1) << m_shift[d]);
  }
  /// Mask of the fields of dimensions 0..d (an NPU whose first difference is at d routes on it).
  uint32_t PrefixMask(uint32_t d) const {
    return ~((uint32_t{1} << m_shift[d]) - 1);  // m_shift[d] < 24: the fields after d
  }

 private:
  std::vector<uint32_t> m_width;
  std::vector<uint32_t> m_shift;
  uint32_t m_total_bits = 0;
};

/// Hops of the longest dimension-order route (IP's TTL must cover it): the longest route within
/// each dimension, summed.
inline uint32_t MaxRouteHops(std::span<const Dimension> dimensions) {
  uint32_t hops = 0;
  for (const Dimension& dim : dimensions) {
    const DimensionLinks links(dim);
    uint32_t longest = 0;
    // Every member of a group sees the same shape, so routes from member 0 cover all lengths.
    for (uint32_t peer = 1; peer < dim.size; ++peer) {
      longest = std::max(longest, links.Hops(0, peer));
    }
    hops += longest;
  }
  return hops;
}

}  // namespace hfsim
