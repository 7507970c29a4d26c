// Where each rank of a training job runs. A rank is named by its indices along the parallel
// axes: tensor t, context c, data d (d = e + E d' under expert parallelism: its expert rank e and
// its copy d' of the experts) and pipeline stage s. Two ways to place them:
//   - along the fabric's dimensions, as the data x tensor loop (LIBRA) does: the tensor group on
//     `tensor_dimensions`, the data group on `data_dimensions`, whole dimensions each; or, with
//     `tensor_per_dimension`, a share of every dimension each, the tensor index varying fastest
//     within a dimension (Megatron's order inside it: coordinate = t_d + T_d q_d);
//   - composed from the axes: rank id = t + T (c + C (e + E (d' + D' s))) in Megatron's default
//     order, or the axes in PipelineLayout::order (the first fastest); an explicit
//     PipelineLayout::placement then moves rank id r to NPU placement[r].
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "topologies/topology.h"
#include "workloads/graph/parallel-layout.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// Ranks placed along the fabric's dimensions (parallelism.data_dimensions, tensor_dimensions,
/// tensor_per_dimension in scenarios).
struct DimensionPlacement {
  std::vector<uint32_t> data_dimensions;
  std::vector<uint32_t> tensor_dimensions;
  /// Empty (every dimension carries one kind of parallelism, as the lists say), or per
  /// dimension the tensor group's NPUs along it, the data group getting size / that.
  std::vector<uint32_t> tensor_per_dimension;
};

class RankPlacement {
 public:
  /// Along the fabric's dimensions; no pipeline, context or experts.
  static RankPlacement AlongDimensions(const Topology& topology, const DimensionPlacement& lists);
  /// Composed from the parallel axes; `layout` must outlive the placement (its placement list
  /// is read, not copied).
  static RankPlacement Composed(const TrainingConfig& config, const PipelineLayout& layout);

  /// The NPU of rank (t, c, d, s).
  uint32_t NpuOf(uint32_t t, uint32_t c, uint32_t d, uint32_t s) const;
  /// The dimension lists, when the ranks are placed along them (else null).
  const DimensionPlacement* Lists() const { return m_along ? &m_lists : nullptr; }
  /// Every group is a set of whole dimensions: the dimension lists without a split.
  bool WholeDimensions() const { return m_along && m_lists.tensor_per_dimension.empty(); }

 private:
  RankPlacement() = default;

  // Along dimensions: a tensor (data) index is a mixed-radix number whose digits step the NPU
  // id by their stride.
  struct Digit {
    uint32_t radix;
    uint64_t npu_stride;
  };
  bool m_along = false;
  DimensionPlacement m_lists;
  std::vector<Digit> m_tensor_digits, m_data_digits;
  // Composed: each axis's stride in a rank id, and the explicit placement.
  std::array<uint64_t, kParallelAxes> m_stride{};
  uint32_t m_experts = 1;
  const std::vector<uint32_t>* m_placement = nullptr;
};

}  // namespace hfsim
