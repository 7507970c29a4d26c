#include "workloads/training-loop.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

namespace {

double ComputeNs(double flops, const TrainingConfig& config) {
  return flops / (config.peak_flops_per_ns * config.compute_efficiency);
}

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

TrainingIteration BuildTrainingIteration(const Model& model, const TrainingConfig& config) {
  if (config.data_parallel == 0 || config.tensor_parallel == 0 ||
      config.global_batch_samples % config.data_parallel != 0) {
    throw std::invalid_argument("BuildTrainingIteration: batch does not split over replicas");
  }
  const uint64_t samples = config.global_batch_samples / config.data_parallel;
  const double tensor = config.tensor_parallel;
  TrainingIteration iteration;
  iteration.overlap = config.overlap;
  iteration.layers.reserve(model.layers.size());
  for (const Layer& layer : model.layers) {
    LayerWork work;
    work.name = layer.name;
    // Tensor parallelism splits every layer's arithmetic T ways (Megatron shards the matrices;
    // the replicated norms are negligible). Backward = input gradients + weight gradients,
    // each as costly as the forward pass.
    const double forward_flops = layer.forward_flops_per_sample * samples / tensor;
    work.forward_ns = layer.forward_ns.value_or(ComputeNs(forward_flops, config));
    work.input_grad_ns = layer.input_grad_ns.value_or(ComputeNs(forward_flops, config));
    work.weight_grad_ns = layer.params == 0
                              ? layer.weight_grad_ns.value_or(0.0)
                              : layer.weight_grad_ns.value_or(ComputeNs(forward_flops, config));
    if (config.tensor_parallel > 1 && layer.tensor_parallel_all_reduces > 0) {
      const CommRequest activation{
          CollectiveKind::kAllReduce, ParallelGroup::kTensor,
          samples * layer.output_elements_per_sample * config.activation_bytes_per_element,
          layer.tensor_parallel_all_reduces};
      work.forward_comm = activation;
      work.input_grad_comm = activation;
    }
    if (config.data_parallel > 1 && layer.params > 0) {
      work.weight_grad_comm =
          CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kData,
                      CeilDiv(layer.params, config.tensor_parallel) *
                          config.gradient_bytes_per_param,
                      1};
    }
    // Explicit collectives replace the derived ones of their phase; a group of one NPU has
    // nothing to exchange.
    auto explicit_comm = [](const LayerComm& comm, ParallelGroup group) {
      return CommRequest{comm.kind, group, comm.size_bytes, 1};
    };
    if (layer.forward_comm) {
      work.forward_comm.reset();
      if (config.tensor_parallel > 1) work.forward_comm = explicit_comm(*layer.forward_comm, ParallelGroup::kTensor);
    }
    if (layer.input_grad_comm) {
      work.input_grad_comm.reset();
      if (config.tensor_parallel > 1) work.input_grad_comm = explicit_comm(*layer.input_grad_comm, ParallelGroup::kTensor);
    }
    if (layer.weight_grad_comm) {
      work.weight_grad_comm.reset();
      if (config.data_parallel > 1) work.weight_grad_comm = explicit_comm(*layer.weight_grad_comm, ParallelGroup::kData);
    }
    iteration.layers.push_back(std::move(work));
  }
  return iteration;
}

}  // namespace hfsim
