// Mixture of experts with expert parallelism ("parallelism": {"expert"}, "routing"), against
// hand-computed truth: the dispatch and combine all-to-alls move capacity factor x top-k x the
// token's hidden state per token, (n - 1)/n of it leaving the rank, twice per pass; routed
// experts' gradients are reduced within the expert-data groups and the rest over the data
// group; the busiest rank's load scales the expert work. Layouts that cannot run are refused
// at their key.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// One MoE layer: 8 experts of 1 Mi parameters, top-2, 1,024 tokens per sample of 512 elements,
// 1 GFLOP per token and expert; `dense` parameters of its own (attention, router). One Switch
// of `npus` NPUs at 100 GB/s, 1 us per hop; one sample per replica; 1 PFLOP/s per NPU.
nlohmann::json MoeScenario(uint32_t npus, uint64_t dense = 0) {
  nlohmann::json layer = {
      {"name", "moe"},
      {"params", dense + 8 * (1 << 20)},
      {"forward_flops_per_sample", 0},
      {"routed", {{"experts", 8}, {"top_k", 2}, {"params_per_expert", 1 << 20},
                  {"forward_flops_per_token", 1e9}, {"tokens_per_sample", 1024},
                  {"token_elements", 512}}}};
  return {{"topology", {{"dimensions", {{{"kind", "Switch"}, {"size", npus},
                                        {"bandwidth_GBps", 100}, {"latency_ns", 1000}}}}}},
          {"npu", {{"peak_TFLOPS", 1000}, {"compute_efficiency", 1.0}}},
          {"workload", {{"training", {{"model", {{"name", "moe"}, {"layers", {layer}}}},
                                      {"global_batch_samples", npus},
                                      {"parallelism", {{"data", npus}}}}}}}};
}

nlohmann::json& Parallelism(nlohmann::json& doc) {
  return doc["workload"]["training"]["parallelism"];
}

// Capacity factor 1.25, top-2, 512 two-byte elements: 2,560 bytes per token, 1,024 tokens:
// 2,621,440 bytes per all-to-all; 4 of them (dispatch and combine, forward and backward), each
// sending 3/4 of its buffer out of the rank on 4 NPUs.
TEST(ExpertParallel, AllToAllMovesCapacityTimesTopKTokensPerToken) {
  nlohmann::json doc = MoeScenario(4);
  Parallelism(doc)["expert"] = 4;
  doc["workload"]["training"]["routing"] = {{"capacity_factor", 1.25}};
  const Scenario scenario = ParseOrDie(doc);
  const Report report = AnalyticalEngine().Run(scenario);
  const double per_token = 1.25 * 2 * 512 * 2;
  const double buffer = per_token * 1024;
  ASSERT_EQ(buffer, 2'621'440.0);
  uint64_t all_to_alls = 0;
  for (const CollectiveReport& c : report.collectives) {
    EXPECT_EQ(c.kind, CollectiveKind::kAllToAll);  // experts all on their own: no gradients
    EXPECT_EQ(c.group, "expert");
    EXPECT_EQ(c.size_bytes, 2'621'440u);
    all_to_alls += c.occurrences;
  }
  EXPECT_EQ(all_to_alls, 4u);
  EXPECT_DOUBLE_EQ(report.dimensions[0].traffic_bytes_per_npu, 4 * 0.75 * buffer);
  // The experts' work on a padded buffer: 1.25 x 2 x 1,024 tokens x 1 GFLOP = 2,560 GFLOP at
  // 1 PFLOP/s forward, and as much again for each backward half.
  EXPECT_DOUBLE_EQ(report.iteration.forward_compute_ns, 2.56e6);
  EXPECT_DOUBLE_EQ(report.iteration.input_grad_compute_ns, 2.56e6);
  // The echo reads back to the same job.
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(scenario))), ScenarioToJson(scenario));
}

// Data 8, expert 4 on 8 NPUs: ranks 0-3 and 4-7 exchange tokens; ranks 0 and 4 (1 and 5, ...)
// hold the same two experts and reduce their 2 x 2 MiB of gradients as a pair; the layer's
// own 1 Mi parameters are all-reduced over all 8. A skew of 2 doubles what the busiest rank
// routes and computes.
TEST(ExpertParallel, ExpertGradientsStayWithinTheirCopies) {
  nlohmann::json doc = MoeScenario(8, 1 << 20);
  Parallelism(doc)["expert"] = 4;
  doc["workload"]["training"]["routing"] = {{"skew", 2}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  std::map<std::string, std::vector<std::pair<CollectiveKind, uint64_t>>> by_group;
  for (const CollectiveReport& c : report.collectives) {
    by_group[c.group].emplace_back(c.kind, c.size_bytes);
  }
  const uint64_t buffer = 2 * 1024 * 2 * 512 * 2;  // skew x tokens x top-k x elements x bytes
  EXPECT_EQ(by_group["expert"],
            (std::vector<std::pair<CollectiveKind, uint64_t>>{{CollectiveKind::kAllToAll, buffer},
                                                              {CollectiveKind::kAllToAll, buffer}}));
  EXPECT_EQ(by_group["expert_data"], (std::vector<std::pair<CollectiveKind, uint64_t>>{
                                         {CollectiveKind::kAllReduce, 2u * (2 << 20)}}));
  EXPECT_EQ(by_group["data"], (std::vector<std::pair<CollectiveKind, uint64_t>>{
                                  {CollectiveKind::kAllReduce, 2u << 20}}));
  // Per NPU: 4 all-to-alls of 3/4 of the buffer, the pair's all-reduce (2 x 1/2 of 4 MiB) and
  // the 8-way one (2 x 7/8 of 2 MiB).
  EXPECT_DOUBLE_EQ(report.dimensions[0].traffic_bytes_per_npu,
                   4 * 0.75 * buffer + 2 * 0.5 * (4 << 20) + 2 * 0.875 * (2 << 20));
  EXPECT_DOUBLE_EQ(report.iteration.forward_compute_ns, 2 * 2 * 1024 * 1e9 / 1e6);
}

TEST(ExpertParallel, LayoutsThatCannotRunAreRefusedAtTheirKey) {
  const std::string at = "workload.training.parallelism";
  nlohmann::json doc = MoeScenario(8);
  Parallelism(doc)["expert"] = 3;
  ExpectLoadError(doc, at + ".expert", "does not divide data (8)");

  doc = MoeScenario(16);
  Parallelism(doc)["expert"] = 16;
  ExpectLoadError(doc, at + ".expert", "does not divide layer \"moe\"'s 8 experts");

  doc = test::BaseTrainingScenario();
  Parallelism(doc) = {{"data", 8}, {"tensor", 4}, {"expert", 2}};
  ExpectLoadError(doc, at + ".expert", "has no mixture-of-experts layers");

  doc = MoeScenario(4);
  doc["workload"]["training"]["routing"] = {{"capacity_factor", 1.0}, {"skew", 1.5}};
  ExpectLoadError(doc, "workload.training.routing.skew", "not both");

  doc = test::BaseTrainingScenario();
  doc["workload"]["training"]["routing"] = {{"skew", 1.5}};
  ExpectLoadError(doc, "workload.training.routing", "no mixture-of-experts layers");

  doc = MoeScenario(4);
  Parallelism(doc)["expert"] = 2;
  Parallelism(doc)["zero_stage"] = 3;
  ExpectLoadError(doc, at + ".zero_stage", "not modelled");

  // 2^24 tokens of 2^24 elements to 8 experts: 2^52 bytes, more than hfsim prices.
  doc = MoeScenario(4);
  doc["workload"]["training"]["model"]["layers"][0]["routed"]["tokens_per_sample"] = 1 << 24;
  doc["workload"]["training"]["model"]["layers"][0]["routed"]["token_elements"] = 1 << 24;
  doc["workload"]["training"]["model"]["layers"][0]["routed"]["top_k"] = 8;
  ExpectLoadError(doc, "workload.training.global_batch_samples", "above the 2^50 hfsim prices");

  doc = MoeScenario(4);
  doc["workload"]["training"]["model"]["layers"][0]["routed"]["params_per_expert"] = 1 << 21;
  ExpectLoadError(doc, "workload.training.model.layers[0].routed.params_per_expert",
                  "more than the layer's params");
}

}  // namespace
}  // namespace hfsim
