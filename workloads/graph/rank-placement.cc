#include "workloads/graph/rank-placement.h"

namespace hfsim {

RankPlacement RankPlacement::AlongDimensions(const Topology& topology,
                                             const DimensionPlacement& lists) {
  RankPlacement placement;
  placement.m_along = true;
  placement.m_lists = lists;
  if (lists.tensor_per_dimension.empty()) {
    // Whole dimensions: each index's digits are coordinates along its list, in list order.
    for (const uint32_t d : lists.tensor_dimensions) {
      placement.m_tensor_digits.push_back({topology.Dim(d).size, topology.Stride(d)});
    }
    for (const uint32_t d : lists.data_dimensions) {
      placement.m_data_digits.push_back({topology.Dim(d).size, topology.Stride(d)});
    }
    return placement;
  }
  // Split dimensions: coordinate t_d + T_d q_d along dimension d, dimension 0 fastest in both
  // indices.
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const uint32_t t = lists.tensor_per_dimension[d];
    placement.m_tensor_digits.push_back({t, topology.Stride(d)});
    placement.m_data_digits.push_back({topology.Dim(d).size / t, t * topology.Stride(d)});
  }
  return placement;
}

RankPlacement RankPlacement::Composed(const TrainingConfig& config, const PipelineLayout& layout) {
  RankPlacement placement;
  placement.m_stride = AxisStrides(config, layout);
  placement.m_experts = config.expert_parallel;
  if (!layout.placement.empty()) placement.m_placement = &layout.placement;
  return placement;
}

uint32_t RankPlacement::NpuOf(uint32_t t, uint32_t c, uint32_t d, uint32_t s) const {
  if (m_along) {
    uint64_t npu = 0;
    for (const Digit& digit : m_tensor_digits) {
      npu += t % digit.radix * digit.npu_stride;
      t /= digit.radix;
    }
    for (const Digit& digit : m_data_digits) {
      npu += d % digit.radix * digit.npu_stride;
      d /= digit.radix;
    }
    return static_cast<uint32_t>(npu);
  }
  auto stride_of = [&](ParallelAxis axis) { return m_stride[static_cast<size_t>(axis)]; };
  const auto id = static_cast<uint32_t>(
      t * stride_of(ParallelAxis::kTensor) + c * stride_of(ParallelAxis::kContext) +
      d % m_experts * stride_of(ParallelAxis::kExpert) +
      d / m_experts * stride_of(ParallelAxis::kData) + s * stride_of(ParallelAxis::kPipeline));
  return m_placement ? (*m_placement)[id] : id;
}

}  // namespace hfsim
