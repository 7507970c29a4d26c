// The time of every sweep point against the engines themselves: the scenario rebuilt here from
// the document with the point's parameter values and allocation written in, run by
// AnalyticalEngine (equal to the last bit) or PacketEngine (the same deterministic simulation).
// The point -> (combination, allocation) numbering is recomputed here, not taken from the plan.
#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "sim/scenario/sweep-section.h"
#include "sim/sweep/point-evaluator.h"
#include "sim/sweep/sweep-table.h"
#include "tests/sweep/sweep-test-util.h"
#include "workloads/graph/placed-graph.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {
namespace {

using nlohmann::json;

json LoadConfig(const std::string& name) {
  std::ifstream file(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name);
  return json::parse(file);
}

json Parameter(const std::string& path, const json& values) {
  return {{"path", path}, {"values", values}};
}

/// The grid's allocation `a`, last axis fastest.
std::vector<double> GridAllocation(const std::vector<std::vector<double>>& axes, uint64_t a) {
  std::vector<double> out(axes.size());
  for (size_t d = axes.size(); d-- > 0;) {
    out[d] = axes[d][a % axes[d].size()];
    a /= axes[d].size();
  }
  return out;
}

/// The scenario of combination `c` (last parameter fastest) with `bandwidths`, built from the
/// document by writing the values in and parsing again.
Scenario PointScenario(const json& document, uint64_t c, const std::vector<double>& bandwidths) {
  json variant = document;
  const json& parameters = document["sweep"].value("parameters", json::array());
  for (size_t p = parameters.size(); p-- > 0;) {
    const json& values = parameters[p]["values"];
    variant[*PathToPointer(parameters[p]["path"])] = values[c % values.size()];
    c /= values.size();
  }
  Scenario scenario = test::ParseOrFail(variant);
  for (size_t d = 0; d < bandwidths.size(); ++d)
    scenario.dimensions[d].bandwidth_Bpns = bandwidths[d];
  return scenario;
}

uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }

/// Every point of a grid sweep equals AnalyticalEngine to the bit.
void ExpectAnalyticalToTheBit(const json& document, const std::vector<std::vector<double>>& axes,
                              uint64_t expected_points) {
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->Engine(), EngineKind::kAnalytical);
  ASSERT_EQ(plan->PointCount(), expected_points);
  uint64_t allocations = 1;
  for (const auto& axis : axes) allocations *= axis.size();
  ASSERT_EQ(plan->AllocationCount(), allocations);
  PointEvaluator evaluator(*plan);
  // Visit the points out of order too (the evaluator's caches must not care).
  std::vector<uint64_t> order;
  for (uint64_t p = 0; p < expected_points; ++p) order.push_back(p);
  for (uint64_t p = expected_points; p-- > 0;) order.push_back(p);
  for (uint64_t p : order) {
    const Scenario scenario =
        PointScenario(document, p / allocations, GridAllocation(axes, p % allocations));
    const double expected = AnalyticalEngine().Run(scenario).iteration.total_ns;
    const double got = evaluator.TimeNs(p);
    ASSERT_EQ(Bits(got), Bits(expected)) << "point " << p << ": " << got << " vs " << expected;
    ASSERT_GT(got, 0.0);
  }
}

TEST(SweepEvaluator, AnalyticalTrainingPointsEqualTheEngineToTheBit) {
  // GPT-3 on the 3-D LIBRA fabric: 18 allocations x batch x chunks = 72 points.
  json document = LoadConfig("gpt3-3d-4096.json");
  const std::vector<std::vector<double>> axes = {{100, 200, 300}, {50, 200}, {25, 100, 400}};
  document["sweep"] = {{"bandwidth_GBps", {{"grid", axes}}},
                       {"parameters",
                        {Parameter("workload.training.global_batch_samples", {768, 1536}),
                         Parameter("communication.chunks", {1, 4})}}};
  ExpectAnalyticalToTheBit(document, axes, 72);
}

TEST(SweepEvaluator, AnalyticalOverlappedTrainingPointsEqualTheEngineToTheBit) {
  json document = LoadConfig("quickstart.json");
  const std::vector<std::vector<double>> axes = {{50, 200, 800}, {5, 25, 100}};
  document["sweep"] = {{"bandwidth_GBps", {{"grid", axes}}},
                       {"parameters",
                        {Parameter("workload.training.overlap", {"none", "backward"}),
                         Parameter("workload.training.model", {"bert_large", "gpt2_medium"})}}};
  ExpectAnalyticalToTheBit(document, axes, 36);
}

// A sweep parameter that changes what the graph is made of (here the data dimension's size,
// and with it the NPUs and the data degree) gives each combination a graph of its own, placed
// when the combination is loaded; the points of a combination, which differ in bandwidths only,
// reuse it, on the analytical and on the flow engine alike: evaluating them generates and
// places nothing.
TEST(SweepEvaluator, PointsReuseTheirCombinationsPlacedGraph) {
  json document = LoadConfig("quickstart.json");
  document["workload"]["training"]["parallelism"].erase("data");
  document["sweep"] = {{"bandwidth_GBps", {{"grid", {{200}, {25, 50}}}}},
                       {"parameters", {Parameter("topology.dimensions[1].size", {2, 4})}}};
  for (const char* engine : {"analytical", "flow"}) {
    SCOPED_TRACE(engine);
    document["sweep"]["engine"] = engine;
    const auto plan = test::PlanOrFail(document);
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->Combinations().size(), 2u);
    for (uint32_t c = 0; c < 2; ++c) {
      const auto& placed = plan->Combinations()[c].scenario.placed_graph;
      ASSERT_TRUE(placed);
      EXPECT_EQ(placed->Graph().rank_count, 8u * (2 << c));  // Ring 8 x Switch 2, then 4
    }
    const uint64_t generated = GeneratedGraphCount(), placed = PlacedGraphCount();
    PointEvaluator evaluator(*plan);
    for (uint64_t p = 0; p < plan->PointCount(); ++p) EXPECT_GT(evaluator.TimeNs(p), 0.0);
    EXPECT_EQ(GeneratedGraphCount(), generated);
    EXPECT_EQ(PlacedGraphCount(), placed);
  }
}

TEST(SweepEvaluator, AnalyticalCollectivePointsEqualTheEngineToTheBit) {
  // Every split of 300 GB/s in steps of 25 over [Ring 4, FullyConnected 4, Switch 8], for four
  // collectives, two sizes and two schemes: 55 x 16 points, split rebuilt here independently.
  const json document = {
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 4, 100, 20), test::Dim("FullyConnected", 4, 100, 50),
                    test::Dim("Switch", 8, 100, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_MiB", 1}}}}},
      {"communication", {{"chunks", 4}, {"scheme", "hierarchical"}}},
      {"sweep",
       {{"bandwidth_GBps", {{"split", {{"total_GBps", 300}, {"step_GBps", 25}}}}},
        {"parameters",
         {Parameter("workload.collective.kind",
                    {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}),
          Parameter("workload.collective.size_MiB", {1, 64}),
          Parameter("communication.scheme", {"hierarchical", "naive"})}}}}};
  std::vector<std::vector<double>> splits;
  for (int a = 25; a <= 250; a += 25) {
    for (int b = 25; a + b <= 275; b += 25)
      splits.push_back({double(a), double(b), double(300 - a - b)});
  }
  ASSERT_EQ(splits.size(), 55u);
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->AllocationCount(), 55u);
  ASSERT_EQ(plan->PointCount(), 55u * 16u);
  PointEvaluator evaluator(*plan);
  for (uint64_t p = 0; p < plan->PointCount(); ++p) {
    const Scenario scenario = PointScenario(document, p / 55, splits[p % 55]);
    const double expected = AnalyticalEngine().Run(scenario).iteration.total_ns;
    ASSERT_EQ(Bits(evaluator.TimeNs(p)), Bits(expected)) << "point " << p;
  }
}

TEST(SweepEvaluator, PacketPointsEqualThePacketEngine) {
  // [Ring 2, Switch 2] and [Ring 4, Switch 2], small all-reduces: each point is one ns-3 run.
  for (const json& dims :
       {test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500)),
        test::Dims(test::Dim("Ring", 4, 50, 100), test::Dim("Switch", 2, 25, 500))}) {
    const std::vector<std::vector<double>> axes = {{25, 50}, {10, 40}};
    const json document = {
        {"topology", {{"dimensions", dims}}},
        {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 65536}}}}},
        {"sweep",
         {{"engine", "packet"},
          {"bandwidth_GBps", {{"grid", axes}}},
          {"parameters", {Parameter("workload.collective.size_bytes", {16384, 65536})}}}}};
    const auto plan = test::PlanOrFail(document);
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->Engine(), EngineKind::kPacket);
    ASSERT_EQ(plan->PointCount(), 8u);
    PointEvaluator evaluator(*plan);
    std::vector<double> times;
    for (uint64_t p = 0; p < 8; ++p) {
      Scenario scenario = PointScenario(document, p / 4, GridAllocation(axes, p % 4));
      scenario.engine = EngineKind::kPacket;
      const Report report = PacketEngine().Run(scenario);
      test::ExpectConserved(report);
      const double got = evaluator.TimeNs(p);
      EXPECT_EQ(Bits(got), Bits(report.iteration.total_ns)) << "point " << p;
      times.push_back(got);
    }
    // More bandwidth is faster, more bytes slower (a sanity check of the numbering).
    for (uint64_t c = 0; c < 2; ++c) EXPECT_LT(times[c * 4 + 3], times[c * 4 + 0]);
    for (uint64_t a = 0; a < 4; ++a) EXPECT_LT(times[a], times[4 + a]);
  }
}

// Flow points: each is what FlowEngine gives for the scenario with that allocation; one
// all-reduce in one chunk congests nothing, so each also equals the analytical time to rounding.
TEST(SweepEvaluator, FlowPointsEqualTheFlowEngine) {
  const std::vector<std::vector<double>> axes = {{25, 50}, {10, 40}};
  const json document = {
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 4, 50, 100), test::Dim("Switch", 4, 25, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}}}}},
      {"sweep",
       {{"engine", "flow"},
        {"bandwidth_GBps", {{"grid", axes}}},
        {"parameters", {Parameter("workload.collective.kind", {"all_reduce", "all_to_all"})}}}}};
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->Engine(), EngineKind::kFlow);
  ASSERT_EQ(plan->PointCount(), 8u);
  PointEvaluator evaluator(*plan);
  for (uint64_t p = 0; p < 8; ++p) {
    Scenario scenario = PointScenario(document, p / 4, GridAllocation(axes, p % 4));
    const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
    scenario.engine = EngineKind::kFlow;
    const double got = evaluator.TimeNs(p);
    EXPECT_EQ(Bits(got), Bits(FlowEngine().Run(scenario).iteration.total_ns)) << "point " << p;
    EXPECT_NEAR(got / analytical, 1.0, 1e-9) << "point " << p;
  }
}

// What flows do not model is refused at sweep.engine, with the reason.
TEST(SweepEvaluator, FlowSweepOfAnInNetworkScenarioIsRefusedAtItsEngine) {
  json document = LoadConfig("s1-switchml-vs-ring.json");
  document["sweep"] = {{"engine", "flow"}, {"bandwidth_GBps", {{"list", {{100}}}}}};
  auto scenario = ParseScenario(document);
  ASSERT_FALSE(scenario);
  EXPECT_EQ(scenario.Error().where, "sweep.engine");
  EXPECT_NE(scenario.Error().ToString().find("no switch that aggregates"), std::string::npos)
      << scenario.Error().ToString();
}

TEST(SweepEvaluator, TheEngineOptionOverridesTheSection) {
  const std::vector<std::vector<double>> axes = {{25, 50}, {10}};
  json document = {{"topology",
                    {{"dimensions",
                      test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500))}}},
                   {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 32768}}}}},
                   {"sweep", {{"engine", "packet"}, {"bandwidth_GBps", {{"grid", axes}}}}}};
  auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  plan->SetEngine(EngineKind::kAnalytical);
  PointEvaluator evaluator(*plan);
  for (uint64_t p = 0; p < 2; ++p) {
    const Scenario scenario = PointScenario(document, 0, GridAllocation(axes, p));
    EXPECT_EQ(Bits(evaluator.TimeNs(p)), Bits(AnalyticalEngine().Run(scenario).iteration.total_ns));
  }
}

TEST(SweepEvaluator, SweptTopologyBandwidthsAreThePointsBandwidths) {
  // No "bandwidth_GBps": each combination's own topology is its one allocation, so a parameter
  // on a topology bandwidth (which the loader accepts then) must change the time.
  const json document = {
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}}}}},
      {"sweep",
       {{"parameters",
         {Parameter("topology.dimensions[0].bandwidth_GBps", {10, 100}),
          Parameter("topology.dimensions[1].bandwidth_GBps", {5, 500})}}}}};
  for (const EngineKind engine : {EngineKind::kAnalytical, EngineKind::kPacket}) {
    auto plan = test::PlanOrFail(document);
    ASSERT_TRUE(plan);
    plan->SetEngine(engine);
    ASSERT_EQ(plan->PointCount(), 4u);
    PointEvaluator evaluator(*plan);
    SweepTable table(*plan);
    std::vector<double> times;
    for (uint64_t p = 0; p < 4; ++p) {
      const std::vector<double> bandwidths = {p / 2 == 0 ? 10.0 : 100.0, p % 2 == 0 ? 5.0 : 500.0};
      Scenario scenario = PointScenario(document, p, bandwidths);
      scenario.engine = engine;
      const double expected = engine == EngineKind::kPacket
                                  ? PacketEngine().Run(scenario).iteration.total_ns
                                  : AnalyticalEngine().Run(scenario).iteration.total_ns;
      EXPECT_EQ(Bits(evaluator.TimeNs(p)), Bits(expected)) << "point " << p;
      EXPECT_EQ(table.Bandwidths(p), bandwidths) << "point " << p;
      times.push_back(expected);
    }
    EXPECT_LT(times[3], times[0]);
  }
}

}  // namespace
}  // namespace hfsim
