// Per-rank memory (workloads/memory-estimate.h) against hand-worked figures, activation
// recomputation's compute, the heads a tensor degree must divide, and the refusal of a job
// that does not fit its NPU's memory.
//
// GPT-2 small (12 blocks of d = 768, 12 heads, s = 1,024; 124,439,808 parameters) with data 8 x
// tensor 4 and 8 samples per replica. Per block and sample, Korthikanti et al. 2022's
// s h (10 + 24 / t) + 5 a s^2 / t = 16 x 786,432 + 5 x 12 x 1,048,576 / 4 = 12,582,912 +
// 15,728,640 = 28,311,552 bytes; the embedding and final-norm rows keep their output,
// 786,432 x 2 bytes / 4 = 393,216 each. In all 8 x (12 x 28,311,552 + 2 x 393,216) =
// 2,724,200,448 bytes. Weights and gradients 124,439,808 / 4 x 2 bytes = 62,219,904 each, Adam
// 12 bytes per parameter 373,319,424.
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
  EXPECT_DOUBLE_EQ(m.activations_bytes, 2'724'200'448.0);
  EXPECT_DOUBLE_EQ(m.buffers_bytes, 0.0);
  // Selective recomputation keeps no attention core: 8 x (12 x 12,582,912 + 786,432).
  Training(doc)["recompute"] = "selective";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 1'214'251'008.0);
  // Full recomputation keeps each row's input: 14 x 786,432 x 2 bytes x 8 samples.
  Training(doc)["recompute"] = "full";
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 176'160'768.0);
  // Sequence parallelism splits all 34 s h: 8 x (12 x (8.5 x 786,432 + 15,728,640) + 786,432).
  Training(doc)["recompute"] = "none";
  Training(doc)["parallelism"]["sequence_parallel"] = true;
  EXPECT_DOUBLE_EQ(MemoryOf(doc).activations_bytes, 8.0 * (12 * 22'413'312.0 + 786'432.0));
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
  doc["npu"] = {{"hbm_GiB", 2}};
  ExpectLoadError(doc, "npu.hbm_GiB", "rank 0 (pipeline stage 0) needs 3.00 GiB");
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

// Full recomputation runs every forward again before its input gradients; selective only the
// attention core (4 s^2 d of a block's FLOPs).
TEST(Memory, RecomputationAddsItsForwardWork) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const Report none = AnalyticalEngine().Run(ParseOrDie(doc));
  Training(doc)["recompute"] = "full";
  const Report full = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_DOUBLE_EQ(full.iteration.forward_compute_ns, none.iteration.forward_compute_ns);
  EXPECT_NEAR(full.iteration.input_grad_compute_ns,
              none.iteration.input_grad_compute_ns + none.iteration.forward_compute_ns,
              1e-9 * none.iteration.forward_compute_ns);
  Training(doc)["recompute"] = "selective";
  const Report selective = AnalyticalEngine().Run(ParseOrDie(doc));
  // Per block at s = 1,024: attention is 4 x 1,024^2 x 768 of its 17,716,740,096 FLOPs, run
  // again at the rate the forward pass ran.
  const double attention_share = 4.0 * 1024 * 1024 * 768;
  const Model gpt = *BuildZooModel("gpt2_small");
  double added = 0.0;
  for (const Layer& layer : gpt.layers) {
    if (layer.attention_flops_per_sample == 0.0) continue;
    EXPECT_EQ(layer.attention_flops_per_sample, attention_share);
    added += layer.attention_flops_per_sample;
  }
  const double flops_per_ns = none.iteration.forward_compute_ns > 0
                                  ? gpt.TotalForwardFlopsPerSample() / none.iteration.forward_compute_ns
                                  : 0.0;
  EXPECT_NEAR(selective.iteration.input_grad_compute_ns - none.iteration.input_grad_compute_ns,
              added / flops_per_ns, 1e-6 * none.iteration.forward_compute_ns);
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
