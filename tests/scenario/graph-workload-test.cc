// Execution graphs given in the scenario (workload "graph"): collectives over partial and
// multi-dimension groups priced by hand on 2-D and 3-D fabrics, sends priced by their route,
// bad graphs refused naming the node, the echo read back, and the timeline adding up to the
// report's breakdown.
#include <fstream>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/report/timeline-plot.h"
#include "sim/report/trace-json.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/scenario-graph.h"
#include "tests/hfsim-cli.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

constexpr double kS = 16.0 * (1 << 20);  // 16 MiB

nlohmann::json Dim(const std::string& kind, int size, double bandwidth_GBps, double latency_ns) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", bandwidth_GBps}, {"latency_ns", latency_ns}};
}

// One program for every rank: an all-reduce of 16 MiB on communicator "g" (groups given),
// ranks outside every group compute instead.
nlohmann::json GroupScenario(nlohmann::json dims, nlohmann::json groups, uint32_t npus) {
  std::vector<bool> in_group(npus, false);
  for (const auto& group : groups) {
    for (const auto& rank : group) in_group[rank.get<uint32_t>()] = true;
  }
  nlohmann::json members = nlohmann::json::array(), others = nlohmann::json::array();
  for (uint32_t r = 0; r < npus; ++r) (in_group[r] ? members : others).push_back(r);
  nlohmann::json programs = nlohmann::json::array();
  programs.push_back({{"ranks", members},
                      {"nodes", {{{"id", 1}, {"type", "collective"}, {"kind", "all_reduce"},
                                  {"size_bytes", static_cast<uint64_t>(kS)}, {"communicator", "g"}}}}});
  if (!others.empty()) {
    programs.push_back({{"ranks", others},
                        {"nodes", {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}}}});
  }
  return {{"topology", {{"dimensions", dims}}},
          {"workload", {{"graph", {{"communicators", {{{"name", "g"}, {"groups", groups}}}},
                                   {"programs", programs}}}}}};
}

double Time(const nlohmann::json& document) {
  return AnalyticalEngine().Run(ParseOrDie(document)).iteration.total_ns;
}

// 4 of the 8 NPUs of a FullyConnected dimension (140 GB/s over 7 links of 20 GB/s): the group
// uses 3 of them, 60 GB/s. Direct all-reduce: 2 steps of one hop, 2 (k-1)/k S over 60 GB/s.
TEST(GraphWorkload, PartialFullyConnectedGroupUsesOnlyItsLinks) {
  const nlohmann::json dims = {Dim("FullyConnected", 8, 140, 50), Dim("Switch", 4, 50, 500)};
  const double expected = 2 * 50 + 2 * 0.75 * kS / 60;
  EXPECT_NEAR(Time(GroupScenario(dims, {{0, 1, 2, 3}}, 32)), expected, 1e-9 * expected);
  // Strided members of the same dimension are the same shape.
  EXPECT_NEAR(Time(GroupScenario(dims, {{0, 2, 4, 6}}, 32)), expected, 1e-9 * expected);
}

// A group over 2 of a Ring's 4 NPUs and 4 of a FullyConnected dimension's 8 (ranks c0 + 4 c1,
// c0 < 2, c1 < 4). Hierarchical: reduce-scatter on the 2-ring (a + S/2 / 200), all-reduce of S/2
// on the 4 FC NPUs (2 a + 1.5 (S/2) / 60), all-gather on the 2-ring.
TEST(GraphWorkload, MultiDimensionPartialGroupIsPricedPerDimensionWithItsOwnSizes) {
  const nlohmann::json dims = {Dim("Ring", 4, 200, 20), Dim("FullyConnected", 8, 140, 50),
                               Dim("Switch", 4, 50, 500)};
  const double expected = 2 * (20 + kS / 2 / 200) + (2 * 50 + 1.5 * (kS / 2) / 60);
  const double time = Time(GroupScenario(dims, {{0, 1, 4, 5, 8, 9, 12, 13}}, 128));
  EXPECT_NEAR(time, expected, 1e-9 * expected);
}

// A group that is two whole dimensions costs exactly what the collective workload over them does.
TEST(GraphWorkload, WholeDimensionGroupsMatchTheCollectiveWorkloadToTheBit) {
  const nlohmann::json dims = {Dim("Ring", 4, 200, 20), Dim("FullyConnected", 8, 140, 50),
                               Dim("Switch", 4, 50, 500)};
  nlohmann::json groups = nlohmann::json::array();
  for (uint32_t c2 = 0; c2 < 4; ++c2) {
    nlohmann::json group = nlohmann::json::array();
    for (uint32_t r = 0; r < 32; ++r) group.push_back(r + 32 * c2);
    groups.push_back(group);
  }
  const nlohmann::json collective = {
      {"topology", {{"dimensions", dims}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", static_cast<uint64_t>(kS)},
                                    {"dimensions", {0, 1}}}}}}};
  EXPECT_EQ(Time(GroupScenario(dims, groups, 128)), Time(collective));
}

// Two ranks on a Switch (2 hops): rank 0 computes 1 us then sends 1 MB to rank 1, which receives
// it and computes 2 us. The send: 2 hops x 300 ns + 1e6 B / 50 GB/s = 20.6 us, from t = 1 us.
TEST(GraphWorkload, SendIsPricedByItsRoute) {
  const nlohmann::json doc = {
      {"topology", {{"dimensions", nlohmann::json::array({Dim("Switch", 2, 50, 300)})}}},
      {"workload", {{"graph", {{"programs", {
          {{"ranks", {0}}, {"nodes", {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1000}},
                                      {{"id", 2}, {"type", "send"}, {"peer", 1}, {"size_bytes", 1000000},
                                       {"deps", {1}}}}}},
          {{"ranks", {1}}, {"nodes", {{{"id", 1}, {"type", "recv"}, {"peer", 0}, {"size_bytes", 1000000}},
                                      {{"id", 2}, {"type", "compute"}, {"duration_ns", 2000},
                                       {"deps", {1}}}}}}}}}}}}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_NEAR(report.iteration.total_ns, 1000 + 600 + 20000 + 2000, 1e-6);
  ASSERT_TRUE(report.graph.has_value());
  EXPECT_EQ(report.graph->reported_rank, 1u);  // rank 1 ends last
  EXPECT_NEAR(report.dimensions[0].traffic_bytes_per_npu, 0.0, 0.0);  // rank 1 sends nothing
  EXPECT_NEAR(report.total_traffic_bytes, 1e6, 1e-6);
}

// Programs of two ranks sending to each other position by position: ranks 0 and 1 send 1 MB to
// ranks 2 and 3 on a Ring of 4, both two hops of 300 ns, 1 MB over one direction of the ring
// (half its 50 GB/s): 40 us. The job's traffic is both messages. On a Ring of 6 with ranks 3 and
// 5 as receivers (three hops and two) the ranks reach their peers differently: each gets a
// program of its own, and rank 1's message, two hops, arrives first.
TEST(GraphWorkload, ProgramsOfSeveralRanksSendPositionByPosition) {
  auto doc = [](int ring, nlohmann::json senders, nlohmann::json receivers) {
    return nlohmann::json{
        {"topology", {{"dimensions", nlohmann::json::array({Dim("Ring", ring, 50, 300)})}}},
        {"workload", {{"graph", {{"programs", {
            {{"ranks", senders},
             {"nodes", {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1000}},
                        {{"id", 2}, {"type", "send"}, {"peer", receivers[0]},
                         {"size_bytes", 1000000}, {"deps", {1}}}}}},
            {{"ranks", receivers},
             {"nodes", {{{"id", 1}, {"type", "recv"}, {"peer", senders[0]},
                         {"size_bytes", 1000000}},
                        {{"id", 2}, {"type", "compute"}, {"duration_ns", 2000}, {"deps", {1}}}}}},
            {{"ranks", {{"others"}}}, {"nodes", nlohmann::json::array()}}}}}}}}};
  };
  nlohmann::json even = doc(4, {0, 1}, {2, 3});
  even["workload"]["graph"]["programs"].erase(2);
  const Report report = AnalyticalEngine().Run(ParseOrDie(even));
  EXPECT_NEAR(report.iteration.total_ns, 1000 + 2 * 300 + 40000 + 2000, 1e-6);
  ASSERT_TRUE(report.graph.has_value());
  EXPECT_EQ(report.graph->programs, 2u);
  EXPECT_NEAR(report.total_traffic_bytes, 2e6, 1e-6);

  nlohmann::json uneven = doc(6, {0, 1}, {3, 5});
  uneven["workload"]["graph"]["programs"][2]["ranks"] = {2, 4};
  const Report apart = AnalyticalEngine().Run(ParseOrDie(uneven));
  ASSERT_TRUE(apart.graph.has_value());
  EXPECT_EQ(apart.graph->programs, 5u);  // 0, 1, 3, 5 alone; 2 and 4 together
  EXPECT_NEAR(apart.iteration.total_ns, 1000 + 3 * 300 + 40000 + 2000, 1e-6);
}

// parallelism.tensor_per_dimension [4, 4, 1] on [Ring 4 @ 200, FullyConnected 8 @ 140, Switch 4
// @ 50]: the tensor group is the whole ring x 4 of the FC's 8 NPUs (60 GB/s of their links), the
// data group the other 2 of the FC's (20 GB/s) x the Switch. One layer, compute 1 us per pass,
// a 16 MiB forward all-reduce (tensor) and weight-gradient all-reduce (data), hierarchical:
//   tensor: 2 x (3 x 20 + 3/4 S / 200) + (2 x 50 + 2 x 3/4 (S/4) / 60)
//   data:   2 x (50 + 1/2 S / 20) + (6 x 2 x 500 + 2 x 3/4 (S/2) / 50)
TEST(GraphWorkload, TrainingSplitPricesEachGroupOnItsShareOfTheDimension) {
  const nlohmann::json layer = {
      {"name", "l"}, {"params", 0}, {"forward_flops_per_sample", 0},
      {"output_elements_per_sample", 0}, {"tensor_parallel_all_reduces", 0},
      {"forward_ns", 1000}, {"input_grad_ns", 1000}, {"weight_grad_ns", 1000},
      {"forward_comm", {{"kind", "all_reduce"}, {"size_bytes", static_cast<uint64_t>(kS)}}},
      {"weight_grad_comm", {{"kind", "all_reduce"}, {"size_bytes", static_cast<uint64_t>(kS)}}}};
  const nlohmann::json doc = {
      {"topology", {{"dimensions", {Dim("Ring", 4, 200, 20), Dim("FullyConnected", 8, 140, 50),
                                    Dim("Switch", 4, 50, 500)}}}},
      {"workload", {{"training", {{"model", {{"name", "one"}, {"layers", {layer}}}},
                                  {"global_batch_samples", 8},
                                  {"parallelism", {{"tensor_per_dimension", {4, 4, 1}}}}}}}}};
  const double tensor = 2 * (3 * 20 + 0.75 * kS / 200) + (2 * 50 + 1.5 * (kS / 4) / 60);
  const double data = 2 * (50 + 0.5 * kS / 20) + (6 * 2 * 500 + 1.5 * (kS / 2) / 50);
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_NEAR(report.iteration.forward_comm_ns, tensor, 1e-9 * tensor);
  EXPECT_NEAR(report.iteration.weight_grad_comm_ns, data, 1e-9 * data);
  EXPECT_NEAR(report.iteration.total_ns, 3000 + tensor + data, 1e-9 * (tensor + data));
  // Megatron's order: tensor varies fastest within the split dimension.
  const ExecutionGraph graph = BuildExecutionGraph(ParseOrDie(doc));
  EXPECT_EQ(GroupIndex(graph, 1).Members(0),
            (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  // A data group: the same tensor index (coordinate 0 on the ring, 0 mod 4 on the FC), any
  // switch port: c1 in {0, 4}, c2 in 0..3, rank = c0 + 4 c1 + 32 c2.
  EXPECT_EQ(GroupIndex(graph, 0).Members(0),
            (std::vector<uint32_t>{0, 16, 32, 48, 64, 80, 96, 112}));
}

TEST(GraphWorkload, TrainingSplitThatDoesNotDivideOrContradictsTheDegreesIsRefused) {
  nlohmann::json doc = test::BaseTrainingScenario();  // [Ring 4, Switch 8], data 8 x tensor 4
  doc["workload"]["training"]["parallelism"] = {{"tensor_per_dimension", {3, 1}}};
  ExpectLoadError(doc, "workload.training.parallelism.tensor_per_dimension[0]",
                  "got 3, which does not divide dimension 0's 4 NPUs");
  doc["workload"]["training"]["parallelism"] = {{"tensor_per_dimension", {2, 2}}, {"tensor", 8}};
  ExpectLoadError(doc, "workload.training.parallelism.tensor", "got 8, but tensor_per_dimension makes 4");
  doc["workload"]["training"]["parallelism"] = {{"tensor_per_dimension", {2, 2}},
                                                {"data_dimensions", {1}}};
  ExpectLoadError(doc, "workload.training.parallelism.tensor_per_dimension", "not both");
  // The packet engine runs such groups too (tests/packet/graph-packet-test.cc).
  doc["workload"]["training"]["parallelism"] = {{"tensor_per_dimension", {2, 2}}};
  doc["engine"] = "packet";
  EXPECT_TRUE(ParseScenario(doc));
}

// A graph of programs over explicit communicators (`comms`: name -> groups) on `dims`.
nlohmann::json ProgramsScenario(nlohmann::json dims, nlohmann::json comms, nlohmann::json programs) {
  nlohmann::json communicators = nlohmann::json::array();
  for (auto& [name, groups] : comms.items()) communicators.push_back({{"name", name}, {"groups", groups}});
  return {{"topology", {{"dimensions", dims}}},
          {"workload", {{"graph", {{"communicators", communicators}, {"programs", programs}}}}}};
}

nlohmann::json AllReduceOn(int id, const std::string& comm, std::vector<int> deps = {}) {
  return {{"id", id}, {"type", "collective"}, {"kind", "all_reduce"},
          {"size_bytes", static_cast<uint64_t>(kS)}, {"communicator", comm}, {"deps", deps}};
}

nlohmann::json ComputeFor(int id, double ns, std::vector<int> deps = {}) {
  return {{"id", id}, {"type", "compute"}, {"duration_ns", ns}, {"deps", deps}};
}

// A group of one rank has nothing to exchange and costs 0. It used to stop the loader with
// "ComposeStages: no dimensions" (exit 1) while it looked for algorithms that fit.
TEST(GraphWorkload, AGroupOfOneRankCostsNothing) {
  const nlohmann::json doc = ProgramsScenario(
      nlohmann::json::array({Dim("Switch", 2, 50, 500)}), {{"solo", {{0}, {1}}}},
      {{{"ranks", {0, 1}}, {"nodes", {AllReduceOn(1, "solo"), ComputeFor(2, 700, {1})}}}});
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_EQ(report.iteration.total_ns, 700.0);
  ASSERT_EQ(report.collectives.size(), 1u);
  EXPECT_EQ(report.collectives[0].time_ns, 0.0);
}

// One program written for ranks in groups of different shapes is timed per kind of rank. The
// group of 4 is a whole FullyConnected 4 (2 a + 1.5 S / 90); a pair uses 1 of an NPU's 3 links
// (30 GB/s: 2 a + S / 30) and ends last.
TEST(GraphWorkload, OneProgramInGroupsOfDifferentShapesIsTimedPerShape) {
  const nlohmann::json doc = ProgramsScenario(
      {Dim("FullyConnected", 4, 90, 50), Dim("Switch", 2, 50, 500)},
      {{"g", {{0, 1}, {2, 3}, {4, 5, 6, 7}}}},
      {{{"ranks", {0, 1, 2, 3, 4, 5, 6, 7}}, {"nodes", {AllReduceOn(1, "g")}}}});
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  const double pair = 2 * 50 + kS / 30;
  EXPECT_NEAR(report.iteration.total_ns, pair, 1e-9 * pair);
  ASSERT_TRUE(report.graph.has_value());
  EXPECT_EQ(report.graph->programs, 2u);  // ranks 0-3 and 4-7
  EXPECT_EQ(report.graph->reported_rank, 0u);
  EXPECT_EQ(report.graph->reported_class_ranks, 4u);
  ASSERT_EQ(report.collectives.size(), 1u);
  EXPECT_NEAR(report.collectives[0].time_ns, pair, 1e-9 * pair);
}

// Ranks 0 and 3 share a program but wait on different ranks: 3's all-reduce starts only when
// rank 4 has computed for 1 us, so 3 ends at 1 us + a + 5 us.
TEST(GraphWorkload, RanksOfOneProgramWaitingOnDifferentRanksAreTimedApart) {
  const nlohmann::json dims = nlohmann::json::array({Dim("FullyConnected", 6, 100, 50)});
  const nlohmann::json comms = {{"A", {{0, 2}, {1, 5}, {3, 4}}}};
  const double a = Time(ProgramsScenario(dims, comms,
                                         {{{"ranks", {0, 1, 2, 3, 4, 5}}, {"nodes", {AllReduceOn(1, "A")}}}}));
  const double time = Time(ProgramsScenario(dims, comms, {
      {{"ranks", {0, 3}}, {"nodes", {AllReduceOn(1, "A"), ComputeFor(2, 5000, {1})}}},
      {{"ranks", {1, 4}}, {"nodes", {ComputeFor(1, 1000), AllReduceOn(2, "A", {1})}}},
      {{"ranks", {2}}, {"nodes", {AllReduceOn(1, "A")}}},
      {{"ranks", {5}}, {"nodes", {AllReduceOn(1, "A")}}}}));
  EXPECT_NEAR(time, 6000 + a, 1e-9 * time);
}

// Communicators A = {0,1},{2,3} and B = {0,2},{1,3}; ranks 0, 1, 3 run A then B, rank 2 runs B
// then A. It runs (no rank waits on itself): A(0,1), then B(0,2), A(2,3), B(1,3) one after
// another, 4 all-reduces of the same price in all.
TEST(GraphWorkload, CollectivesInDifferentOrdersOnDifferentGroupsRun) {
  const nlohmann::json dims = nlohmann::json::array({Dim("FullyConnected", 4, 100, 50)});
  const nlohmann::json comms = {{"A", {{0, 1}, {2, 3}}}, {"B", {{0, 2}, {1, 3}}}};
  const double a = Time(ProgramsScenario(dims, comms,
                                         {{{"ranks", {0, 1, 2, 3}}, {"nodes", {AllReduceOn(1, "A")}}}}));
  const double time = Time(ProgramsScenario(dims, comms, {
      {{"ranks", {0, 3}}, {"nodes", {AllReduceOn(1, "A"), AllReduceOn(2, "B", {1})}}},
      {{"ranks", {1}}, {"nodes", {AllReduceOn(1, "A"), AllReduceOn(2, "B", {1})}}},
      {{"ranks", {2}}, {"nodes", {AllReduceOn(1, "B"), AllReduceOn(2, "A", {1})}}}}));
  EXPECT_NEAR(time, 4 * a, 1e-9 * time);
}

// The slowest link of a send is found at the bandwidths played: the optimiser's time model at
// another allocation gives what the engine gives for a scenario with that allocation.
TEST(GraphWorkload, SendBottleneckFollowsTheBandwidthsPlayed) {
  auto doc = [](double ring, double sw) {
    return nlohmann::json{
        {"topology", {{"dimensions", {Dim("Ring", 4, ring, 10), Dim("Switch", 2, sw, 100)}}}},
        {"workload", {{"graph", {{"programs", {
            {{"ranks", {0}}, {"nodes", {{{"id", 1}, {"type", "send"}, {"peer", 5}, {"size_bytes", 1000000}}}}},
            {{"ranks", {5}}, {"nodes", {{{"id", 1}, {"type", "recv"}, {"peer", 0}, {"size_bytes", 1000000}}}}},
            {{"ranks", {1, 2, 3, 4, 6, 7}}, {"nodes", {ComputeFor(1, 1)}}}}}}}}}};
  };
  const Scenario at_first = ParseOrDie(doc(200, 50));
  auto compiled = GraphPricing::Compile(at_first, BuildExecutionGraph(at_first), "workload");
  ASSERT_TRUE(compiled) << compiled.Error().ToString();
  // Rank 0 to 5: one ring hop (link 100 GB/s at B = 200) and the switch (2 hops, 50 GB/s).
  EXPECT_NEAR(compiled.Value().TotalNs<double>({200, 50}), 10 + 200 + 1e6 / 50, 1e-9);
  // At (40, 400) the ring's link (20 GB/s) is the slower one.
  EXPECT_EQ(compiled.Value().TotalNs<double>({40, 400}),
            AnalyticalEngine().Run(ParseOrDie(doc(40, 400))).iteration.total_ns);
  EXPECT_NEAR(compiled.Value().TotalNs<double>({40, 400}), 10 + 200 + 1e6 / 20, 1e-9);
}

// Compute on a stream beside 0 is host work (a Chakra trace's is_cpu_op nodes): it runs beside
// the accelerator's compute, so 300 ns on stream 0 and 500 ns on stream 2 end at 500 ns, and it
// counts in no phase of the breakdown. A phase on it is refused.
TEST(GraphWorkload, ComputeOnABackgroundStreamIsHostWorkBesideTheAccelerator) {
  nlohmann::json host = ComputeFor(2, 500);
  host["stream"] = 2;
  const nlohmann::json doc = ProgramsScenario(
      nlohmann::json::array({Dim("Ring", 2, 100, 10)}), nlohmann::json::object(),
      {{{"ranks", {0, 1}}, {"nodes", {ComputeFor(1, 300), host}}}});
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_EQ(report.iteration.total_ns, 500.0);
  EXPECT_EQ(report.iteration.step_compute_ns, 300.0);
  host["phase"] = "forward";
  ExpectLoadError(ProgramsScenario(nlohmann::json::array({Dim("Ring", 2, 100, 10)}), nlohmann::json::object(),
                                   {{{"ranks", {0, 1}}, {"nodes", {host}}}}),
                  "workload.graph.programs[0].nodes[0].phase", "host work");
}

nlohmann::json TwoRankGraph(nlohmann::json rank0, nlohmann::json rank1) {
  return {{"topology", {{"dimensions", nlohmann::json::array({Dim("Ring", 2, 100, 10)})}}},
          {"workload", {{"graph", {{"programs", {{{"ranks", {0}}, {"nodes", rank0}},
                                                 {{"ranks", {1}}, {"nodes", rank1}}}}}}}}};
}

TEST(GraphWorkload, DependencyCycleIsRefusedNamingItsNodes) {
  const nlohmann::json nodes = {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}, {"deps", {3}}},
                                {{"id", 2}, {"type", "compute"}, {"duration_ns", 1}, {"deps", {1}}},
                                {{"id", 3}, {"type", "compute"}, {"duration_ns", 1}, {"deps", {2}}}};
  ExpectLoadError(TwoRankGraph(nodes, nodes), "workload.graph.programs[0].nodes[0].deps",
                  "node 1 is in a dependency cycle (each depends on the next): 1 -> 3 -> 2 -> 1");
}

TEST(GraphWorkload, SendWithoutReceiveIsRefusedNamingTheSend) {
  ExpectLoadError(TwoRankGraph({{{"id", 5}, {"type", "send"}, {"peer", 1}, {"size_bytes", 8}}},
                               {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}}),
                  "workload.graph", "rank 0, node 5: send to rank 1 (tag 0) has no matching receive");
}

TEST(GraphWorkload, MissingRankOrDependencyIsRefused) {
  nlohmann::json doc = TwoRankGraph({{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}},
                                    {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}});
  doc["workload"]["graph"]["communicators"] = {{{"name", "g"}, {"groups", {{0, 7}}}}};
  ExpectLoadError(doc, "workload.graph.communicators[0].groups[0][1]",
                  "rank 7 does not exist: the fabric has 2 NPUs");
  ExpectLoadError(TwoRankGraph({{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}, {"deps", {9}}}},
                               {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}}),
                  "workload.graph.programs[0].nodes[0].deps[0]",
                  "node 1 depends on node 9, which this program does not have");
  ExpectLoadError(TwoRankGraph({{{"id", 1}, {"type", "send"}, {"peer", 2}, {"size_bytes", 8}}},
                               {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}}),
                  "workload.graph.programs[0].nodes[0].peer", "rank 2 does not exist");
}

TEST(GraphWorkload, ReceivesWaitingOnEachOtherAreRefused) {
  const nlohmann::json wait_then_send = {
      {{"id", 1}, {"type", "recv"}, {"peer", 1}, {"size_bytes", 8}},
      {{"id", 2}, {"type", "send"}, {"peer", 1}, {"size_bytes", 8}, {"deps", {1}}}};
  nlohmann::json other = wait_then_send;
  other[0]["peer"] = 0;
  other[1]["peer"] = 0;
  ExpectLoadError(TwoRankGraph(wait_then_send, other), "workload.graph", "can never start");
}

TEST(GraphWorkload, GroupThatIsNotAProductOfCoordinatesIsRefused) {
  const nlohmann::json dims = {Dim("Ring", 4, 200, 20), Dim("Switch", 4, 50, 500)};
  ExpectLoadError(GroupScenario(dims, {{0, 1, 5}}, 16), "workload.graph",
                  "are not every combination of their coordinates");
}

TEST(GraphWorkload, AlgorithmThatCannotRunOnThePartialGroupIsRefused) {
  // Halving-doubling needs a power of two: fine on the whole Ring of 4, not on 3 of its NPUs.
  nlohmann::json doc = GroupScenario(nlohmann::json::array({Dim("Ring", 4, 200, 20)}), {{0, 1, 2}}, 4);
  doc["communication"] = {{"algorithms", {{"all_reduce", "halving_doubling"}}}};
  auto result = ParseScenario(doc);
  ASSERT_FALSE(result);
  EXPECT_NE(result.Error().message.find("halving_doubling"), std::string::npos)
      << result.Error().ToString();
}

TEST(GraphWorkload, EchoReadsBackAsTheSameGraph) {
  const nlohmann::json dims = {Dim("Ring", 4, 200, 20), Dim("FullyConnected", 8, 140, 50)};
  const Scenario scenario = ParseOrDie(GroupScenario(dims, {{0, 1, 4, 5}}, 32));
  const Scenario again = ParseOrDie(ScenarioToJson(scenario));
  EXPECT_EQ(ScenarioToJson(again), ScenarioToJson(scenario));
  EXPECT_EQ(AnalyticalEngine().Run(again).iteration.total_ns,
            AnalyticalEngine().Run(scenario).iteration.total_ns);
}

// The timeline's spans of the reported rank add up to the report's breakdown: compute spans to
// compute, communication spans (main and background streams) to the communication total.
TEST(GraphWorkload, TimelineSpansAddUpToTheBreakdown) {
  for (const char* config : {"configs/quickstart.json", "configs/gpt3-4d-4096.json",
                             "configs/resnet50-data-parallel.json"}) {
    SCOPED_TRACE(config);
    auto loaded = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/" + config);
    ASSERT_TRUE(loaded) << loaded.Error().ToString();
    const Report report = AnalyticalEngine().Run(loaded.Value(), {.timeline = true});
    const std::optional<Timeline>& timeline = report.timeline;
    ASSERT_TRUE(timeline.has_value());
    double compute = 0.0, communication = 0.0, forward_comm = 0.0, end = 0.0;
    for (const TimelineSpan& span : timeline->spans) {
      if (span.rank_class != 0) continue;
      end = std::max(end, span.start_ns + span.duration_ns);
      if (span.track == "compute") compute += span.duration_ns;
      if (span.track == "communication" || span.track.rfind("stream ", 0) == 0) {
        communication += span.duration_ns;
        if (span.phase == "forward") forward_comm += span.duration_ns;
      }
    }
    const IterationTimeline& it = report.iteration;
    EXPECT_NEAR(compute, it.ComputeNs(), 1e-9 * it.total_ns);
    EXPECT_NEAR(communication, report.communication_ns, 1e-9 * it.total_ns);
    EXPECT_NEAR(forward_comm, it.forward_comm_ns, 1e-9 * it.total_ns);
    EXPECT_NEAR(end, it.total_ns, 1e-9 * it.total_ns);
    EXPECT_EQ(timeline->total_ns, it.total_ns);
  }
}

Timeline TimelineOf(const std::string& config) {
  auto loaded = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/" + config);
  EXPECT_TRUE(loaded) << loaded.Error().ToString();
  std::optional<Timeline> timeline = AnalyticalEngine().Run(loaded.Value(), {.timeline = true}).timeline;
  EXPECT_TRUE(timeline.has_value());
  return timeline.value_or(Timeline{});
}

// Chrome trace-event JSON: one named process per rank class, one named thread per track, and
// the spans as complete events in microseconds.
TEST(GraphWorkload, TraceHasAProcessPerClassAndAThreadPerTrack) {
  const Timeline timeline = TimelineOf("configs/graph-pipeline-tensor-data.json");
  const nlohmann::json trace = TraceJson(timeline);
  std::set<std::string> processes;
  size_t threads = 0, spans = 0;
  double last_end_us = 0.0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name") processes.insert(event["args"]["name"]);
    if (event["ph"] == "M" && event["name"] == "thread_name") ++threads;
    if (event["ph"] != "X") continue;
    ++spans;
    last_end_us = std::max(last_end_us, event["ts"].get<double>() + event["dur"].get<double>());
  }
  EXPECT_EQ(processes.size(), 8u);
  EXPECT_TRUE(processes.count("rank 0") && processes.count("rank 7"));
  EXPECT_EQ(threads, 4u * 3 + 4u * 4);  // stage 0: compute, communication, dimension 0; stage 1
                                        // also stream 1
  EXPECT_EQ(spans, timeline.spans.size());
  EXPECT_NEAR(last_end_us, timeline.total_ns / 1000.0, 1e-6);
}

TEST(GraphWorkload, GanttDrawsSmallJobsAndDeclinesLargeOnes) {
  const Timeline timeline = TimelineOf("configs/graph-pipeline-tensor-data.json");
  const auto script = GanttPlotScript(timeline, "t", "gantt.png");
  ASSERT_TRUE(script.has_value());
  EXPECT_NE(script->find("'rank 7: stream 1'"), std::string::npos) << *script;
  Timeline wide;
  for (uint32_t c = 0; c <= kMaxGanttRows; ++c) {
    wide.classes.push_back(TimelineClass{{c}});
    wide.spans.push_back(TimelineSpan{c, "compute", "x", "compute", "step", 0.0, 1.0, 0.0, ""});
  }
  EXPECT_FALSE(GanttPlotScript(wide, "t", "gantt.png").has_value());
}

TEST(GraphWorkload, CliRefusesABadGraphWithExitTwoNamingTheNode) {
  const std::string path = ::testing::TempDir() + "/bad-graph.json";
  std::ofstream(path) << TwoRankGraph({{{"id", 5}, {"type", "send"}, {"peer", 1}, {"size_bytes", 8}}},
                                      {{{"id", 1}, {"type", "compute"}, {"duration_ns", 1}}})
                             .dump();
  const auto result = test::RunHfsim(HFSIM_BINARY, "run " + path);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("node 5"), std::string::npos) << result.output;
}

// hfsim run --graph FILE SCENARIO: the graph file in place of the scenario's workload gives what
// the scenario with that graph as workload.graph gives.
TEST(GraphWorkload, CliRunsAGraphFileOnAScenariosFabric) {
  auto example = LoadJsonFile(std::string(HFSIM_SOURCE_DIR) + "/configs/graph-pipeline-tensor-data.json",
                              "the example");
  ASSERT_TRUE(example) << example.Error().ToString();
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/graph-only.json") << example.Value()["workload"]["graph"].dump();
  nlohmann::json fabric = example.Value();
  fabric["workload"] = {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1024}}}};
  std::ofstream(dir + "/fabric.json") << fabric.dump();
  const auto result = test::RunHfsim(HFSIM_BINARY, "run --graph " + dir + "/graph-only.json " +
                                                       dir + "/fabric.json");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("2.881 ms"), std::string::npos) << result.output;
  std::ofstream(dir + "/bad-graph.json") << R"({"programs": [{"ranks": [0], "nodes": []}]})";
  const auto bad = test::RunHfsim(HFSIM_BINARY, "run --graph " + dir + "/bad-graph.json " + dir +
                                                    "/fabric.json");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("workload.graph.programs: rank 1 runs no program"), std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace hfsim
