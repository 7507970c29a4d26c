// Context parallelism ("parallelism": {"context"}) against hand-computed truth: ring attention
// on a hand-played timeline (each key/value hop hides behind the block computing before it,
// or shows where it is longer), the bytes each rank puts on the wire per layer ((C - 1) blocks
// forward, 2 (C - 1) + 1 backward), every per-token cost divided by C, gradients reduced over
// data x context ranks, activations kept 1/C per rank. Layouts that cannot run are refused at
// their key.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/memory-estimate.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// One attention layer of `params` parameters: 8 MFLOP per sample forward, half of it the
// attention core's, 100,000 key/value elements per sample. One Switch of `npus` NPUs at 50 GB/s
// and 500 ns per hop; 1 TFLOP/s per NPU (1,000 FLOP/ns); one sample per replica.
nlohmann::json RingScenario(uint32_t npus, uint64_t params = 0, uint64_t kv_elements = 100'000) {
  nlohmann::json layer = {{"name", "attention"},
                          {"params", params},
                          {"forward_flops_per_sample", 8e6},
                          {"attention_flops_per_sample", 4e6},
                          {"kv_elements_per_sample", kv_elements}};
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", npus}, {"bandwidth_GBps", 50}, {"latency_ns", 500}}}}}},
          {"npu", {{"peak_TFLOPS", 1}, {"compute_efficiency", 1.0}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "ring"}, {"layers", {layer}}}},
              {"global_batch_samples", 1},
              {"parallelism", {{"context", npus}}}}}}}};
}

nlohmann::json& Parallelism(nlohmann::json& doc) {
  return doc["workload"]["training"]["parallelism"];
}

// Context 2: each rank computes 4 MFLOP forward (4,000 ns): 2,000 ns of projections and two
// attention blocks of 1,000 ns. Its key/value block is 100,000 elements x 2 bytes / 2 ranks =
// 100,000 bytes, a hop of 2 x 500 + 100,000 / 50 = 3,000 ns.
//   forward:  rest 2,000; block 0 runs while the block goes out, block 1 waits for it:
//             2,000 + max(1,000, 3,000) + 1,000 = 6,000.
//   backward: the block goes out again at once (3,000), block 0 computes (0 - 1,000) and its
//             gradients follow (1,000 - 4,000); block 1 runs 3,000 - 4,000, its gradients go
//             home with its predecessor's (4,000 - 7,000), then the rest (2,000): 9,000.
TEST(ContextParallel, RingAttentionTakesTheHandPlayedTimeline) {
  const Scenario scenario = ParseOrDie(RingScenario(2));
  const Report report = AnalyticalEngine().Run(scenario);
  EXPECT_DOUBLE_EQ(report.iteration.forward_compute_ns, 4000.0);
  EXPECT_DOUBLE_EQ(report.iteration.input_grad_compute_ns, 4000.0);
  EXPECT_DOUBLE_EQ(report.iteration.total_ns, 6000.0 + 9000.0);
  // The reported rank sends one block forward, and backward one block and two of gradients.
  ASSERT_EQ(report.point_to_point_traffic_bytes.size(), 1u);
  EXPECT_DOUBLE_EQ(report.point_to_point_traffic_bytes[0], 4 * 100'000.0);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(scenario))), ScenarioToJson(scenario));
}

// Context 4 with small blocks: 4 x 2,000 / 4 = 2,000 bytes per block, 1,040 ns per hop, longer
// than a block of 250 ns, so every block after the first waits for its hop. Forward: the rest
// (1,000), three hops one after another (3,120), the last block (250): 4,370. Backward: the
// keys and values arrive at 1,040, 2,080, 3,120; blocks run at 0, 1,040, 2,080, 3,120, each
// for 250; the last block's gradients leave at 3,370 and arrive home at 4,410; the rest
// (1,000): 5,410. Bytes per rank: 3 blocks forward, 3 back and 4 of gradients.
TEST(ContextParallel, EveryHopLongerThanABlockShows) {
  const Scenario scenario = ParseOrDie(RingScenario(4, 0, 4000));
  const Report report = AnalyticalEngine().Run(scenario);
  EXPECT_DOUBLE_EQ(report.iteration.forward_compute_ns, 2000.0);
  EXPECT_NEAR(report.iteration.total_ns, 4370.0 + 5410.0, 1e-6);
  EXPECT_DOUBLE_EQ(report.point_to_point_traffic_bytes[0], 10 * 2000.0);
}

// With hops shorter than a block (a fast fabric), ring attention costs the compute and the
// home hop of each backward only.
TEST(ContextParallel, HopsShorterThanABlockHide) {
  nlohmann::json doc = RingScenario(4, 0, 4000);
  doc["topology"]["dimensions"][0]["bandwidth_GBps"] = 1000;
  doc["topology"]["dimensions"][0]["latency_ns"] = 50;
  doc["npu"]["peak_TFLOPS"] = 0.1;  // 100 FLOP/ns: blocks of 2,500 ns
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  const double compute = 2 * 8e6 / 4 / 100;  // forward and input gradients
  const double home = 2 * 50 + 2000.0 / 1000;
  EXPECT_NEAR(report.iteration.total_ns, compute + home, 1e-6);
}

// Llama 3 8B on one Switch of 8 NPUs, `batch` sequences, context `context`.
nlohmann::json Llama8B(uint32_t context, uint32_t batch) {
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", 8}, {"bandwidth_GBps", 100}, {"latency_ns", 1000}}}}}},
          {"workload",
           {{"training",
             {{"model", "llama3_8b"},
              {"global_batch_samples", batch},
              {"parallelism", {{"context", context}}}}}}}};
}

// Each rank computes 1/C of every sequence: Llama 3 8B with context 8 and one sequence does
// 1/8 of the arithmetic of data 8 with eight.
TEST(ContextParallel, EachRankComputesItsShareOfTheTokens) {
  const Report shared = AnalyticalEngine().Run(ParseOrDie(Llama8B(8, 1)));
  const Report replicated = AnalyticalEngine().Run(ParseOrDie(Llama8B(1, 8)));
  // Equal up to rounding: the ring splits the attention core into blocks, summed apart.
  EXPECT_NEAR(shared.iteration.ComputeNs() * 8 / replicated.iteration.ComputeNs(), 1.0, 1e-12);
  // Its activations too, on a rank of the same job.
  const nlohmann::json doc = Llama8B(8, 1);
  const TrainingWorkload with = ParseOrDie(doc).training;
  TrainingConfig without = with.config;
  without.context_parallel = 1;
  const RankMemory alone = EstimateMemory(with.model, without, with.pipeline);
  EXPECT_DOUBLE_EQ(with.memory.activations_bytes * 8, alone.activations_bytes);
  EXPECT_DOUBLE_EQ(with.memory.weights_bytes, alone.weights_bytes);
}

// Context ranks hold the same parameters: context 2 x data 2 all-reduce the layer's 2 MiB of
// gradients over all four ranks, each sending 2 x 3/4 of it.
TEST(ContextParallel, GradientsAreReducedOverDataAndContext) {
  nlohmann::json doc = RingScenario(4, 1 << 20);
  doc["workload"]["training"]["global_batch_samples"] = 2;
  Parallelism(doc) = {{"context", 2}, {"data", 2}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  bool found = false;
  for (const CollectiveReport& c : report.collectives) {
    if (c.group != "data") continue;
    found = true;
    EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
    EXPECT_EQ(c.size_bytes, 2u << 20);
    EXPECT_DOUBLE_EQ(c.dimension_traffic_bytes[0], 2 * 0.75 * (2 << 20));
  }
  EXPECT_TRUE(found);
  // ZeRO shards over the same four ranks: optimizer states of 12 bytes per parameter / 4.
  Parallelism(doc)["zero_stage"] = 1;
  const Scenario sharded = ParseOrDie(doc);
  EXPECT_DOUBLE_EQ(sharded.training.memory.optimizer_bytes, 12.0 * (1 << 20) / 4);
}

// A stage passes on its share of the tokens' activations: two layers of 1,000 output elements
// per sample over context 2 x pipeline 2 ([Switch 2, Switch 2]): 1,000 bytes per micro-batch
// cross the pipeline dimension (two micro-batches), not the whole sample's 2,000.
TEST(ContextParallel, StagesPassOnTheirShareOfTheTokens) {
  nlohmann::json doc = RingScenario(2);
  doc["topology"]["dimensions"].push_back(doc["topology"]["dimensions"][0]);
  auto& layers = doc["workload"]["training"]["model"]["layers"];
  layers[0]["output_elements_per_sample"] = 1000;
  layers.push_back(layers[0]);
  layers[1]["name"] = "attention2";
  doc["workload"]["training"]["global_batch_samples"] = 2;
  Parallelism(doc) = {{"context", 2}, {"pipeline", 2}, {"micro_batches", 2}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  ASSERT_EQ(report.point_to_point_traffic_bytes.size(), 2u);
  EXPECT_DOUBLE_EQ(report.point_to_point_traffic_bytes[1], 2 * 1000.0);
}

TEST(ContextParallel, LayoutsThatCannotRunAreRefusedAtTheirKey) {
  {  // no attention to pass round
    nlohmann::json doc = RingScenario(2);
    doc["workload"]["training"]["model"]["layers"][0].erase("kv_elements_per_sample");
    ExpectLoadError(doc, "workload.training.parallelism.context", "no attention layers");
  }
  {  // measured times cannot be cut into blocks
    nlohmann::json doc = RingScenario(2);
    doc["workload"]["training"]["model"]["layers"][0]["forward_ns"] = 1000;
    ExpectLoadError(doc, "workload.training.parallelism.context", "measured times");
  }
  {  // 8,192 tokens do not cut into 2 x 3 pieces
    nlohmann::json doc = RingScenario(3);
    doc["workload"]["training"]["model"] = "llama3_8b";
    ExpectLoadError(doc, "workload.training.parallelism.context", "2 x 3 equal");
  }
  {  // not the fabric's NPU count
    nlohmann::json doc = RingScenario(4);
    Parallelism(doc) = {{"context", 3}};
    ExpectLoadError(doc, "workload.training.parallelism", "context (3)");
  }
  {  // an order that leaves context out
    nlohmann::json doc = RingScenario(4);
    Parallelism(doc)["order"] = {"tensor", "data"};
    ExpectLoadError(doc, "workload.training.parallelism.order", "leaves out \"context\"");
  }
  {  // keys and values of 2^24 sequences x 2^40 elements: past what hfsim prices (and past 64
     // bits), refused before any is computed
    nlohmann::json doc = RingScenario(2, 0, uint64_t{1} << 40);
    doc["workload"]["training"]["global_batch_samples"] = 1 << 24;
    ExpectLoadError(doc, "workload.training.global_batch_samples", "above the 2^50");
  }
  {  // with experts
    nlohmann::json doc = {
        {"topology",
         {{"dimensions",
           {{{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 1000}}}}}},
        {"workload",
         {{"training",
           {{"model", "mixtral_8x7b"},
            {"global_batch_samples", 2},
            {"parallelism", {{"context", 2}, {"expert", 2}}}}}}}};
    ExpectLoadError(doc, "workload.training.parallelism.context", "not modelled");
  }
}

}  // namespace
}  // namespace hfsim
