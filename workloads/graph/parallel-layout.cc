#include "workloads/graph/parallel-layout.h"

namespace hfsim {

std::array<uint32_t, kParallelAxes> AxisDegrees(const TrainingConfig& config,
                                                const PipelineLayout& layout) {
  return {config.tensor_parallel, config.context_parallel, config.expert_parallel,
          config.data_parallel / config.expert_parallel, layout.pipeline};
}

std::array<uint64_t, kParallelAxes> AxisStrides(const TrainingConfig& config,
                                                const PipelineLayout& layout) {
  const std::array<uint32_t, kParallelAxes> degrees = AxisDegrees(config, layout);
  std::array<uint64_t, kParallelAxes> stride{};
  uint64_t next = 1;
  for (const ParallelAxis axis : layout.order) {
    stride[static_cast<size_t>(axis)] = next;
    next *= degrees[static_cast<size_t>(axis)];
  }
  return stride;
}

}  // namespace hfsim
