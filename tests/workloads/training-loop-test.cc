// The training loop: what each layer computes and communicates per NPU, and the timeline that
// plays it forward, against hand-worked numbers.
#include <gtest/gtest.h>

#include "workloads/model-zoo.h"
#include "workloads/training-loop.h"

namespace hfsim {
namespace {

TrainingConfig Config(uint64_t batch, uint32_t data, uint32_t tensor, OverlapMode overlap) {
  TrainingConfig config;
  config.global_batch_samples = batch;
  config.data_parallel = data;
  config.tensor_parallel = tensor;
  config.gradient_bytes_per_param = 2;
  config.activation_bytes_per_element = 2;
  config.peak_flops_per_ns = 100e3;  // 100 TFLOP/s
  config.compute_efficiency = 0.5;
  config.overlap = overlap;
  return config;
}

TEST(TrainingLoop, GptBlockWorkUnderDataAndTensorParallelism) {
  // GPT-2 small (L = 1024), batch 16 over data 4 => 4 samples per replica, tensor 2.
  const Model model = *BuildZooModel("gpt2_small");
  const TrainingIteration it = BuildTrainingIteration(model, Config(16, 4, 2, OverlapMode::kNone));
  ASSERT_EQ(it.layers.size(), model.layers.size());
  const Layer& block = model.layers[1];  // h.0
  const LayerWork& work = it.layers[1];
  // Compute: flops x 4 samples / 2 (tensor) / (100e3 FLOP/ns x 0.5).
  const double forward_ns = block.forward_flops_per_sample * 4 / 2 / 50e3;
  EXPECT_DOUBLE_EQ(work.forward_ns, forward_ns);
  EXPECT_DOUBLE_EQ(work.input_grad_ns, forward_ns);
  EXPECT_DOUBLE_EQ(work.weight_grad_ns, forward_ns);
  // Tensor parallelism: 2 all-reduces of 4 x 1024 x 768 x 2 bytes each way.
  ASSERT_TRUE(work.forward_comm.has_value());
  EXPECT_EQ(*work.forward_comm, (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kTensor,
                                             4u * 1024 * 768 * 2, 2}));
  EXPECT_EQ(work.input_grad_comm, work.forward_comm);
  // Data parallelism: this NPU's half of the block's 7,087,872 gradients, 2 bytes each.
  ASSERT_TRUE(work.weight_grad_comm.has_value());
  EXPECT_EQ(*work.weight_grad_comm,
            (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kData, 7087872u / 2 * 2, 1}));
}

TEST(TrainingLoop, NoCommunicationWithoutParallelism) {
  const TrainingIteration it =
      BuildTrainingIteration(*BuildZooModel("resnet50"), Config(32, 1, 1, OverlapMode::kNone));
  for (const LayerWork& work : it.layers) {
    EXPECT_FALSE(work.forward_comm || work.input_grad_comm || work.weight_grad_comm) << work.name;
  }
}

TEST(TrainingLoop, GivenTimesOverrideFlopsAndParameterFreeLayersHaveNoGradients) {
  Model model;
  Layer timed;
  timed.name = "timed";
  timed.params = 10;
  timed.forward_flops_per_sample = 1e9;
  timed.forward_ns = 5.0;
  timed.weight_grad_ns = 7.0;
  Layer pool;
  pool.name = "pool";
  pool.forward_flops_per_sample = 1e6;
  model.layers = {timed, pool};
  const TrainingIteration it = BuildTrainingIteration(model, Config(2, 2, 1, OverlapMode::kNone));
  EXPECT_EQ(it.layers[0].forward_ns, 5.0);
  EXPECT_DOUBLE_EQ(it.layers[0].input_grad_ns, 1e9 / 50e3);  // not given: from FLOPs
  EXPECT_EQ(it.layers[0].weight_grad_ns, 7.0);
  EXPECT_EQ(it.layers[1].weight_grad_ns, 0.0);
  EXPECT_FALSE(it.layers[1].weight_grad_comm.has_value());
  // 10 params x 2 bytes, odd counts round up per tensor shard.
  EXPECT_EQ(it.layers[0].weight_grad_comm->size_bytes, 20u);
}

TEST(TrainingLoop, StatedCollectivesReplaceDerivedOnesOnTheirPhasesGroup) {
  Layer layer;
  layer.name = "imported";
  layer.params = 10;  // would give a 20-byte data-parallel all-reduce
  layer.output_elements_per_sample = 100;
  layer.tensor_parallel_all_reduces = 2;  // would give 2 tensor-parallel all-reduces
  layer.forward_comm = LayerComm{CollectiveKind::kAllGather, 4096};
  layer.weight_grad_comm = LayerComm{CollectiveKind::kReduceScatter, 1000};
  Model model;
  model.layers = {layer};
  const TrainingIteration it = BuildTrainingIteration(model, Config(2, 2, 2, OverlapMode::kNone));
  EXPECT_EQ(it.layers[0].forward_comm,
            (CommRequest{CollectiveKind::kAllGather, ParallelGroup::kTensor, 4096, 1}));
  // Input gradient: not stated, so still derived: 1 sample x 100 elements x 2 bytes, twice.
  EXPECT_EQ(it.layers[0].input_grad_comm,
            (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kTensor, 200, 2}));
  EXPECT_EQ(it.layers[0].weight_grad_comm,
            (CommRequest{CollectiveKind::kReduceScatter, ParallelGroup::kData, 1000, 1}));
  // A group of one NPU exchanges nothing, stated or not.
  const TrainingIteration alone = BuildTrainingIteration(model, Config(2, 2, 1, OverlapMode::kNone));
  EXPECT_FALSE(alone.layers[0].forward_comm.has_value());
  EXPECT_TRUE(alone.layers[0].weight_grad_comm.has_value());
}

// Full recomputation reruns a transformer block's forward, its two tensor-parallel all-reduces
// included, before the block's input gradients (Megatron-LM's TransformerBlock.
// _checkpointed_forward reruns each layer's forward in the backward); the embedding and the LM
// head are not checkpointed and run once. GPT-2 small as above: 4 samples per replica, tensor 2.
TEST(TrainingLoop, FullRecomputationRerunsTheBlocksForwardAndItsCollectivesOnly) {
  const Model model = *BuildZooModel("gpt2_small");
  TrainingConfig config = Config(16, 4, 2, OverlapMode::kNone);
  config.recompute = Recompute::kFull;
  const TrainingIteration it = BuildTrainingIteration(model, config);
  const uint64_t activation = 4u * 1024 * 768 * 2;
  // h.0: forward 2 all-reduces, input gradients 2 of the recomputed forward + 2 of its own.
  const LayerWork& block = it.layers[1];
  const double forward_ns = model.layers[1].forward_flops_per_sample * 4 / 2 / 50e3;
  EXPECT_DOUBLE_EQ(block.input_grad_ns, 2 * forward_ns);
  EXPECT_EQ(*block.forward_comm,
            (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kTensor, activation, 2}));
  EXPECT_EQ(*block.input_grad_comm,
            (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kTensor, activation, 4}));
  // The embedding (wte+wpe): one all-reduce each way, as without recomputation.
  EXPECT_FALSE(model.layers.front().checkpointed);
  EXPECT_EQ(it.layers.front().input_grad_comm->count, 1u);
  // ln_f carries the tied LM head, 2 x 1,024 x 768 x 50,257 FLOPs per sample: its input
  // gradients cost one forward, not two.
  const Layer& head = model.layers.back();
  EXPECT_FALSE(head.checkpointed);
  EXPECT_DOUBLE_EQ(it.layers.back().input_grad_ns, head.forward_flops_per_sample * 4 / 2 / 50e3);
  // Sequence parallelism: the same count, each an all-gather then a reduce-scatter.
  config.sequence_parallel = true;
  const TrainingIteration sequence = BuildTrainingIteration(model, config);
  EXPECT_EQ(*sequence.layers[1].input_grad_comm,
            (CommRequest{CollectiveKind::kAllReduce, ParallelGroup::kTensor, activation, 4, true}));
  // A custom layer is checkpointed unless it says otherwise.
  Layer custom;
  custom.name = "custom";
  custom.forward_flops_per_sample = 1e9;
  custom.output_elements_per_sample = 100;
  custom.tensor_parallel_all_reduces = 1;
  Model two;
  two.layers = {custom, custom};
  two.layers[1].checkpointed = false;
  config.sequence_parallel = false;
  const TrainingIteration custom_it = BuildTrainingIteration(two, config);
  EXPECT_DOUBLE_EQ(custom_it.layers[0].input_grad_ns, 2 * 1e9 * 4 / 2 / 50e3);
  EXPECT_EQ(custom_it.layers[0].input_grad_comm->count, 2u);
  EXPECT_DOUBLE_EQ(custom_it.layers[1].input_grad_ns, 1e9 * 4 / 2 / 50e3);
  EXPECT_EQ(custom_it.layers[1].input_grad_comm->count, 1u);
}

// A recomputed mixture-of-experts forward dispatches and combines its tokens again: Megatron's
// checkpoint wraps the whole layer, its token dispatcher included.
TEST(TrainingLoop, FullRecomputationRerunsTheExpertAllToAlls) {
  Layer moe;
  moe.name = "moe";
  moe.routed = RoutedExperts{4, 1, 100, 1e6, 16, 8};
  moe.params = 4 * 100;
  Model model;
  model.layers = {moe};
  TrainingConfig config = Config(4, 2, 1, OverlapMode::kNone);
  config.expert_parallel = 2;
  const TrainingIteration plain = BuildTrainingIteration(model, config);
  ASSERT_TRUE(plain.layers[0].input_grad_expert.has_value());
  EXPECT_EQ(plain.layers[0].forward_expert->count, 2u);
  EXPECT_EQ(plain.layers[0].input_grad_expert->count, 2u);
  config.recompute = Recompute::kFull;
  const TrainingIteration full = BuildTrainingIteration(model, config);
  EXPECT_EQ(full.layers[0].forward_expert->count, 2u);
  EXPECT_EQ(full.layers[0].input_grad_expert->count, 4u);
  EXPECT_EQ(full.layers[0].input_grad_expert->size_bytes,
            plain.layers[0].input_grad_expert->size_bytes);
}

LayerWork Work(double forward_ns, double input_grad_ns, double weight_grad_ns) {
  LayerWork work;
  work.name = "l";
  work.forward_ns = forward_ns;
  work.input_grad_ns = input_grad_ns;
  work.weight_grad_ns = weight_grad_ns;
  return work;
}

TEST(TrainingLoop, OverlapHidesGradientsThatFitUnderBackwardCompute) {
  // Three layers, forward 1 each, input-grad 1, weight-grad 1, gradient all-reduce 1 each.
  // Backward order: layer 2 finishes at 3+2 = 5, all-reduce 5..6; layer 1 at 7, 7..8;
  // layer 0 at 9, 9..10. Only the last all-reduce (1 ns) is exposed.
  TrainingIteration it;
  it.overlap = OverlapMode::kBackward;
  for (int i = 0; i < 3; ++i) {
    it.layers.push_back(Work(1, 1, 1));
  }
  const std::vector<LayerCommTimes> comm(3, LayerCommTimes{0, 0, 1});
  const IterationTimeline overlapped = PlayIteration(it, comm);
  EXPECT_DOUBLE_EQ(overlapped.total_ns, 10);
  EXPECT_DOUBLE_EQ(overlapped.ComputeNs(), 9);
  EXPECT_DOUBLE_EQ(overlapped.weight_grad_comm_exposed_ns, 1);
  EXPECT_DOUBLE_EQ(overlapped.weight_grad_comm_ns, 3);
  it.overlap = OverlapMode::kNone;
  const IterationTimeline serial = PlayIteration(it, comm);
  EXPECT_DOUBLE_EQ(serial.total_ns, 12);
  EXPECT_DOUBLE_EQ(serial.ExposedCommNs(), 3);
}

TEST(TrainingLoop, OverlapQueuesGradientsWhenTheNetworkIsTheBottleneck) {
  // Gradient all-reduces of 5 ns each behind 2 ns of backward compute per layer: the channel
  // is busy from 2 (first gradient ready) for 3 x 5 ns, so the iteration ends at 17.
  TrainingIteration it;
  it.overlap = OverlapMode::kBackward;
  for (int i = 0; i < 3; ++i) {
    it.layers.push_back(Work(0, 1, 1));
  }
  const IterationTimeline timeline = PlayIteration(it, std::vector<LayerCommTimes>(3, {0, 0, 5}));
  EXPECT_DOUBLE_EQ(timeline.total_ns, 2 + 15);
  EXPECT_DOUBLE_EQ(timeline.ExposedCommNs(), 17 - 6);
}

}  // namespace
}  // namespace hfsim
