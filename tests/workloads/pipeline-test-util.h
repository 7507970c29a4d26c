// Small models and configs for the pipeline generator's tests.
#pragma once

#include <string>

#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim::test {

/// `layers` identical layers with measured times per iteration: forward `forward_ns`, backward
/// `backward_ns` (half input gradients, half weight gradients).
inline Model UniformModel(uint32_t layers, double forward_ns, double backward_ns,
                          uint64_t output_elements, uint64_t params = 0) {
  Model model;
  model.name = "uniform";
  for (uint32_t i = 0; i < layers; ++i) {
    Layer layer;
    layer.name = "l";
    layer.name += std::to_string(i);
    layer.params = params;
    layer.output_elements_per_sample = output_elements;
    layer.forward_ns = forward_ns;
    layer.input_grad_ns = backward_ns / 2;
    layer.weight_grad_ns = backward_ns / 2;
    model.layers.push_back(layer);
  }
  return model;
}

inline TrainingConfig PipelineConfig(uint32_t tensor, uint32_t data, uint64_t batch) {
  TrainingConfig config;
  config.tensor_parallel = tensor;
  config.data_parallel = data;
  config.global_batch_samples = batch;
  config.peak_flops_per_ns = 1000.0;
  return config;
}

}  // namespace hfsim::test
