#include "models/cost-model.h"

#include <fmt/format.h>

#include "topologies/dimension-kinds.h"

namespace hfsim {

DimensionPrices LibraPrices(CostClass cost_class) {
  switch (cost_class) {
    case CostClass::kChiplet:
      return {2.0, std::nullopt, std::nullopt};
    case CostClass::kPackage:
      return {4.0, 13.0, std::nullopt};
    case CostClass::kNode:
      return {4.0, 13.0, std::nullopt};
    case CostClass::kPod:
      return {7.8, 18.0, 31.6};
  }
  return {};
}

CostClass DefaultCostClass(uint32_t dimension, uint32_t dimension_count) {
  const uint32_t from_outside = dimension_count - 1 - dimension;
  switch (from_outside) {
    case 0:
      return CostClass::kPod;
    case 1:
      return CostClass::kNode;
    case 2:
      return CostClass::kPackage;
    default:
      return CostClass::kChiplet;
  }
}

UnitPrice UnitPriceOf(DimensionKind kind, const DimensionPrices& prices) {
  Dimension dim;
  dim.kind = kind;
  return UnitPriceOf(dim, prices);
}

UnitPrice UnitPriceOf(const Dimension& dim, const DimensionPrices& prices) {
  // The kind says what one GB/s of an NPU's bandwidth buys, tier by tier (a Ring: a link; a
  // Switch: the link, a switch port and a NIC; a Clos also 1/r GB/s of leaf-spine capacity).
  const CostTiers tiers = MakeShape(dim)->Cost();
  double usd = 0.0;
  for (uint32_t t = 0; t < tiers.count; ++t) {
    const CostTier& tier = tiers.tiers[t];
    if (tier.switch_ports > 0.0 && !prices.switch_usd_per_GBps) {
      return {0.0, fmt::format("a {} dimension needs a switch price, and this one has none",
                               ToString(dim.kind))};
    }
    usd += (tier.links * prices.link_usd_per_GBps +
            tier.switch_ports * prices.switch_usd_per_GBps.value_or(0.0) +
            tier.nics * prices.nic_usd_per_GBps.value_or(0.0)) /
           tier.divisor;
  }
  return {usd, ""};
}

double CostModel::CostUsd(const std::vector<double>& bandwidth_GBps) const {
  double per_npu_usd = 0.0;
  for (size_t d = 0; d < m_unit_usd_per_GBps.size(); ++d) {
    per_npu_usd += m_unit_usd_per_GBps[d] * bandwidth_GBps[d];
  }
  return static_cast<double>(m_npus) * per_npu_usd;
}

}  // namespace hfsim
