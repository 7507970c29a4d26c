#include "models/cost-model.h"

#include <fmt/format.h>

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
  if (dim.kind != DimensionKind::kSwitch && dim.kind != DimensionKind::kClos) {
    return {prices.link_usd_per_GBps, ""};
  }
  if (!prices.switch_usd_per_GBps) {
    return {0.0, fmt::format("a {} dimension needs a switch price, and this one has none",
                             ToString(dim.kind))};
  }
  // A Switch (or a Clos's leaf tier): the NPU's link, a switch port and a NIC per GB/s.
  const double first_tier = prices.link_usd_per_GBps + *prices.switch_usd_per_GBps +
                            prices.nic_usd_per_GBps.value_or(0.0);
  if (dim.kind == DimensionKind::kSwitch) return {first_tier, ""};
  // A Clos adds, per GB/s of the NPU's, 1/r GB/s of leaf-spine capacity: a link and two
  // switch ports (the leaf's up-port and the spine's).
  return {first_tier +
              (prices.link_usd_per_GBps + 2.0 * *prices.switch_usd_per_GBps) / dim.oversubscription,
          ""};
}

double CostModel::CostUsd(const std::vector<double>& bandwidth_GBps) const {
  double per_npu_usd = 0.0;
  for (size_t d = 0; d < m_unit_usd_per_GBps.size(); ++d) {
    per_npu_usd += m_unit_usd_per_GBps[d] * bandwidth_GBps[d];
  }
  return static_cast<double>(m_npus) * per_npu_usd;
}

}  // namespace hfsim
