// The analytical engine against closed forms worked out by hand (docs/scenario.md §10), on 1-D to
// 4-D fabrics, and the training loop against a hand-played timeline.
#include <cmath>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/report/report-json.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::CollectiveScenario;
using test::ParseOrDie;

constexpr uint64_t kMiB = 1 << 20;

nlohmann::json Dim(const std::string& kind, int size, double bandwidth_GBps, double latency_ns) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", bandwidth_GBps}, {"latency_ns", latency_ns}};
}

// A JSON array of dimensions (brace-initialising one json from one object would not make an array).
template <typename... D>
nlohmann::json Dims(D... dims) {
  return nlohmann::json::array({dims...});
}

double RunTime(const nlohmann::json& doc) {
  return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
}

struct OneDimCase {
  std::string kind;
  int n;
};

class OneDimAllReduce : public ::testing::TestWithParam<OneDimCase> {};

// S = 64 MiB, B = 100 GB/s, a = 50 ns, default algorithms (ring; direct on FullyConnected).
//   Ring:           2(n-1) steps of 1 hop:  2(n-1) a + 2(n-1)/n S/B
//   Switch:         2(n-1) steps of 2 hops: 4(n-1) a + 2(n-1)/n S/B
//   FullyConnected: 2 direct steps of 1 hop: 2 a     + 2(n-1)/n S/B
TEST_P(OneDimAllReduce, MatchesClosedForm) {
  const auto [kind, n] = GetParam();
  const double S = 64.0 * kMiB, B = 100.0, a = 50.0;
  const double bandwidth_ns = 2.0 * (n - 1) / n * S / B;
  double latency_ns = 2.0 * (n - 1) * a;
  if (kind == "Switch") latency_ns = 4.0 * (n - 1) * a;
  if (kind == "FullyConnected") latency_ns = 2.0 * a;
  const double time = RunTime(CollectiveScenario(Dims(Dim(kind, n, B, a)), "all_reduce", 64 * kMiB));
  EXPECT_NEAR(time, latency_ns + bandwidth_ns, 1e-6 * time);
}

INSTANTIATE_TEST_SUITE_P(Kinds, OneDimAllReduce,
                         ::testing::Values(OneDimCase{"Ring", 2}, OneDimCase{"Ring", 4},
                                           OneDimCase{"Ring", 8}, OneDimCase{"Ring", 16},
                                           OneDimCase{"Switch", 4}, OneDimCase{"Switch", 32},
                                           OneDimCase{"FullyConnected", 4},
                                           OneDimCase{"FullyConnected", 8}));

TEST(AnalyticalEngine, OneDimOtherCollectivesMatchClosedForms) {
  // Switch of 8, B = 50 GB/s, a = 100 ns (2 hops per step), S = 8 MiB.
  const double S = 8.0 * kMiB, B = 50.0, a = 100.0;
  const nlohmann::json dims = Dims(Dim("Switch", 8, B, a));
  // Reduce-scatter and all-gather: 7 steps, (n-1)/n S/B.
  EXPECT_NEAR(RunTime(CollectiveScenario(dims, "reduce_scatter", 8 * kMiB)),
              7 * 2 * a + 7.0 / 8 * S / B, 1e-6);
  EXPECT_NEAR(RunTime(CollectiveScenario(dims, "all_gather", 8 * kMiB)),
              7 * 2 * a + 7.0 / 8 * S / B, 1e-6);
  // All-to-all with the (default) ring algorithm: 7 shifted pairwise steps of S/8.
  EXPECT_NEAR(RunTime(CollectiveScenario(dims, "all_to_all", 8 * kMiB)),
              7 * 2 * a + 7.0 / 8 * S / B, 1e-6);
}

// 2-D [Ring 4 @ 200 GB/s, a0 = 20 ns; Switch 8 @ 50 GB/s, a1 = 500 ns], S = 64 MiB, 1 chunk:
//   reduce-scatter on dim 0:  3 a0 + 3/4 S / 200
//   all-reduce on dim 1 of S/4: 14 * 2 a1 + 2 * 7/8 (S/4) / 50
//   all-gather on dim 0:      3 a0 + 3/4 S / 200
TEST(AnalyticalEngine, TwoDimHierarchicalWithoutChunkingIsTheSumOfStages) {
  const double S = 64.0 * kMiB;
  const nlohmann::json dims = Dims(Dim("Ring", 4, 200, 20), Dim("Switch", 8, 50, 500));
  const double expected = 2 * (3 * 20 + 0.75 * S / 200) + (14 * 2 * 500 + 1.75 * (S / 4) / 50);
  EXPECT_NEAR(RunTime(CollectiveScenario(dims, "all_reduce", 64 * kMiB)), expected, 1e-6 * expected);
}

TEST(AnalyticalEngine, NaiveSchemeRunsTheFullAllReduceOnEveryDimension) {
  const double S = 64.0 * kMiB;
  nlohmann::json doc = CollectiveScenario(Dims(Dim("Ring", 4, 200, 20), Dim("Switch", 8, 50, 500)),
                                          "all_reduce", 64 * kMiB);
  doc["communication"]["scheme"] = "naive";
  const double expected = (6 * 20 + 1.5 * S / 200) + (14 * 2 * 500 + 1.75 * S / 50);
  EXPECT_NEAR(RunTime(doc), expected, 1e-6 * expected);
}

// The 4-D fabric of LIBRA: [Ring 4, FullyConnected 8, Ring 4, Switch 32] = 4096 NPUs.
nlohmann::json FourDimFabric(double latency_ns) {
  return Dims(Dim("Ring", 4, 200, latency_ns), Dim("FullyConnected", 8, 150, latency_ns),
              Dim("Ring", 4, 100, latency_ns), Dim("Switch", 32, 50, latency_ns));
}

TEST(AnalyticalEngine, PerDimensionTrafficFollowsTheHierarchicalFormula) {
  const double S = 256.0 * kMiB;
  const Report report =
      AnalyticalEngine().Run(ParseOrDie(CollectiveScenario(FourDimFabric(100), "all_reduce", 256 * kMiB)));
  ASSERT_EQ(report.npus, 4096u);
  // traffic_d = 2 m_d (n_d - 1)/n_d with m_0 = S, m_{d+1} = m_d / n_d.
  const int n[] = {4, 8, 4, 32};
  double m = S;
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(report.dimensions[d].traffic_bytes_per_npu, 2 * m * (n[d] - 1) / n[d], 1e-6 * S)
        << "dimension " << d;
    m /= n[d];
  }
  EXPECT_NEAR(report.total_traffic_bytes,
              4096 * (2 * S * 3 / 4 + 2 * S / 4 * 7 / 8 + 2 * S / 32 * 3 / 4 + 2 * S / 128 * 31 / 32),
              1e-6 * report.total_traffic_bytes);
}

TEST(AnalyticalEngine, ChunkingApproachesTheBusiestDimensionBound) {
  const double S = 1024.0 * kMiB;
  const int n[] = {4, 8, 4, 32};
  const double B[] = {200, 150, 100, 50};
  double m = S, bound = 0.0, sum = 0.0;
  for (int d = 0; d < 4; ++d) {
    const double traffic = 2 * m * (n[d] - 1) / n[d];
    bound = std::max(bound, traffic / B[d]);
    sum += traffic / B[d];
    m /= n[d];
  }
  // Without latency: one chunk costs the plain sum of the stage times ...
  const double one = RunTime(CollectiveScenario(FourDimFabric(0), "all_reduce", 1024 * kMiB, 1));
  EXPECT_NEAR(one, sum, 1e-6 * sum);
  // ... and more chunks approach max_d traffic_d / B_d from above, monotonically:
  // time(C) = sum / C + (C - 1) / C * bound.
  double previous = one;
  for (uint32_t chunks : {2u, 8u, 64u, 1024u}) {
    const double time =
        RunTime(CollectiveScenario(FourDimFabric(0), "all_reduce", 1024 * kMiB, chunks));
    EXPECT_NEAR(time, sum / chunks + (chunks - 1.0) / chunks * bound, 1e-6 * time);
    EXPECT_LT(time, previous);
    EXPECT_GE(time, bound * (1 - 1e-9));
    previous = time;
  }
  EXPECT_LT(previous, 1.01 * bound);
}

TEST(AnalyticalEngine, ChunkingPaysLatencyPerChunk) {
  // One dimension, so no pipelining gain: C chunks cost C x (latency + bandwidth of S/C).
  const nlohmann::json dims = Dims(Dim("Ring", 8, 100, 1000));
  const double S = 1.0 * kMiB;
  for (uint32_t chunks : {1u, 4u, 16u}) {
    const double expected = chunks * (14 * 1000 + 1.75 * S / chunks / 100);
    EXPECT_NEAR(RunTime(CollectiveScenario(dims, "all_reduce", kMiB, chunks)), expected, 1e-6 * expected);
  }
}

TEST(AnalyticalEngine, HostOverheadIsPaidPerMessagePostedInEachStep) {
  // Ring 8 all-reduce: 14 steps, each NPU posts 2 messages a step (one each way round the
  // bidirectional ring) => 28 x 1500 ns on top of the closed form. Direct on a Switch of 8:
  // 2 steps of 7 messages each => 14 x 1500 ns.
  const double S = 8.0 * kMiB;
  nlohmann::json ring = CollectiveScenario(Dims(Dim("Ring", 8, 100, 50)), "all_reduce", 8 * kMiB);
  ring["communication"]["host_overhead_ns_per_message"] = 1500;
  EXPECT_NEAR(RunTime(ring), 28 * 1500 + 14 * 50 + 1.75 * S / 100, 1e-6 * S);
  nlohmann::json direct = CollectiveScenario(Dims(Dim("Switch", 8, 100, 50)), "all_reduce", 8 * kMiB);
  direct["communication"]["host_overhead_ns_per_message"] = 1500;
  direct["communication"]["algorithms"] = {{"all_reduce", "direct"}};
  EXPECT_NEAR(RunTime(direct), 14 * 1500 + 2 * 2 * 50 + 1.75 * S / 100, 1e-6 * S);
}

TEST(AnalyticalEngine, EndpointDelayAndReductionCostAddPerStep) {
  // Ring 4 reduce-scatter (3 steps, 1 hop each), S = 4 MiB, B = 100, a = 10, endpoint delay 7 ns,
  // reductions at 50 GB/s: each step reduces S/8 per direction at each NPU => S/4 per step.
  nlohmann::json doc = CollectiveScenario(Dims(Dim("Ring", 4, 100, 10)), "reduce_scatter", 4 * kMiB);
  doc["communication"]["endpoint_delay_ns"] = 7;
  doc["communication"]["reduction_memory_bandwidth_GBps"] = 50;
  const double S = 4.0 * kMiB;
  const double expected = 3 * (7 + 10) + 0.75 * S / 100 + 3 * (S / 4) / 50;
  EXPECT_NEAR(RunTime(doc), expected, 1e-6 * expected);
}

// A two-layer model with measured compute times, data parallel over a Ring of 4 (100 GB/s,
// 0 latency), so every gradient all-reduce costs 2 * 3/4 * bytes / 100 ns.
nlohmann::json TwoLayerTraining(const std::string& overlap) {
  return {
      {"topology", {{"dimensions", Dims(Dim("Ring", 4, 100, 0))}}},
      {"workload",
       {{"training",
         {{"model",
           {{"name", "two-layer"},
            {"layers",
             {{{"name", "a"}, {"params", 400000}, {"forward_ns", 1000}, {"input_grad_ns", 2000},
               {"weight_grad_ns", 3000}},
              {{"name", "b"}, {"params", 200000}, {"forward_ns", 500}, {"input_grad_ns", 600},
               {"weight_grad_ns", 700}}}}}},
          {"global_batch_samples", 4},
          {"parallelism", {{"data", 4}}},
          {"overlap", overlap}}}}}};
}

TEST(AnalyticalEngine, TrainingWithoutOverlapAddsEverything) {
  // Gradients: a 800000 B -> 12000 ns, b 400000 B -> 6000 ns.
  const Report report = AnalyticalEngine().Run(ParseOrDie(TwoLayerTraining("none")));
  const double compute = 1000 + 500 + 2000 + 3000 + 600 + 700;
  EXPECT_NEAR(report.iteration.ComputeNs(), compute, 1e-9);
  EXPECT_NEAR(report.iteration.total_ns, compute + 12000 + 6000, 1e-6);
  EXPECT_NEAR(report.iteration.ExposedCommNs(), 18000, 1e-6);
  EXPECT_NEAR(report.communication_ns, 18000, 1e-6);
}

TEST(AnalyticalEngine, TrainingWithOverlapHidesGradientsBehindBackward) {
  // Forward 1500. Backward: b: 600 + 700 -> 2800, b's all-reduce runs 2800..8800;
  // a: 2000 + 3000 -> 7800, a's all-reduce waits for the channel: 8800..20800.
  const Report report = AnalyticalEngine().Run(ParseOrDie(TwoLayerTraining("backward")));
  EXPECT_NEAR(report.iteration.total_ns, 20800, 1e-6);
  EXPECT_NEAR(report.iteration.weight_grad_comm_exposed_ns, 20800 - 7800, 1e-6);
  EXPECT_NEAR(report.iteration.ExposedCommNs(), 20800 - 7800, 1e-6);
}

TEST(AnalyticalEngine, TensorParallelActivationsAreAllReducedTwicePerBlock) {
  // GPT-2 small, tensor 4 on a Ring of 4, one sample of 1024 tokens: every block all-reduces
  // 1024 * 768 * 2 bytes twice forward and twice backward; the embedding once each way.
  nlohmann::json doc = {
      {"topology", {{"dimensions", Dims(Dim("Ring", 4, 100, 0))}}},
      {"workload",
       {{"training",
         {{"model", "gpt2_small"}, {"global_batch_samples", 1}, {"parallelism", {{"tensor", 4}}}}}}}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  uint64_t forward = 0, backward = 0, gradients = 0;
  for (const CollectiveReport& c : report.collectives) {
    if (c.phase == "forward") forward += c.occurrences;
    if (c.phase == "input_grad") backward += c.occurrences;
    if (c.phase == "weight_grad") gradients += c.occurrences;
    if (c.group == "tensor") {
      EXPECT_EQ(c.size_bytes, 1024u * 768 * 2);
    }
  }
  EXPECT_EQ(forward, 12u * 2 + 1);
  EXPECT_EQ(backward, 12u * 2 + 1);
  EXPECT_EQ(gradients, 0u);  // no data parallelism
  const double one = 2 * 0.75 * 1024 * 768 * 2 / 100.0;
  EXPECT_NEAR(report.iteration.forward_comm_ns, 25 * one, 1e-6 * one);
}

TEST(AnalyticalEngine, UtilisationIsTrafficOverCapacity) {
  const Report report = AnalyticalEngine().Run(ParseOrDie(TwoLayerTraining("none")));
  const DimensionReport& dim = report.dimensions[0];
  EXPECT_NEAR(dim.traffic_bytes_per_npu, 1.5 * (800000 + 400000), 1e-6);
  EXPECT_NEAR(dim.utilisation, dim.traffic_bytes_per_npu / (100.0 * report.iteration.total_ns), 1e-12);
  EXPECT_LE(dim.utilisation, 1.0);
}

TEST(AnalyticalEngine, SameScenarioGivesIdenticalReports) {
  const Scenario scenario =
      ParseOrDie(nlohmann::json::parse(R"({"topology": {"dimensions": [
        {"kind": "Ring", "size": 16, "bandwidth_GBps": 200, "latency_ns": 20},
        {"kind": "Switch", "size": 8, "bandwidth_GBps": 50, "latency_ns": 500}]},
        "workload": {"training": {"model": "gpt3_175b", "global_batch_samples": 16,
          "parallelism": {"tensor": 16, "data": 8}, "overlap": "backward"}}})"));
  const std::string first = ReportToJson(AnalyticalEngine().Run(scenario), scenario).dump();
  const std::string second = ReportToJson(AnalyticalEngine().Run(scenario), scenario).dump();
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace hfsim
