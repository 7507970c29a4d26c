#include "workloads/graph/training-communicators.h"

#include <algorithm>

namespace hfsim {

namespace {

Communicator CommunicatorAlong(std::string name, const std::vector<uint32_t>& dimensions) {
  Communicator comm;
  comm.name = std::move(name);
  comm.dimensions = dimensions;
  return comm;
}

}  // namespace

std::vector<Communicator> TrainingCommunicators(const RankPlacement& placement,
                                                const TrainingConfig& config, uint32_t pipeline) {
  std::vector<Communicator> comms;
  if (placement.WholeDimensions()) {
    comms.push_back(CommunicatorAlong("data", placement.Lists()->data_dimensions));
    comms.push_back(CommunicatorAlong("tensor", placement.Lists()->tensor_dimensions));
    return comms;
  }
  // The expert ones only with expert parallelism. The data index is d = e + E d': e picks the
  // rank's experts (by default faster, as Megatron-core's expert groups are consecutive data
  // ranks), d' its copy of them.
  const uint32_t tensor = config.tensor_parallel, data = config.data_parallel;
  const uint32_t context = config.context_parallel, experts = config.expert_parallel;
  for (const char* name : {"data", "tensor", "expert", "expert_data"}) {
    if (comms.size() == 2 && experts == 1) break;
    comms.emplace_back().name = name;
  }
  auto npu = [&](uint32_t t, uint32_t c, uint32_t d, uint32_t s) {
    return placement.NpuOf(t, c, d, s);
  };
  for (uint32_t s = 0; s < pipeline; ++s) {
    for (uint32_t t = 0; t < tensor; ++t) {
      auto& group = comms[0].groups.emplace_back();
      for (uint32_t c = 0; c < context; ++c) {
        for (uint32_t d = 0; d < data; ++d) group.push_back(npu(t, c, d, s));
      }
    }
    for (uint32_t c = 0; c < context; ++c) {
      for (uint32_t d = 0; d < data; ++d) {
        auto& group = comms[1].groups.emplace_back();
        for (uint32_t t = 0; t < tensor; ++t) group.push_back(npu(t, c, d, s));
      }
    }
    if (experts == 1) continue;  // and context is 1
    for (uint32_t t = 0; t < tensor; ++t) {
      for (uint32_t copy = 0; copy < data / experts; ++copy) {
        auto& group = comms[2].groups.emplace_back();
        for (uint32_t e = 0; e < experts; ++e) group.push_back(npu(t, 0, e + experts * copy, s));
      }
      for (uint32_t e = 0; e < experts; ++e) {
        auto& group = comms[3].groups.emplace_back();
        for (uint32_t copy = 0; copy < data / experts; ++copy) {
          group.push_back(npu(t, 0, e + experts * copy, s));
        }
      }
    }
  }
  for (Communicator& comm : comms) {
    for (auto& group : comm.groups) std::sort(group.begin(), group.end());
  }
  return comms;
}

}  // namespace hfsim
