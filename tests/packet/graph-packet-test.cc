// Execution graphs on ns-3 (engine "packet") against the analytical engine: on uncongested,
// bandwidth-bound graphs the two agree within 5 % (packets carry headers and queue behind each
// other; the closed form does neither). Groups of part of a dimension and of several
// dimensions, training groups split per rank, a pipeline of sends, and the shipped pipeline x
// tensor x data example; every byte conserved, no protocol error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/scenario/json-text.h"
#include "tests/packet/packet-test-util.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::Dim;

constexpr uint64_t kSize = 16 << 20;  // 16 MiB: bandwidth-bound on these fabrics

// Runs `document` on both engines; returns packet / analytical.
double PacketOverAnalytical(nlohmann::json document, bool verify = true) {
  const Scenario scenario = test::ParseOrDie(document);
  const Report analytical = AnalyticalEngine().Run(scenario);
  RunOptions options;
  options.verify_schedules = verify;
  const Report packet = PacketEngine().Run(scenario, options);
  test::ExpectConserved(packet);
  EXPECT_EQ(packet.collectives.size(), analytical.collectives.size());
  EXPECT_GT(analytical.iteration.total_ns, 0.0);
  const double ratio = packet.iteration.total_ns / analytical.iteration.total_ns;
  std::printf("packet / analytical = %.4f (%s)\n", ratio,
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  return ratio;
}

nlohmann::json GraphScenario(nlohmann::json dims, nlohmann::json communicators, nlohmann::json programs) {
  return {{"topology", {{"dimensions", dims}}},
          {"workload", {{"graph", {{"communicators", communicators}, {"programs", programs}}}}}};
}

nlohmann::json AllReduce(const std::string& comm) {
  return {{"id", 1}, {"type", "collective"}, {"kind", "all_reduce"}, {"size_bytes", kSize},
          {"communicator", comm}};
}

TEST(GraphPacket, PartialGroupsAgreeWithTheAnalyticalEngine) {
  // Two groups of 4 of a FullyConnected 8, side by side; a strided group of 4 while the others
  // compute; 2 x 2 groups across a FullyConnected 4 and a Switch 4.
  const double halves = PacketOverAnalytical(GraphScenario(
      test::Dims(Dim("FullyConnected", 8, 140, 100)),
      {{{"name", "g"}, {"groups", {{0, 1, 2, 3}, {4, 5, 6, 7}}}}},
      {{{"ranks", {0, 1, 2, 3, 4, 5, 6, 7}}, {"nodes", {AllReduce("g")}}}}));
  EXPECT_NEAR(halves, 1.0, 0.05);
  const double strided = PacketOverAnalytical(GraphScenario(
      test::Dims(Dim("FullyConnected", 8, 140, 100)), {{{"name", "g"}, {"groups", {{0, 2, 4, 6}}}}},
      {{{"ranks", {0, 2, 4, 6}}, {"nodes", {AllReduce("g")}}},
       {{"ranks", {1, 3, 5, 7}}, {"nodes", {{{"id", 1}, {"type", "compute"}, {"duration_ns", 10}}}}}}));
  EXPECT_NEAR(strided, 1.0, 0.05);
  nlohmann::json across_groups = nlohmann::json::array();
  for (uint32_t base : {0u, 2u, 8u, 10u}) across_groups.push_back({base, base + 1, base + 4, base + 5});
  nlohmann::json everyone = nlohmann::json::array();
  for (uint32_t r = 0; r < 16; ++r) everyone.push_back(r);
  const double across = PacketOverAnalytical(GraphScenario(
      test::Dims(Dim("FullyConnected", 4, 90, 100), Dim("Switch", 4, 50, 500)),
      {{{"name", "g"}, {"groups", across_groups}}}, {{{"ranks", everyone}, {"nodes", {AllReduce("g")}}}}));
  EXPECT_NEAR(across, 1.0, 0.05);
}

TEST(GraphPacket, TrainingGroupsSplitPerRankAgree) {
  nlohmann::json doc = test::BaseTrainingScenario();  // FC 4 x Switch 8 below, data 8 x tensor 4
  doc["topology"]["dimensions"][0]["kind"] = "FullyConnected";
  doc["workload"]["training"]["global_batch_samples"] = 16;
  doc["workload"]["training"]["model"] = "gpt2_medium";  // 16 heads: tensor 8 splits them
  doc["workload"]["training"]["parallelism"] = {{"data", 4}, {"tensor", 8},
                                                {"tensor_per_dimension", {2, 4}}};
  // Symbolic replay off: 32 NPUs' worth of collectives are slow to replay under sanitizers;
  // the partial-group cases above replay the same code paths.
  EXPECT_NEAR(PacketOverAnalytical(doc, /*verify=*/false), 1.0, 0.05);
}

TEST(GraphPacket, PipelineSendsAgree) {
  // Two stages on a Switch 2, 4 micro-batches of 4 MiB activations each way.
  nlohmann::json stage0 = nlohmann::json::array(), stage1 = nlohmann::json::array();
  for (int m = 0; m < 4; ++m) {
    stage0.push_back({{"id", 2 * m + 1}, {"type", "compute"}, {"duration_ns", 20000}});
    stage0.push_back({{"id", 2 * m + 2}, {"type", "send"}, {"peer", 1}, {"tag", m},
                      {"size_bytes", 4 << 20}, {"deps", {2 * m + 1}}});
    stage1.push_back({{"id", 2 * m + 1}, {"type", "recv"}, {"peer", 0}, {"tag", m},
                      {"size_bytes", 4 << 20}});
    stage1.push_back({{"id", 2 * m + 2}, {"type", "compute"}, {"duration_ns", 30000},
                      {"deps", {2 * m + 1}}});
  }
  const double ratio = PacketOverAnalytical(GraphScenario(
      test::Dims(Dim("Switch", 2, 50, 500)), nlohmann::json::array(),
      {{{"ranks", {0}}, {"nodes", stage0}}, {{"ranks", {1}}, {"nodes", stage1}}}));
  EXPECT_NEAR(ratio, 1.0, 0.05);
}

TEST(GraphPacket, GeneratedPipelineAgrees) {
  // The pipeline generator from the scenario: tensor 2 (FullyConnected) x data 2 (Ring) x
  // pipeline 2 (Switch) on 8 NPUs, 1F1B over 4 micro-batches of one sample per replica. Each
  // of the 4 layers passes on 2 MiB of activations, all-reduces 2 MiB twice across its tensor
  // pair and, once per iteration, 1 MiB of gradients across its data pair. Compute is short
  // (10 us per layer and micro-batch), so the messages and collectives set the pace.
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "block" + std::to_string(i)}, {"params", 1 << 20},
                      {"output_elements_per_sample", 1 << 20}, {"tensor_parallel_all_reduces", 2},
                      {"forward_ns", 40000}, {"input_grad_ns", 40000}, {"weight_grad_ns", 40000}});
  }
  nlohmann::json doc = {
      {"topology", {{"dimensions", {Dim("FullyConnected", 2, 300, 100), Dim("Ring", 2, 50, 500),
                                    Dim("Switch", 2, 25, 1000)}}}},
      {"workload",
       {{"training",
         {{"model", {{"name", "blocks"}, {"layers", layers}}},
          {"global_batch_samples", 8},
          {"parallelism", {{"tensor", 2}, {"data", 2}, {"pipeline", 2}, {"micro_batches", 4}}}}}}}};
  EXPECT_NEAR(PacketOverAnalytical(doc), 1.0, 0.05);
}

// Tensor 2 x data 4 (expert 2) x pipeline 2 on three dimensions, 4 micro-batches: 4
// mixture-of-experts layers of 4 experts, top-2, 1,024 tokens of 1,024 elements per sample,
// measured at 40,000 ns per pass; `layer_flops` and `expert_flops_per_token` split each pass
// between the routed experts and the rest.
nlohmann::json ExpertPipelineJob(double layer_flops, double expert_flops_per_token) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "moe" + std::to_string(i)}, {"params", (1 << 20) + 4 * (1 << 18)},
                      {"forward_flops_per_sample", layer_flops},
                      {"output_elements_per_sample", 1 << 20}, {"tensor_parallel_all_reduces", 2},
                      {"forward_ns", 40000}, {"input_grad_ns", 40000}, {"weight_grad_ns", 40000},
                      {"routed", {{"experts", 4}, {"top_k", 2}, {"params_per_expert", 1 << 18},
                                  {"forward_flops_per_token", expert_flops_per_token},
                                  {"tokens_per_sample", 1024}, {"token_elements", 1024}}}});
  }
  return {{"topology", {{"dimensions", {Dim("FullyConnected", 2, 300, 100),
                                        Dim("FullyConnected", 4, 50, 500),
                                        Dim("Switch", 2, 25, 1000)}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "experts"}, {"layers", layers}}},
              {"global_batch_samples", 16},
              {"parallelism", {{"tensor", 2}, {"data", 4}, {"expert", 2}, {"pipeline", 2},
                               {"micro_batches", 4}}}}}}}};
}

TEST(GraphPacket, PipelineWithExpertParallelismAgrees) {
  // Tensor 2 x data 4 (two FullyConnected dimensions) x pipeline 2 (Switch) on 16 NPUs, the
  // data group split into expert pairs: 4 mixture-of-experts layers of 4 experts, top-2, 1,024 tokens of
  // 1,024 elements per sample. Per layer and micro-batch each rank exchanges 2 MiB with its
  // expert partner four times (dispatch and combine, both passes) beside the tensor
  // all-reduces and the stage-to-stage activations; expert gradients go to the rank holding the
  // same experts, the rest of the layer's to all four replicas.
  const nlohmann::json doc = ExpertPipelineJob(0, 0);
  // A partial Ring group (the pairs on a Ring of 4) is priced as a Ring of 2, an approximation
  // (docs/graph.md §3): FullyConnected pairs are exact.
  EXPECT_NEAR(PacketOverAnalytical(doc), 1.0, 0.05);
}

TEST(GraphPacket, ExpertAllToAllOverlapAgrees) {
  // The same job interleaved (2 chunks per stage) with Megatron's combined 1F1B
  // (overlap.expert_all_to_all): the steady steps' all-to-alls run on their own stream beside
  // the other micro-batch's compute, half of each pass being the routed experts' (2,048 FLOPs
  // per sample besides 2 x 1,024 routed). The packet engine runs the same merged steps.
  nlohmann::json doc = ExpertPipelineJob(2048, 1);
  nlohmann::json& training = doc["workload"]["training"];
  training["parallelism"]["pipeline_schedule"] = "interleaved";
  training["parallelism"]["virtual_stages"] = 2;
  training["overlap"] = {{"expert_all_to_all", true}};
  EXPECT_NEAR(PacketOverAnalytical(doc), 1.0, 0.05);
}

TEST(GraphPacket, PipelineWithContextParallelismAgrees) {
  // Tensor 2 (FullyConnected) x context 2 (FullyConnected) x pipeline 2 (Switch) on 8 NPUs,
  // 1F1B over 4 micro-batches of one sample. Per layer and micro-batch a context pair passes
  // 1 MiB key/value blocks round its ring (one hop forward; backward one hop of keys and values
  // and two of their gradients), beside the tensor all-reduces and the stage-to-stage
  // activations; gradients go to the context partner, which holds the same parameters. Each
  // hop (21 us) hides behind a block (25 us), so no two hops share a link: uncongested. (With
  // hops longer than a block, a backward's key/value and gradient hops overlap on one link,
  // which the packet engine shares and the analytical engine does not: docs/scenario.md §7.7.)
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "block" + std::to_string(i)}, {"params", 1 << 20},
                      {"forward_flops_per_sample", 4e10}, {"attention_flops_per_sample", 2e10},
                      {"kv_elements_per_sample", 1 << 21},
                      {"output_elements_per_sample", 1 << 20}, {"tensor_parallel_all_reduces", 2}});
  }
  nlohmann::json doc = {
      {"topology", {{"dimensions", {Dim("FullyConnected", 2, 300, 100),
                                    Dim("FullyConnected", 2, 50, 500),
                                    Dim("Switch", 2, 25, 1000)}}}},
      {"npu", {{"peak_TFLOPS", 100}, {"compute_efficiency", 1.0}}},
      {"workload",
       {{"training",
         {{"model", {{"name", "attention"}, {"layers", layers}}},
          {"global_batch_samples", 4},
          {"parallelism", {{"tensor", 2}, {"context", 2}, {"pipeline", 2},
                           {"micro_batches", 4}}}}}}}};
  EXPECT_NEAR(PacketOverAnalytical(doc), 1.0, 0.05);
}

TEST(GraphPacket, TheShippedPipelineExampleAgrees) {
  auto doc = LoadJsonFile(std::string(HFSIM_SOURCE_DIR) + "/configs/graph-pipeline-tensor-data.json",
                          "the example");
  ASSERT_TRUE(doc) << doc.Error().ToString();
  EXPECT_NEAR(PacketOverAnalytical(doc.Value()), 1.0, 0.05);
}

TEST(GraphPacket, TimelineShowsWhatEachClassDidOnTheWire) {
  auto doc = LoadJsonFile(std::string(HFSIM_SOURCE_DIR) + "/configs/graph-pipeline-tensor-data.json",
                          "the example");
  ASSERT_TRUE(doc) << doc.Error().ToString();
  const Scenario scenario = test::ParseOrDie(doc.Value());
  const Report report = PacketEngine().Run(scenario, {.timeline = true});
  const std::optional<Timeline>& timeline = report.timeline;
  ASSERT_TRUE(timeline.has_value());
  const std::optional<Timeline> analytical =
      AnalyticalEngine().Run(scenario, {.timeline = true}).timeline;
  ASSERT_TRUE(analytical.has_value());
  // The same classes and node spans (the analytical one adds its priced dimension tracks).
  EXPECT_EQ(timeline->classes.size(), analytical->classes.size());
  size_t node_spans = 0;
  for (const TimelineSpan& span : analytical->spans) node_spans += span.track.rfind("dimension", 0) != 0;
  EXPECT_EQ(timeline->spans.size(), node_spans);
  // Compute spans of the reported rank add up to its compute; the last span ends the run.
  double compute = 0.0, last_end = 0.0;
  for (const TimelineSpan& span : timeline->spans) {
    EXPECT_GE(span.start_ns, 0.0);
    EXPECT_GE(span.duration_ns, 0.0);
    last_end = std::max(last_end, span.start_ns + span.duration_ns);
    if (span.rank_class == 0 && span.category == "compute") compute += span.duration_ns;
  }
  EXPECT_NEAR(compute, report.iteration.ComputeNs(), 1e-6);
  EXPECT_NEAR(last_end, report.iteration.total_ns, 1e-6);
  EXPECT_EQ(timeline->total_ns, report.iteration.total_ns);
}

}  // namespace
}  // namespace hfsim
