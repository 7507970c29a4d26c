// Per-rank memory (workloads/memory-estimate.h, docs/memory.md) against hand-worked figures,
// activation recomputation's compute, the heads a tensor degree must divide, and the refusal of
// a job that does not fit its NPU's memory.
//
// GPT-2 small (12 blocks of h = 768, a = 12 heads, s = 1,024, V = 50,257; 124,439,808
// parameters) with data 8 x tensor 4 and 8 samples per replica; s h = 786,432. Per sample:
//   each block (saved-activations-test.cc has the terms): 10 s h kept whole on every tensor
//     rank (no sequence parallelism) = 7,864,320, 24 s h / 4 = 4,718,592, and FlashAttention's
//     log-sum-exp 4 a s / 4 = 12,288: 12,595,200;
//   the embedding: its token ids 8 s = 8,192 and its dropout mask s h = 786,432: 794,624;
//   ln_f with the tied LM head: its input and the head's 4 s h = 3,145,728 whole, the loss's
//     FP32 softmax 4 s V / 4 = 51,463,168: 54,608,896.
// In all 8 x (12 x 12,595,200 + 794,624 + 54,608,896) = 1,652,367,360 bytes. Weights and
// gradients 124,439,808 / 4 x 2 bytes = 62,219,904 each, Adam 12 bytes per parameter
// 373,319,424.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

nlohmann::json& Training(nlohmann::json& doc) { return doc["workload"]["training"]; }

RankMemory MemoryOf(const nlohmann::json& doc) { return ParseOrDie(doc).training.memory; }

TEST(Memory, GptSmallByHand) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const RankMemory m = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 62'219'904.0);
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 62'219'904.0);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 373'319'424.0);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 1'652'367'360.0);
  EXPECT_DOUBLE_EQ(m.buffers_bytes, 0.0);
  // Selective recomputation drops the core's log-sum-exp: 8 x (12 x 12,582,912 + 794,624 +
  // 54,608,896).
  Training(doc)["recompute"] = "selective";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 1'651'187'712.0);
  // Full recomputation keeps each block's input, 12 x 786,432 x 2 bytes, and the rows it does
  // not recompute (the embedding and ln_f with the head, as Megatron-LM checkpoints transformer
  // layers only) what they keep without it: 8 x (18,874,368 + 794,624 + 54,608,896).
  Training(doc)["recompute"] = "full";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 594'223'104.0);
  // Sequence parallelism splits the replicated part too: 8 x (12 x (34 x 786,432 / 4 + 12,288)
  // + 794,624 / 4 + (3,145,728 + 205,852,672) / 4).
  Training(doc)["recompute"] = "none";
  Training(doc)["parallelism"]["sequence_parallel"] = true;
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 1'062'494'208.0);
}

// An unfused attention core keeps Korthikanti et al.'s 5 a s^2 instead of FlashAttention's
// 4 a s: per block (5 x 12 x 1,024^2 - 4 x 12 x 1,024) / 4 = 15,716,352 more, over 12 blocks
// and 8 samples 1,508,769,792; the block then keeps exactly their s h (10 + 24 / t) + 5 a s^2 / t
// = 28,311,552 (eq. 2 without sequence parallelism). Selective recomputation drops either.
TEST(Memory, FlashAttentionRemovesExactlyTheScores) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const double flash = MemoryOf(doc).activations_bytes;
  Training(doc)["attention"] = "unfused";
  const double unfused = MemoryOf(doc).activations_bytes;
  EXPECT_DOUBLE_EQ(unfused - flash, 1'508'769'792.0);
  EXPECT_DOUBLE_EQ(unfused, 8.0 * (12 * 28'311'552.0 + 794'624.0 + 54'608'896.0));
  Training(doc)["recompute"] = "selective";
  const double selective_unfused = MemoryOf(doc).activations_bytes;
  Training(doc)["attention"] = "flash";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, selective_unfused);
}

// workload.training.precision "fp8" changes exactly (docs/memory.md §3):
//   weights: + 2 bytes (the FP8 copy and its transpose) per parameter of the FP8 GEMMs, per
//     block qkv 768 x 2,304, projection 768 x 768, MLP 2 x 768 x 3,072 = 7,077,888, 12 blocks
//     over tensor 4: 21,233,664 parameters, 42,467,328 bytes;
//   gradients: Megatron's FP32 main gradients, 4 bytes per parameter (as for "bf16" given):
//     124,439,808 / 4 x 4 = 124,439,808;
//   activations: per block the QKV and fc1 inputs in FP8 (-2 s h, kept whole) and, split over
//     4, the projection's FP8 copy (+s h) and fc2's FP8 input (-4 s h): -1,572,864 - 589,824 =
//     -2,162,688, over 12 blocks and 8 samples -207,618,048.
TEST(Memory, Fp8ChangesExactlyTheDocumentedBytes) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const RankMemory plain = MemoryOf(doc);
  Training(doc)["precision"] = "bf16";
  const RankMemory bf16 = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(bf16.weights_bytes, plain.weights_bytes);
  EXPECT_DOUBLE_EQ(bf16.gradients_bytes, 124'439'808.0);
  EXPECT_DOUBLE_EQ(bf16.optimizer_bytes, plain.optimizer_bytes);
  EXPECT_DOUBLE_EQ(bf16.activations_bytes, plain.activations_bytes);
  Training(doc)["precision"] = "fp8";
  const RankMemory fp8 = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(fp8.weights_bytes - bf16.weights_bytes, 42'467'328.0);
  EXPECT_DOUBLE_EQ(fp8.gradients_bytes, bf16.gradients_bytes);
  EXPECT_DOUBLE_EQ(fp8.optimizer_bytes, bf16.optimizer_bytes);
  EXPECT_DOUBLE_EQ(bf16.activations_bytes - fp8.activations_bytes, 207'618'048.0);
  // An explicit gradient_bytes_per_param is the buffer the rank holds.
  Training(doc)["gradient_bytes_per_param"] = 2;
  EXPECT_DOUBLE_EQ(MemoryOf(doc).gradients_bytes, plain.gradients_bytes);
}

// Megatron-LM's own estimate (report_theoretical_memory in
// megatron/training/theoretical_memory_usage.py) for a GPT with sequence parallelism, selective
// recomputation, the distributed optimizer and BF16, pipeline 1:
//   weights and optimizer: (6 + 12 / d) bytes per parameter of the shard (18 without the
//     distributed optimizer; the table of Megatron-LM's docs/source/api-guide/dist_optimizer.md),
//     (6 + 12 / 8) x 124,439,808 / 4 = 233,324,640;
//   activations (compute_activation_memory): [s b h (18 + 4 ffn / h) L + 8 s b + s b h +
//     4 s b h (1 + V / h)] / t with b = 8 samples, ffn = 4h, L = 12:
//     8 x (320,864,256 + 8,192 + 786,432 + 208,998,400) / 4 = 1,061,314,560.
// (Megatron pads the vocabulary to a multiple of 128 x t; hfsim keeps GPT-2's 50,257, so the
// loss term here is the same formula at that V.)
TEST(Memory, MatchesMegatronTheoreticalMemoryForGpt) {
  nlohmann::json doc = test::BaseTrainingScenario();
  Training(doc)["precision"] = "bf16";
  Training(doc)["recompute"] = "selective";
  Training(doc)["parallelism"]["sequence_parallel"] = true;
  Training(doc)["parallelism"]["zero_stage"] = 1;
  const RankMemory m = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 233'324'640.0);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 1'061'314'560.0);
  // Without the distributed optimizer, 18 bytes per parameter: 18 x 31,109,952.
  Training(doc)["parallelism"]["zero_stage"] = 0;
  const RankMemory plain = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(plain.weights_bytes + plain.gradients_bytes + plain.optimizer_bytes,
                   559'979'136.0);
}

TEST(Memory, ZeroShardsOverTheReplicas) {
  nlohmann::json doc = test::BaseTrainingScenario();
  Training(doc)["parallelism"]["zero_stage"] = 1;
  EXPECT_DOUBLE_EQ(MemoryOf(doc).optimizer_bytes, 373'319'424.0 / 8);
  EXPECT_DOUBLE_EQ(MemoryOf(doc).gradients_bytes, 62'219'904.0);
  Training(doc)["parallelism"]["zero_stage"] = 2;
  EXPECT_DOUBLE_EQ(MemoryOf(doc).gradients_bytes, 62'219'904.0 / 8);
  Training(doc)["parallelism"]["zero_stage"] = 3;
  const RankMemory m = MemoryOf(doc);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 62'219'904.0 / 8);
  // The largest layer (the embedding, (50,257 + 1,024) x 768 / 4 parameters) gathered twice.
  EXPECT_DOUBLE_EQ(m.buffers_bytes, 2.0 * (50'257 + 1'024) * 768 / 4 * 2);
}

// Eight layers of 1,000,000 output elements, one sample per micro-batch, 4 stages of 2 layers:
// 4 MB per micro-batch on a stage. 1F1B's first stage holds 4 micro-batches, GPipe all 8.
TEST(Memory, MicroBatchesInFlightFollowTheSchedule) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) {
    std::string name = "l";
    name += std::to_string(i);
    layers.push_back({{"name", name}, {"params", 0},
                      {"output_elements_per_sample", 1'000'000}, {"forward_ns", 10}});
  }
  nlohmann::json doc = {
      {"topology", {{"dimensions", {{{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 50},
                                     {"latency_ns", 100}}}}}},
      {"workload", {{"training", {{"model", {{"name", "eight"}, {"layers", layers}}},
                                  {"global_batch_samples", 8},
                                  {"parallelism", {{"pipeline", 4}, {"micro_batches", 8}}}}}}}};
  RankMemory m = MemoryOf(doc);
  EXPECT_EQ(m.stage, 0u);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 4 * 4e6);
  Training(doc)["parallelism"]["pipeline_schedule"] = "gpipe";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 8 * 4e6);
}

TEST(Memory, AJobThatDoesNotFitIsRefusedNamingTheRank) {
  nlohmann::json doc = test::BaseTrainingScenario();
  doc["npu"] = {{"hbm_GiB", 1}};
  ExpectLoadError(doc, "npu.hbm_GiB", "rank 0 (pipeline stage 0) needs 2.00 GiB");
  doc["npu"]["allow_memory_overflow"] = true;
  EXPECT_TRUE(ParseScenario(doc));
  doc["npu"] = {{"hbm_GiB", 4}};
  const Scenario fits = ParseOrDie(doc);
  EXPECT_EQ(fits.training.hbm_GiB, 4.0);
}

// npu.hbm_bandwidth_GBps turns on the roofline (tests/workloads/roofline-test.cc holds it to
// hand-worked figures): the same job computes longer, never shorter; the key is echoed, and a
// bandwidth below 1 GB/s is refused at its key.
TEST(Memory, HbmBandwidthTurnsOnTheRoofline) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const double flops_only = AnalyticalEngine().Run(ParseOrDie(doc)).iteration.ComputeNs();
  doc["npu"] = {{"hbm_bandwidth_GBps", 2039}};
  const Scenario roofline = ParseOrDie(doc);
  EXPECT_GT(AnalyticalEngine().Run(roofline).iteration.ComputeNs(), flops_only);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(roofline))), ScenarioToJson(roofline));
  doc["npu"] = {{"hbm_bandwidth_GBps", 0.5}};
  ExpectLoadError(doc, "npu.hbm_bandwidth_GBps", "0.5");
}

// Full recomputation runs every block's forward again before its input gradients (not the
// embedding's or the LM head's: Megatron-LM checkpoints transformer layers only); selective
// only the attention core (4 s^2 d of a block's FLOPs).
TEST(Memory, RecomputationAddsItsForwardWork) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const Report none = AnalyticalEngine().Run(ParseOrDie(doc));
  Training(doc)["recompute"] = "full";
  const Report full = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_DOUBLE_EQ(full.iteration.forward_compute_ns, none.iteration.forward_compute_ns);
  const Model gpt = *BuildZooModel("gpt2_small");
  const double flops_per_ns = none.iteration.forward_compute_ns > 0
                                  ? gpt.TotalForwardFlopsPerSample() / none.iteration.forward_compute_ns
                                  : 0.0;
  // 12 blocks of 17,716,740,096 FLOPs each; ln_f's LM head (2 x 1,024 x 768 x 50,257 FLOPs)
  // runs once.
  EXPECT_NEAR(full.iteration.input_grad_compute_ns - none.iteration.input_grad_compute_ns,
              12 * 17'716'740'096.0 / flops_per_ns, 1e-9 * none.iteration.forward_compute_ns);
  Training(doc)["recompute"] = "selective";
  const Report selective = AnalyticalEngine().Run(ParseOrDie(doc));
  // Per block at s = 1,024: attention is 4 x 1,024^2 x 768 of its 17,716,740,096 FLOPs, run
  // again at the rate the forward pass ran.
  const double attention_share = 4.0 * 1024 * 1024 * 768;
  double added = 0.0;
  for (const Layer& layer : gpt.layers) {
    if (layer.attention_flops_per_sample == 0.0) continue;
    EXPECT_EQ(layer.attention_flops_per_sample, attention_share);
    EXPECT_EQ(layer.forward_flops_per_sample, 17'716'740'096.0);
    added += layer.attention_flops_per_sample;
  }
  EXPECT_NEAR(selective.iteration.input_grad_compute_ns - none.iteration.input_grad_compute_ns,
              added / flops_per_ns, 1e-6 * none.iteration.forward_compute_ns);
}

// Measured times are the whole iteration's; with micro-batches each takes its share and the
// recomputation is of the micro-batch's forward. One layer measured at 4,000 ns per pass: full
// recomputation adds one forward, 4,000 ns per iteration, with 1 or 2 micro-batches (before the
// fix, 2 micro-batches lost it). Only the forward measured: input gradients of 0 FLOPs cost 0,
// plus the recomputed forward, 4,000 ns in all (before: 2 x 4,000).
TEST(Memory, RecomputationOfMeasuredLayersPerMicroBatch) {
  nlohmann::json doc = test::BaseTrainingScenario();
  Training(doc)["model"] = nlohmann::json::parse(R"({"name": "measured", "layers": [
    {"name": "a", "params": 10, "forward_ns": 4000, "input_grad_ns": 4000,
     "weight_grad_ns": 4000}]})");
  Training(doc)["parallelism"] = {{"data", 32}};
  Training(doc)["recompute"] = "full";
  for (const int m : {1, 2}) {
    Training(doc)["parallelism"]["micro_batches"] = m;
    const Report r = AnalyticalEngine().Run(ParseOrDie(doc));
    EXPECT_DOUBLE_EQ(r.iteration.forward_compute_ns, 4000.0) << m;
    EXPECT_DOUBLE_EQ(r.iteration.input_grad_compute_ns, 8000.0) << m;
    EXPECT_DOUBLE_EQ(r.iteration.weight_grad_compute_ns, 4000.0) << m;
  }
  Training(doc)["model"]["layers"][0].erase("input_grad_ns");
  const Report forward_only = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_DOUBLE_EQ(forward_only.iteration.input_grad_compute_ns, 4000.0);
}

TEST(Memory, TensorMustDivideTheHeads) {
  nlohmann::json doc = test::BaseTrainingScenario();  // [Ring 4, Switch 8]
  Training(doc)["parallelism"] = {{"tensor_dimensions", {1}}, {"data_dimensions", {0}}};
  ExpectLoadError(doc, "workload.training.parallelism",
                  "tensor 8 does not divide model \"gpt2_small\"'s 12 attention heads; accepted: "
                  "a divisor of 12");
}

}  // namespace
}  // namespace hfsim
