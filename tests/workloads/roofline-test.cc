// The roofline compute model (TrainingConfig::memory_bytes_per_ns above 0) against hand-worked
// figures: a layer takes the longer of its arithmetic and its memory traffic; a transformer
// block is the sum over its operations, the matrices compute-bound and the elementwise rest
// memory-bound on an A100; the zoo's operations account for every FLOP and parameter.
#include <gtest/gtest.h>

#include "workloads/model-zoo.h"
#include "workloads/training-loop.h"

namespace hfsim {
namespace {

TrainingConfig OneNpu(double peak_tflops, double memory_GBps) {
  TrainingConfig config;
  config.peak_flops_per_ns = peak_tflops * 1e3;
  config.memory_bytes_per_ns = memory_GBps;
  return config;
}

// One layer of 1,000,000 parameters and 1,000 output elements, one sample, 2-byte values: it
// reads 2,000,000 bytes of parameters and 2 x 2,000 of activations, 2,004 ns at 1,000 GB/s.
TEST(Roofline, ALayerTakesTheLongerOfArithmeticAndMemoryTraffic) {
  Layer layer;
  layer.name = "dense";
  layer.params = 1'000'000;
  layer.output_elements_per_sample = 1000;
  const TrainingConfig config = OneNpu(1000, 1000);  // 1e6 FLOP/ns
  layer.forward_flops_per_sample = 1e6;              // 1 ns of arithmetic: memory-bound
  TrainingIteration it = BuildTrainingIteration(Model{"m", {layer}}, config);
  EXPECT_DOUBLE_EQ(it.layers[0].forward_ns, 2004.0);
  EXPECT_DOUBLE_EQ(it.layers[0].input_grad_ns, 2004.0);
  EXPECT_DOUBLE_EQ(it.layers[0].weight_grad_ns, 2004.0);
  layer.forward_flops_per_sample = 1e10;  // 10,000 ns: compute-bound
  it = BuildTrainingIteration(Model{"m", {layer}}, config);
  EXPECT_DOUBLE_EQ(it.layers[0].forward_ns, 10000.0);
  // Without FLOPs (a table lookup) only the activations move: 4,000 bytes.
  layer.forward_flops_per_sample = 0;
  it = BuildTrainingIteration(Model{"m", {layer}}, config);
  EXPECT_DOUBLE_EQ(it.layers[0].forward_ns, 4.0);
  // Efficiency slows both roofs alike, and without a memory bandwidth FLOPs alone count.
  layer.forward_flops_per_sample = 1e6;
  TrainingConfig half = config;
  half.compute_efficiency = 0.5;
  EXPECT_DOUBLE_EQ(BuildTrainingIteration(Model{"m", {layer}}, half).layers[0].forward_ns, 4008.0);
  half.memory_bytes_per_ns = 0;
  EXPECT_DOUBLE_EQ(BuildTrainingIteration(Model{"m", {layer}}, half).layers[0].forward_ns, 2.0);
}

// GPT-2 small's block (s = 1,024, h = 768, ffn 3,072): its operations sum to its 17,716,740,096
// FLOPs and 7,087,872 parameters. They read and write, per sample, Q/K/V 4 s h, attention
// 4 s h, projection 2 s h, MLP in s h + s f and out s f + s h, elementwise 10 s h + 2 s f:
// 22 s h + 4 s f = 29,884,416 elements.
TEST(Roofline, ZooBlockOperationsAccountForEveryFlopAndParameter) {
  const Model gpt2 = *BuildZooModel("gpt2_small");
  const Layer& block = gpt2.layers[1];
  ASSERT_EQ(block.operations.size(), 6u);
  double flops = 0, elements = 0;
  uint64_t params = 0;
  for (const Operation& op : block.operations) {
    flops += op.flops_per_sample;
    elements += op.activation_elements_per_sample;
    params += op.params;
  }
  EXPECT_EQ(flops, 17'716'740'096.0);
  EXPECT_EQ(flops, block.forward_flops_per_sample);
  EXPECT_EQ(params, 7'087'872u);
  EXPECT_EQ(elements, 29'884'416.0);
  // Llama's SwiGLU adds a gate matrix and reads two inputs in its activation function.
  const Model llama = *BuildZooModel("llama3_8b");
  double llama_flops = 0;
  uint64_t llama_params = 0;
  for (const Operation& op : llama.layers[1].operations) {
    llama_flops += op.flops_per_sample;
    llama_params += op.params;
  }
  EXPECT_EQ(llama_flops, llama.layers[1].forward_flops_per_sample);
  EXPECT_EQ(llama_params, llama.layers[1].params);
}

// On an A100 (312 TFLOP/s, 2,039 GB/s: 153 FLOP per byte) every matrix operation of GPT-2
// small's block is compute-bound (the projection, the least intense, does 281 per byte) and the
// elementwise rest is memory-bound: (10 s h + 2 s f) x 2 = 28,311,552 bytes of activations and
// its 9 h + f = 9,984 biases and norm scales (19,968 bytes). So the block takes its FLOPs' time
// plus that traffic's.
TEST(Roofline, GptBlockIsItsMatricesArithmeticPlusItsElementwiseTraffic) {
  const Model gpt2 = *BuildZooModel("gpt2_small");
  const TrainingIteration it = BuildTrainingIteration(gpt2, OneNpu(312, 2039));
  const double expected = 17'716'740'096.0 / 312e3 + (28'311'552.0 + 19'968.0) / 2039;
  EXPECT_NEAR(it.layers[1].forward_ns, expected, 1e-9 * expected);
}

}  // namespace
}  // namespace hfsim
