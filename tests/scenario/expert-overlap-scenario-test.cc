// workload.training.overlap's expert_all_to_all (docs/scenario.md §9.1): Megatron's combined
// 1F1B, where each steady forward step runs merged with the backward step after it so that one
// micro-batch's expert all-to-alls run beside the other's compute. Timed by hand on the
// analytical engine (the all-to-all shorter than the compute beside it: hidden; longer: the
// exchanges set the pace), held equal on the flow engine, and its refusals.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/graph/pipeline-schedule.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;
using test::Ring;

// A mixture-of-experts layer of measured times per micro-batch: forward 4000 ns and input
// gradients 4000 ns, no weight gradients and no parameters (so no gradient collectives). Its
// FLOPs are half the routed experts' (one pre-dispatch FLOP, one expert FLOP per token, one
// token, top-1), so each pass is 2000 ns of pre-dispatch work and 2000 ns of experts. Its
// token exchange moves `token_elements` x 2 bytes per sample.
nlohmann::json MoeLayer(const char* name, uint32_t m, uint64_t token_elements) {
  return {{"name", name},
          {"params", 0},
          {"forward_flops_per_sample", 1},
          {"forward_ns", 4000.0 * m},
          {"input_grad_ns", 4000.0 * m},
          {"weight_grad_ns", 0},
          {"output_elements_per_sample", 1},
          {"routed",
           {{"experts", 2},
            {"top_k", 1},
            {"params_per_expert", 0},
            {"forward_flops_per_token", 1},
            {"tokens_per_sample", 1},
            {"token_elements", token_elements}}}};
}

// That layer on 2 data-parallel ranks forming its expert group (a Ring of 2 at 100 GB/s, no
// latency), 3 micro-batches of one sample per rank, no pipeline (gradient accumulation).
nlohmann::json OneStageJob(uint64_t token_elements) {
  return {{"topology", {{"dimensions", {Ring(2)}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "moe"}, {"layers", {MoeLayer("moe", 3, token_elements)}}}},
              {"global_batch_samples", 6},
              {"parallelism", {{"data", 2}, {"expert", 2}, {"micro_batches", 3}}}}}}}};
}

double Total(const nlohmann::json& doc) {
  return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
}

// One all-to-all of 2 x token_elements bytes over the Ring of 2: half the buffer leaves each
// rank at 100 bytes/ns.
double AllToAllNs(uint64_t token_elements) { return 2.0 * token_elements / 2 / 100; }

TEST(ExpertOverlapScenario, AnAllToAllShorterThanThePairedComputeIsHidden) {
  // a = 1000 ns per all-to-all (100,000 elements).
  const uint64_t elements = 100000;
  const double a = AllToAllNs(elements);
  ASSERT_DOUBLE_EQ(a, 1000.0);
  nlohmann::json doc = OneStageJob(elements);
  // Blocking: each micro-batch's forward (2000 + a + 2000 + a) and backward (the same).
  EXPECT_NEAR(Total(doc), 3 * (8000 + 4 * a), 1e-6);
  // Combined 1F1B: F0 alone, then F1 with B0, F2 with B1, then B2 alone. The lone steps still
  // block: 4000 + 2a each. A merged step from T: the main stream runs F's pre-dispatch
  // (T..T+2000), B's experts (they wait for B's combine gradient, T..T+a on the expert stream:
  // T+2000..T+4000), F's experts (after F's dispatch, T+2000..T+2000+a: T+4000..T+6000) and B's
  // pre-dispatch (after B's dispatch gradient, T+4000..T+4000+a: T+6000..T+8000); F's combine
  // ends at T+6000+a, before that. Each merged step is 8000: 4a hidden.
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_NEAR(report.iteration.total_ns, 2 * (4000 + 2 * a) + 2 * 8000, 1e-6);
  EXPECT_NEAR(3 * (8000 + 4 * a) - report.iteration.total_ns, 2 * 4 * a, 1e-6);
  // The compute and the exchanges' busy time are what they were.
  EXPECT_NEAR(report.iteration.ComputeNs(), 3 * 8000, 1e-6);
}

TEST(ExpertOverlapScenario, AnAllToAllLongerThanThePairedComputeIsHiddenInPart) {
  // a = 3000 ns (300,000 elements): longer than the 2000 ns beside each exchange.
  const uint64_t elements = 300000;
  const double a = AllToAllNs(elements);
  ASSERT_DOUBLE_EQ(a, 3000.0);
  nlohmann::json doc = OneStageJob(elements);
  EXPECT_NEAR(Total(doc), 3 * (8000 + 4 * a), 1e-6);  // 60000
  // A merged step from T: expert stream B's combine gradient T..T+3000, F's dispatch (after F's
  // pre-dispatch, T..T+2000) T+3000..T+6000, B's dispatch gradient (after B's experts,
  // T+3000..T+5000) T+6000..T+9000, F's combine (after F's experts, T+6000..T+8000)
  // T+9000..T+12000; B's pre-dispatch T+9000..T+11000. The step ends with F's combine: 4a =
  // 12000, of which its 8000 of compute is hidden, not the exchanges' excess.
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  const double combined = Total(doc);
  EXPECT_NEAR(combined, 2 * (4000 + 2 * a) + 2 * 4 * a, 1e-6);  // 44000
  EXPECT_NEAR(3 * (8000 + 4 * a) - combined, 2 * 8000, 1e-6);
}

// Two stages, two chunks each (interleaved), four MoE layers: Megatron's layout for the
// overlap with a pipeline. A Ring of 2 (pipeline) by a Ring of 2 (data = expert).
nlohmann::json InterleavedJob() {
  nlohmann::json layers = nlohmann::json::array();
  for (const char* name : {"a", "b", "c", "d"}) layers.push_back(MoeLayer(name, 4, 100000));
  return {{"topology", {{"dimensions", {Ring(2), Ring(2)}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "moe4"}, {"layers", layers}}},
              {"global_batch_samples", 8},
              {"parallelism",
               {{"data", 2},
                {"expert", 2},
                {"pipeline", 2},
                {"micro_batches", 4},
                {"pipeline_schedule", "interleaved"},
                {"virtual_stages", 2}}}}}}}};
}

TEST(ExpertOverlapScenario, AnalyticalAndFlowEnginesAgree) {
  for (const nlohmann::json& base : {OneStageJob(100000), OneStageJob(300000), InterleavedJob()}) {
    nlohmann::json doc = base;
    doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
    const Scenario scenario = ParseOrDie(doc);
    const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
    const double flow = FlowEngine().Run(scenario).iteration.total_ns;
    EXPECT_NEAR(flow, analytical, 1e-6 * analytical);
    // And the overlap saves time on the pipeline too.
    EXPECT_LT(analytical, Total(base));
  }
}

TEST(ExpertOverlapScenario, OneMoreWarmUpForwardAndPairedSteadySteps) {
  // Megatron's get_pp_rank_microbatches: interleaved warm-up (p - s - 1) x 2 + (v - 1) p, plus
  // one with the overlap; no pipeline: 0, plus one (F0 alone, then F(i+1) with B(i)).
  PipelineLayout layout;
  layout.pipeline = 2;
  layout.micro_batches = 4;
  layout.virtual_stages = 2;
  layout.schedule = PipelineSchedule::kInterleaved;
  EXPECT_EQ(WarmupSteps(layout, 0), 4u);
  EXPECT_EQ(WarmupSteps(layout, 0, true), 5u);
  const std::vector<StageStep> steps = StageSchedule(layout, 0, true);
  ASSERT_EQ(steps.size(), 16u);
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(i);
    // Steps 5, 7, 9 are the steady forwards (5 warm-up, 3 forward-backward pairs, 5 cool-down).
    const bool steady_forward = i >= 5 && i < 11 && (i - 5) % 2 == 0;
    EXPECT_EQ(steps[i].paired, steady_forward);
    if (steady_forward) {
      EXPECT_TRUE(steps[i].forward);
      EXPECT_FALSE(steps[i + 1].forward);
    }
  }
  PipelineLayout one;
  one.micro_batches = 3;
  const std::vector<StageStep> accumulate = StageSchedule(one, 0, true);
  ASSERT_EQ(accumulate.size(), 6u);
  EXPECT_TRUE(accumulate[0].forward && !accumulate[0].paired);
  EXPECT_TRUE(accumulate[1].paired && accumulate[1].micro_batch == 1);
  EXPECT_EQ(accumulate[2].micro_batch, 0u);
  EXPECT_TRUE(accumulate[3].paired && accumulate[3].micro_batch == 2);
  EXPECT_TRUE(!accumulate[5].forward && accumulate[5].micro_batch == 2);
}

TEST(ExpertOverlapScenario, TheOverlapIsEchoedAndHoldsOneMoreMicroBatch) {
  nlohmann::json doc = OneStageJob(100000);
  const double alone = ParseOrDie(doc).training.memory.activations_bytes;
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  const Scenario scenario = ParseOrDie(doc);
  // Without a pipeline, micro-batch 1's forward runs before micro-batch 0's backward: two
  // micro-batches' activations are held, not one.
  EXPECT_GT(alone, 0.0);
  EXPECT_DOUBLE_EQ(scenario.training.memory.activations_bytes, 2 * alone);
  EXPECT_TRUE(scenario.training.config.overlap_options.expert_all_to_all);
  EXPECT_EQ(ScenarioToJson(scenario)["workload"]["training"]["overlap"]["expert_all_to_all"],
            true);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(scenario))), ScenarioToJson(scenario));
}

TEST(ExpertOverlapScenario, CombinationsMegatronRefusesAreRefusedAtTheirPath) {
  const std::string path = "workload.training.overlap.expert_all_to_all";
  // Without expert parallelism.
  nlohmann::json doc = OneStageJob(100000);
  doc["workload"]["training"]["parallelism"]["expert"] = 1;
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  ExpectLoadError(doc, path, "expert model parallelism");
  // A pipeline without virtual stages (1F1B).
  doc = InterleavedJob();
  doc["workload"]["training"]["parallelism"]["pipeline_schedule"] = "1f1b";
  doc["workload"]["training"]["parallelism"].erase("virtual_stages");
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  ExpectLoadError(doc, path, "\"interleaved\"");
  // Full recomputation.
  doc = OneStageJob(100000);
  doc["workload"]["training"]["recompute"] = "full";
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  ExpectLoadError(doc, path, "full recomputation");
  // hfsim's own: not with tensor-parallel overlap.
  doc = OneStageJob(100000);
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true},
                                            {"tensor_parallel", true}};
  ExpectLoadError(doc, path, "tensor_parallel");
}

}  // namespace
}  // namespace hfsim
