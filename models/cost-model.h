// What network bandwidth costs: dollars per GB/s of per-NPU bandwidth, per dimension.
//
// LIBRA's model (Won et al.; docs/optimize.md §4, §12): each dimension belongs to a packaging
// class (chiplet, package, node, pod) with prices in $ per GB/s for links, switches and NICs.
// A Ring or FullyConnected dimension pays its link price only; a Switch dimension pays link +
// switch + NIC. The network cost of an allocation is
//
//   cost_usd = NPUs * sum_d unit_usd_per_GBps[d] * B_d        (B_d in GB/s per NPU)
//
// A class without a NIC price (everything below pod) charges 0 for NICs: inside a node NPUs
// reach their switch directly. A class without a switch price (chiplet) cannot price a Switch
// dimension: that is an error, not a silent 0, because a switch is never free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/name-table.h"
#include "topologies/dimension.h"

namespace hfsim {

enum class CostClass { kChiplet, kPackage, kNode, kPod };
/// Scenario spellings (cost.dimensions[d].class).
inline constexpr NameTable<CostClass, 4> kCostClassNames = {{
    {CostClass::kChiplet, "chiplet"},
    {CostClass::kPackage, "package"},
    {CostClass::kNode, "node"},
    {CostClass::kPod, "pod"},
}};
inline std::string_view ToString(CostClass cost_class) {
  return NameIn(kCostClassNames, cost_class);
}

/// Prices of one dimension's hardware, $ per GB/s of per-NPU bandwidth. An absent price means
/// the class has no such part.
struct DimensionPrices {
  double link_usd_per_GBps = 0.0;
  std::optional<double> switch_usd_per_GBps;
  std::optional<double> nic_usd_per_GBps;
};

/// LIBRA's table: chiplet link 2; package link 4, switch 13; node link 4, switch 13;
/// pod link 7.8, switch 18, NIC 31.6.
DimensionPrices LibraPrices(CostClass cost_class);

/// The class a dimension gets when the scenario names none, by position from the outermost:
/// the last dimension is pod, the one before node, then package, and every dimension further in
/// chiplet (LIBRA's 4-D fabric is exactly chiplet, package, node, pod).
CostClass DefaultCostClass(uint32_t dimension, uint32_t dimension_count);

/// $ per GB/s of one dimension (link, or link + switch + NIC for a Switch dimension), or the
/// reason it cannot be priced (a Switch dimension without a switch price).
struct UnitPrice {
  double usd_per_GBps = 0.0;
  std::string error;  ///< empty when priced
};
/// For a kind without parameters (std::invalid_argument for a Clos or Torus2D: the overload below).
UnitPrice UnitPriceOf(DimensionKind kind, const DimensionPrices& prices);
/// The same for a whole dimension, from its kind's cost tiers (DimensionShape::Cost): a Clos's
/// price depends on its oversubscription r (a Switch's unit, plus a link and two switch ports
/// per GB/s of leaf-spine capacity, 1/r of the NPU's).
UnitPrice UnitPriceOf(const Dimension& dim, const DimensionPrices& prices);

/// Network cost of allocations on one fabric.
class CostModel {
 public:
  /// unit_usd_per_GBps[d]: $ per GB/s of dimension d; npus: NPUs in the fabric.
  CostModel(std::vector<double> unit_usd_per_GBps, uint64_t npus)
      : m_unit_usd_per_GBps(std::move(unit_usd_per_GBps)), m_npus(npus) {}

  /// Cost in $ of giving every NPU bandwidth_GBps[d] into each dimension d.
  double CostUsd(const std::vector<double>& bandwidth_GBps) const;
  /// d cost_usd / d B_d: NPUs * unit price, $ per GB/s (the cost is linear).
  double MarginalUsdPerGBps(uint32_t dimension) const {
    return static_cast<double>(m_npus) * m_unit_usd_per_GBps[dimension];
  }
  const std::vector<double>& UnitUsdPerGBps() const { return m_unit_usd_per_GBps; }
  uint64_t Npus() const { return m_npus; }

 private:
  std::vector<double> m_unit_usd_per_GBps;
  uint64_t m_npus;
};

}  // namespace hfsim
