// parallelism.order: the parallel dimensions a rank id is composed of, fastest first (Megatron's
// default is tensor, expert, data, pipeline). Checked against the data x tensor loop over
// dimension lists (the other generator: the same job must cost the same), against the groups
// worked out by hand, and every bad list refused at its key.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// gpt2_small on [Switch 4, FullyConnected 2]: data 4 on the Switch, tensor 2 on the pair.
nlohmann::json DataFirst() {
  return nlohmann::json::parse(R"({
    "topology": {"dimensions": [
      {"kind": "Switch", "size": 4, "bandwidth_GBps": 25, "latency_ns": 500},
      {"kind": "FullyConnected", "size": 2, "bandwidth_GBps": 300, "latency_ns": 100}]},
    "workload": {"training": {
      "model": "gpt2_small", "global_batch_samples": 16,
      "parallelism": {"data": 4, "tensor": 2, "order": ["data", "tensor"]}}}
  })");
}

TEST(ParallelOrder, DataFirstCostsWhatTheDimensionListsCost) {
  nlohmann::json lists = DataFirst();
  lists["workload"]["training"]["parallelism"] = {
      {"data", 4}, {"tensor", 2}, {"data_dimensions", {0}}, {"tensor_dimensions", {1}}};
  const Report by_order = AnalyticalEngine().Run(ParseOrDie(DataFirst()));
  const Report by_lists = AnalyticalEngine().Run(ParseOrDie(lists));
  // The same collectives on the same groups; gradients summed in another order (the layout's
  // generator reduces them after the last backward step, the loop after each layer).
  EXPECT_NEAR(by_order.iteration.total_ns, by_lists.iteration.total_ns,
              1e-12 * by_lists.iteration.total_ns);
  ASSERT_EQ(by_order.dimensions.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_DOUBLE_EQ(by_order.dimensions[d].traffic_bytes_per_npu,
                     by_lists.dimensions[d].traffic_bytes_per_npu)
        << d;
  }
}

TEST(ParallelOrder, GroupsFollowTheOrder) {
  // data fastest: a tensor pair is {r, r + 4}, a data group four consecutive ranks.
  const ExecutionGraph graph = BuildExecutionGraph(ParseOrDie(DataFirst()));
  ASSERT_EQ(graph.communicators.size(), 2u);
  EXPECT_EQ(graph.communicators[0].groups[0], (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(graph.communicators[1].groups[0], (std::vector<uint32_t>{0, 4}));
  // The default order: tensor pairs {0, 1}, data groups {0, 2, 4, 6}.
  nlohmann::json doc = DataFirst();
  doc["workload"]["training"]["parallelism"]["order"] = {"tensor", "data"};
  doc["topology"]["dimensions"] = nlohmann::json::array(
      {{{"kind", "FullyConnected"}, {"size", 2}, {"bandwidth_GBps", 300}, {"latency_ns", 100}},
       {{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 25}, {"latency_ns", 500}}});
  const ExecutionGraph megatron = BuildExecutionGraph(ParseOrDie(doc));
  EXPECT_EQ(megatron.communicators[0].groups[0], (std::vector<uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(megatron.communicators[1].groups[0], (std::vector<uint32_t>{0, 1}));
}

TEST(ParallelOrder, PipelineStagesInnermostStillShareAProgram) {
  // pipeline fastest: stage s holds ranks s, s + 2, ...; each sends to the rank next to it.
  nlohmann::json doc = test::BaseTrainingScenario();  // [Ring 4, Switch 8]
  doc["workload"]["training"]["parallelism"] = {{"tensor", 4}, {"data", 4}, {"pipeline", 2},
                                               {"micro_batches", 4},
                                               {"order", {"pipeline", "tensor", "data"}}};
  const Scenario scenario = ParseOrDie(doc);
  const ExecutionGraph graph = BuildExecutionGraph(scenario);
  ASSERT_EQ(graph.classes.size(), 2u);
  EXPECT_EQ(graph.classes[1].ranks.front(), 1u);
  const Report report = AnalyticalEngine().Run(scenario);
  EXPECT_GT(report.iteration.total_ns, report.iteration.ComputeNs());
  // Echoed back.
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(scenario))), ScenarioToJson(scenario));
}

// An explicit placement that puts rank id t + 2d on NPU d + 4t is the order ["data",
// "tensor"]: the same groups, the same figures.
TEST(ParallelOrder, APlacementMatchingAnOrderCostsTheSame) {
  nlohmann::json placed = DataFirst();
  placed["workload"]["training"]["parallelism"] = {
      {"data", 4}, {"tensor", 2}, {"placement", {0, 4, 1, 5, 2, 6, 3, 7}}};
  const Scenario scenario = ParseOrDie(placed);
  const Report by_placement = AnalyticalEngine().Run(scenario);
  const Report by_order = AnalyticalEngine().Run(ParseOrDie(DataFirst()));
  EXPECT_EQ(by_placement.iteration.total_ns, by_order.iteration.total_ns);
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_EQ(by_placement.dimensions[d].traffic_bytes_per_npu,
              by_order.dimensions[d].traffic_bytes_per_npu);
  }
  EXPECT_EQ(BuildExecutionGraph(scenario).communicators[1].groups[0],
            (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(scenario))), ScenarioToJson(scenario));
}

// On one FullyConnected dimension every NPU is one hop from every other, so where ranks sit
// cannot change a figure. Placing stage 1's tensor ranks in the other order (NPU 3 before 2)
// breaks the i-th-to-i-th pairing of shared programs: every rank gets its own, and the job
// costs what it costs in place.
TEST(ParallelOrder, APlacementThatReordersAStageGivesEveryRankItsProgram) {
  nlohmann::json doc = {
      {"topology", {{"dimensions", {{{"kind", "FullyConnected"}, {"size", 4},
                                      {"bandwidth_GBps", 100}, {"latency_ns", 500}}}}}},
      {"workload", {{"training", {{"model", "gpt2_small"},
                                  {"global_batch_samples", 4},
                                  {"parallelism", {{"tensor", 2}, {"pipeline", 2},
                                                   {"micro_batches", 4}}}}}}}};
  const Scenario in_place = ParseOrDie(doc);
  doc["workload"]["training"]["parallelism"]["placement"] = {0, 1, 3, 2};
  const Scenario swapped = ParseOrDie(doc);
  EXPECT_EQ(BuildExecutionGraph(in_place).classes.size(), 2u);
  EXPECT_EQ(BuildExecutionGraph(swapped).classes.size(), 4u);
  const Report a = AnalyticalEngine().Run(in_place), b = AnalyticalEngine().Run(swapped);
  // Equal up to the order in which a rank's durations are summed.
  EXPECT_NEAR(a.iteration.total_ns, b.iteration.total_ns, 1e-12 * a.iteration.total_ns);
  EXPECT_NEAR(a.iteration.ComputeNs(), b.iteration.ComputeNs(), 1e-12 * a.iteration.ComputeNs());
  EXPECT_DOUBLE_EQ(a.total_traffic_bytes, b.total_traffic_bytes);
}

TEST(ParallelOrder, BadPlacementsAreRefusedAtTheirKey) {
  const std::string at = "workload.training.parallelism.placement";
  nlohmann::json doc = DataFirst();
  auto& parallelism = doc["workload"]["training"]["parallelism"];
  parallelism.erase("order");
  parallelism["placement"] = {0, 1, 2, 3};
  ExpectLoadError(doc, at, "8");
  parallelism["placement"] = {0, 1, 2, 3, 4, 5, 6, 8};
  ExpectLoadError(doc, at + "[7]", "7");
  parallelism["placement"] = {0, 1, 2, 3, 4, 5, 6, 1};
  ExpectLoadError(doc, at + "[7]", "NPU 1 is listed twice (also for rank 1)");
}

TEST(ParallelOrder, BadListsAreRefusedAtTheirKey) {
  const std::string at = "workload.training.parallelism.order";
  nlohmann::json doc = DataFirst();
  doc["workload"]["training"]["parallelism"]["order"] = {"data", "sequence"};
  ExpectLoadError(doc, at + "[1]",
                  "\"tensor\", \"context\", \"expert\", \"data\", \"pipeline\"");
  doc["workload"]["training"]["parallelism"]["order"] = {"data", "data"};
  ExpectLoadError(doc, at + "[1]", "listed twice");
  doc["workload"]["training"]["parallelism"]["order"] = {"data"};
  ExpectLoadError(doc, at, "leaves out \"tensor\", whose degree is 2");
}

}  // namespace
}  // namespace hfsim
