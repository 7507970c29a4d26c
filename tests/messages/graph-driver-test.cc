// The execution graph run message by message (sim/messages/graph-driver.h) against the
// analytical engine's closed form, on a fake network that moves every message exactly as the
// analytical profile prices it (DimensionChannels) and with one chunk, so the two must agree to
// rounding: a data x tensor training job in both overlap modes (PlayIteration's timeline),
// groups of part of a dimension and of several dimensions, groups split per rank in a training
// job, programs waiting on different ranks, collectives in different orders, sends by their
// route, and a pipeline of sends between stages. Conservation and the executor's symbolic
// replay run throughout.
#include "sim/messages/graph-driver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/messages/message-mux.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/scenario-graph.h"
#include "tests/messages/executor-test-util.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ParseOrDie;

constexpr double kS = 4.0 * (1 << 20);  // 4 MiB

struct FakeRun {
  double total_ns = 0.0;
  IterationTimeline breakdown;
  uint32_t executor_collectives = 0;
  uint64_t p2p_bytes = 0;
};

// The scenario's graph on the fake network, verified; fails the test on any protocol error.
FakeRun RunOnFakeNetwork(const Scenario& scenario) {
  auto compiled = GraphPricing::Compile(scenario, BuildExecutionGraph(scenario), "workload");
  EXPECT_TRUE(compiled) << (compiled ? "" : compiled.Error().ToString());
  if (!compiled) return {};
  const Topology topology(scenario.dimensions);
  EventLoop clock;
  test::FakeTransportOptions options;
  options.channel = test::DimensionChannels(topology);
  test::FakeTransport transport(clock, options);
  MessageMux mux(transport);
  CollectiveExecutor executor(topology, scenario.communication, clock, mux.Channel(0),
                              {.verify = true});
  GraphDriver driver(topology, compiled.Value().Graph(), executor, mux.Channel(1), clock,
                     scenario.communication.endpoint_delay_ns);
  driver.Start();
  clock.Run();
  EXPECT_TRUE(driver.Finished());
  for (const std::string& problem : driver.CheckComplete()) ADD_FAILURE() << problem;
  EXPECT_TRUE(executor.CheckComplete());
  for (const std::string& error : executor.Errors()) ADD_FAILURE() << error;
  const CollectiveStats totals = executor.Totals();
  EXPECT_EQ(totals.bytes_delivered, totals.bytes_scheduled);
  EXPECT_EQ(totals.reductions_performed, totals.reductions_scheduled);
  EXPECT_EQ(driver.PointToPointBytesDelivered(), driver.PointToPointBytesPlanned());
  EXPECT_EQ(driver.PointToPointBytesSent(), driver.PointToPointBytesPlanned());
  FakeRun run;
  run.total_ns = driver.TotalNs();
  run.breakdown = driver.Breakdown(compiled.Value().ReportedClass());
  run.executor_collectives = executor.CollectiveCount();
  run.p2p_bytes = driver.PointToPointBytesSent();
  return run;
}

void ExpectClose(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::abs(expected))) << what;
}

// Both engines on one scenario document (one chunk).
void ExpectEnginesAgree(nlohmann::json document) {
  document["communication"]["chunks"] = 1;
  const Scenario scenario = ParseOrDie(document);
  const Report analytical = AnalyticalEngine().Run(scenario);
  const FakeRun packet = RunOnFakeNetwork(scenario);
  EXPECT_GT(analytical.iteration.total_ns, 0.0);
  ExpectClose(packet.total_ns, analytical.iteration.total_ns, "total");
}

nlohmann::json Dim(const std::string& kind, int size, double bandwidth_GBps, double latency_ns) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", bandwidth_GBps}, {"latency_ns", latency_ns}};
}

nlohmann::json ProgramsScenario(nlohmann::json dims, nlohmann::json comms, nlohmann::json programs) {
  nlohmann::json communicators = nlohmann::json::array();
  for (auto& [name, groups] : comms.items()) communicators.push_back({{"name", name}, {"groups", groups}});
  return {{"topology", {{"dimensions", dims}}},
          {"workload", {{"graph", {{"communicators", communicators}, {"programs", programs}}}}}};
}

nlohmann::json Collective(int id, const std::string& kind, const std::string& comm,
                          std::vector<int> deps = {}) {
  return {{"id", id}, {"type", "collective"}, {"kind", kind},
          {"size_bytes", static_cast<uint64_t>(kS)}, {"communicator", comm}, {"deps", deps}};
}

nlohmann::json ComputeFor(int id, double ns, std::vector<int> deps = {}) {
  return {{"id", id}, {"type", "compute"}, {"duration_ns", ns}, {"deps", deps}};
}

TEST(GraphDriver, TrainingJobMatchesTheAnalyticalTimelineInBothOverlapModes) {
  for (const char* overlap : {"none", "backward"}) {
    SCOPED_TRACE(overlap);
    nlohmann::json doc = test::BaseTrainingScenario();  // Ring 4 x Switch 8, tensor 4 x data 8
    doc["workload"]["training"]["overlap"] = overlap;
    doc["communication"]["chunks"] = 1;
    doc["communication"]["endpoint_delay_ns"] = 30;
    const Scenario scenario = ParseOrDie(doc);
    const IterationTimeline expected = AnalyticalEngine().Run(scenario).iteration;
    const FakeRun run = RunOnFakeNetwork(scenario);
    const IterationTimeline& got = run.breakdown;
    ExpectClose(got.total_ns, expected.total_ns, "total");
    ExpectClose(got.forward_compute_ns, expected.forward_compute_ns, "forward compute");
    ExpectClose(got.input_grad_compute_ns, expected.input_grad_compute_ns, "input-grad compute");
    ExpectClose(got.weight_grad_compute_ns, expected.weight_grad_compute_ns, "weight-grad compute");
    ExpectClose(got.forward_comm_ns, expected.forward_comm_ns, "forward comm");
    ExpectClose(got.input_grad_comm_ns, expected.input_grad_comm_ns, "input-grad comm");
    ExpectClose(got.weight_grad_comm_ns, expected.weight_grad_comm_ns, "weight-grad comm");
    ExpectClose(got.weight_grad_comm_exposed_ns, expected.weight_grad_comm_exposed_ns, "exposed");
    // Every collective of the job's program serves all its groups at once: one executor
    // collective per collective node repetition, not one per group.
    const ExecutionGraph graph = BuildExecutionGraph(scenario);
    uint32_t repetitions = 0;
    for (const GraphNode& node : graph.classes[0].program) {
      if (node.kind == GraphNodeKind::kCollective) repetitions += node.count;
    }
    EXPECT_EQ(run.executor_collectives, repetitions);
  }
}

TEST(GraphDriver, TrainingGroupsSplitPerRankMatchTheAnalyticalEngine) {
  nlohmann::json doc = test::BaseTrainingScenario();
  doc["topology"]["dimensions"][0]["kind"] = "FullyConnected";
  doc["workload"]["training"]["parallelism"] = {{"tensor_per_dimension", {2, 2}}};
  ExpectEnginesAgree(doc);
}

TEST(GraphDriver, PartialAndMultiDimensionGroupsMatchTheAnalyticalEngine) {
  // 4 of 8 on a FullyConnected dimension (contiguous and strided), and 2 x 2 across a
  // FullyConnected 4 and a Switch 4; every kind.
  for (const char* kind : {"all_reduce", "reduce_scatter", "all_gather", "all_to_all"}) {
    SCOPED_TRACE(kind);
    ExpectEnginesAgree(ProgramsScenario(
        nlohmann::json::array({Dim("FullyConnected", 8, 140, 50)}), {{"g", {{0, 1, 2, 3}, {4, 5, 6, 7}}}},
        {{{"ranks", {0, 1, 2, 3, 4, 5, 6, 7}}, {"nodes", {Collective(1, kind, "g")}}}}));
    ExpectEnginesAgree(ProgramsScenario(
        nlohmann::json::array({Dim("FullyConnected", 8, 140, 50)}), {{"g", {{0, 2, 4, 6}}}},
        {{{"ranks", {0, 2, 4, 6}}, {"nodes", {Collective(1, kind, "g")}}},
         {{"ranks", {1, 3, 5, 7}}, {"nodes", {ComputeFor(1, 10)}}}}));
    ExpectEnginesAgree(ProgramsScenario(
        {Dim("FullyConnected", 4, 90, 50), Dim("Switch", 4, 50, 500)},
        {{"g", {{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}}}},
        {{{"ranks", nlohmann::json::array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})},
          {"nodes", {Collective(1, kind, "g")}}}}));
  }
}

TEST(GraphDriver, GroupsOfDifferentShapesAndRanksWaitingApartMatch) {
  ExpectEnginesAgree(ProgramsScenario(
      {Dim("FullyConnected", 4, 90, 50), Dim("Switch", 2, 50, 500)},
      {{"g", {{0, 1}, {2, 3}, {4, 5, 6, 7}}}},
      {{{"ranks", {0, 1, 2, 3, 4, 5, 6, 7}}, {"nodes", {Collective(1, "all_reduce", "g")}}}}));
  // Ranks 0 and 3 share a program but wait on different ranks.
  ExpectEnginesAgree(ProgramsScenario(
      nlohmann::json::array({Dim("FullyConnected", 6, 100, 50)}), {{"A", {{0, 2}, {1, 5}, {3, 4}}}},
      {{{"ranks", {0, 3}}, {"nodes", {Collective(1, "all_reduce", "A"), ComputeFor(2, 5000, {1})}}},
       {{"ranks", {1, 4}}, {"nodes", {ComputeFor(1, 1000), Collective(2, "all_reduce", "A", {1})}}},
       {{"ranks", {2}}, {"nodes", {Collective(1, "all_reduce", "A")}}},
       {{"ranks", {5}}, {"nodes", {Collective(1, "all_reduce", "A")}}}}));
  // Collectives in different orders on different groups: A(0,1), B(0,2), A(2,3), B(1,3).
  ExpectEnginesAgree(ProgramsScenario(
      nlohmann::json::array({Dim("FullyConnected", 4, 100, 50)}), {{"A", {{0, 1}, {2, 3}}}, {"B", {{0, 2}, {1, 3}}}},
      {{{"ranks", {0, 3}}, {"nodes", {Collective(1, "all_reduce", "A"), Collective(2, "all_reduce", "B", {1})}}},
       {{"ranks", {1}}, {"nodes", {Collective(1, "all_reduce", "A"), Collective(2, "all_reduce", "B", {1})}}},
       {{"ranks", {2}}, {"nodes", {Collective(1, "all_reduce", "B"), Collective(2, "all_reduce", "A", {1})}}}}));
}

TEST(GraphDriver, SendsTakeTheirRouteAndAPipelineItsBubble) {
  // One send across a FullyConnected 4 (a link of 100 / 3 GB/s): endpoint delay, latency and
  // bytes over the link, by hand; the receive ends at delivery.
  nlohmann::json send = {{"id", 1}, {"type", "send"}, {"peer", 1}, {"tag", 7}, {"size_bytes", 300000}};
  nlohmann::json recv = {{"id", 1}, {"type", "recv"}, {"peer", 0}, {"tag", 7}, {"size_bytes", 300000}};
  nlohmann::json doc = ProgramsScenario(nlohmann::json::array({Dim("FullyConnected", 4, 100, 50)}), nlohmann::json::object(),
                                        {{{"ranks", {0}}, {"nodes", {send}}},
                                         {{"ranks", {1}}, {"nodes", {recv}}},
                                         {{"ranks", {2, 3}}, {"nodes", {ComputeFor(1, 1)}}}});
  doc["communication"]["endpoint_delay_ns"] = 20;
  const FakeRun run = RunOnFakeNetwork(ParseOrDie(doc));
  ExpectClose(run.total_ns, 20 + 50 + 300000 / (100.0 / 3), "send by hand");
  EXPECT_EQ(run.p2p_bytes, 300000u);
  ExpectEnginesAgree(doc);

  // A two-stage pipeline of 3 micro-batches on a Switch 2: stage 0 computes 1 us per
  // micro-batch and sends its activations; stage 1 receives and computes 2 us. Stage 1 ends at
  // 1 us + 3 x (transfer + ...) as the analytical engine plays it.
  nlohmann::json stage0 = nlohmann::json::array(), stage1 = nlohmann::json::array();
  for (int m = 0; m < 3; ++m) {
    stage0.push_back(ComputeFor(2 * m + 1, 1000, m == 0 ? std::vector<int>{} : std::vector<int>{2 * m}));
    stage0.push_back({{"id", 2 * m + 2}, {"type", "send"}, {"peer", 1}, {"tag", m},
                      {"size_bytes", 1 << 20}, {"deps", {2 * m + 1}}});
    stage1.push_back({{"id", 2 * m + 1}, {"type", "recv"}, {"peer", 0}, {"tag", m},
                      {"size_bytes", 1 << 20}, {"deps", m == 0 ? std::vector<int>{} : std::vector<int>{2 * m}}});
    stage1.push_back(ComputeFor(2 * m + 2, 2000, {2 * m + 1}));
  }
  ExpectEnginesAgree(ProgramsScenario(nlohmann::json::array({Dim("Switch", 2, 50, 200)}), nlohmann::json::object(),
                                      {{{"ranks", {0}}, {"nodes", stage0}},
                                       {{"ranks", {1}}, {"nodes", stage1}}}));
}

TEST(GraphDriver, AMillionRepetitionsInGroupsOfOneRunWithoutRecursion) {
  // Each rank alone in its group, one node repeated 2^20 times (the most a graph may ask): done
  // at once, each repetition counted, without a call per repetition on the stack.
  nlohmann::json node = Collective(1, "all_reduce", "solo");
  node["count"] = 1 << 20;
  const Scenario scenario = ParseOrDie(ProgramsScenario(
      nlohmann::json::array({Dim("Switch", 2, 50, 500)}), {{"solo", {{0}, {1}}}},
      {{{"ranks", {0, 1}}, {"nodes", {node, ComputeFor(2, 700, {1})}}}}));
  const FakeRun run = RunOnFakeNetwork(scenario);
  EXPECT_EQ(run.total_ns, 700.0);
  EXPECT_EQ(run.executor_collectives, 0u);
}

TEST(GraphDriver, TheShippedPipelineExampleMatchesTheAnalyticalEngine) {
  auto doc = LoadJsonFile(std::string(HFSIM_SOURCE_DIR) + "/configs/graph-pipeline-tensor-data.json",
                          "the example");
  ASSERT_TRUE(doc) << doc.Error().ToString();
  ExpectEnginesAgree(doc.Value());
}

}  // namespace
}  // namespace hfsim
