// `hfsim optimize --verify K` as a library: which allocations are verified and in what order,
// and that each row's times are exactly what `hfsim run` reports for that allocation with the
// analytical and with the packet engine (the scenario's "packet" section included).
#include "sim/optimize/verify.h"

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "workloads/graph/placed-graph.h"
#include "workloads/graph/training-graph.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

// 2-D 4 x 4 fabric, one 4 MiB all-reduce in 2 chunks, a non-default packet section, and a time
// x cost objective: small enough for a packet run in well under a second.
nlohmann::json SmallScenario() {
  nlohmann::json d = test::CollectiveScenario(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 100}},
       {{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 500}}},
      "all_reduce", uint64_t{4} << 20, 2);
  d["engine"] = "packet";
  d["packet"] = {{"mtu_bytes", 2048}};
  d["optimize"] = {
      {"objective", "time_x_cost"},
      {"total_bandwidth_GBps_per_npu", 200},
      {"total", "at_most"},
      {"bounds", {{{"dimension", 0}, {"min_GBps", 10}}, {{"dimension", 1}, {"min_GBps", 10}}}},
      {"frontier_points", 4}};
  return d;
}

OptimizeOutcome Solve(const Scenario& scenario) {
  auto outcome = Optimize(scenario);
  if (!outcome) ADD_FAILURE() << outcome.Error().ToString();
  return std::move(outcome).Value();
}

Allocation At(std::vector<double> b, double time_ns, double cost_usd) {
  return Allocation{std::move(b), time_ns, cost_usd};
}

FrontierPoint Point(double budget, Allocation a) {
  return FrontierPoint{budget, std::move(a), 0, 0, 1};
}

TEST(OptimizeVerify, PlanRanksFrontierByTimeTimesCostWithoutRepeats) {
  OptimizeOutcome o;
  o.objective = OptimizeObjective::kTimeXCost;
  // Budget order; time x cost: 600, 400 (the optimum), 500, 400 (a tie, later budget).
  o.frontier = {Point(10, At({1, 1}, 60, 10)), Point(20, At({2, 1}, 20, 20)),
                Point(30, At({3, 1}, 50.0 / 3.0, 30)), Point(40, At({4, 1}, 10, 40))};
  o.best = o.frontier[1].allocation;
  o.equal_split = At({5, 5}, 8, 100);

  const VerifyPlan two = PlanVerification(o, 2);
  ASSERT_EQ(two.candidates.size(), 3u);
  EXPECT_EQ(two.candidates[0].rank, 1u);
  EXPECT_EQ(two.candidates[0].source, VerifySource::kOptimum);
  EXPECT_EQ(two.candidates[0].allocation.bandwidth_GBps, (std::vector<double>{2, 1}));
  // The optimum is also a frontier point: listed once. Then the tie at 400, then 500.
  EXPECT_EQ(two.candidates[1].rank, 2u);
  EXPECT_EQ(two.candidates[1].source, VerifySource::kFrontier);
  EXPECT_EQ(two.candidates[1].allocation.bandwidth_GBps, (std::vector<double>{4, 1}));
  EXPECT_EQ(two.candidates[2].rank, 0u);
  EXPECT_EQ(two.candidates[2].source, VerifySource::kEqualSplit);
  EXPECT_EQ(two.Ranked(), 2u);

  // More than exist: every distinct allocation, in objective order, then the equal split.
  const VerifyPlan all = PlanVerification(o, 10);
  EXPECT_EQ(all.requested, 10u);
  EXPECT_EQ(all.Ranked(), 4u);
  ASSERT_EQ(all.candidates.size(), 5u);
  EXPECT_EQ(all.candidates[2].allocation.bandwidth_GBps, (std::vector<double>{3, 1}));
  EXPECT_EQ(all.candidates[3].allocation.bandwidth_GBps, (std::vector<double>{1, 1}));
  EXPECT_NE(VerifyTable(all, {}, test::ParseOrDie(SmallScenario()))
                .find("only 4 distinct allocations to verify (asked for 10)"),
            std::string::npos);

  // The equal split is left out when it is one of the ranked allocations.
  o.equal_split = o.frontier[3].allocation;
  EXPECT_EQ(PlanVerification(o, 10).candidates.size(), 4u);
  // Other objectives have no frontier: the optimum, then the equal split.
  OptimizeOutcome time;
  time.best = At({1, 2}, 5, 5);
  time.equal_split = At({1.5, 1.5}, 6, 6);
  const VerifyPlan t = PlanVerification(time, 3);
  EXPECT_EQ(t.Ranked(), 1u);
  EXPECT_EQ(t.candidates.size(), 2u);
}

TEST(OptimizeVerify, ScenarioWithAllocationReplacesBandwidthsOnly) {
  const Scenario s = test::ParseOrDie(SmallScenario());
  auto copy = ScenarioWithAllocation(s, {12.5, 37.25}, EngineKind::kAnalytical);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy.Value().engine, EngineKind::kAnalytical);
  EXPECT_EQ(copy.Value().dimensions[0].bandwidth_Bpns, 12.5);
  EXPECT_EQ(copy.Value().dimensions[1].bandwidth_Bpns, 37.25);
  EXPECT_EQ(copy.Value().dimensions[1].latency_ns, 500);
  EXPECT_EQ(copy.Value().packet.mtu_bytes, 2048u);
  // A bandwidth the loader would refuse is refused here, with its path.
  auto huge = ScenarioWithAllocation(s, {2e6, 10}, EngineKind::kPacket);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.Error().where, "topology.dimensions[0].bandwidth_GBps");
}

// The analytical time of every verified allocation is what `hfsim run --engine analytical`
// reports for the scenario file with those bandwidths, and the packet time what
// `hfsim run --engine packet` reports: the candidate goes through its JSON form and the loader,
// as a file would, and each engine runs on what the loader gives back.
TEST(OptimizeVerify, TimesEqualWhatRunReportsWithEachEngine) {
  const Scenario s = test::ParseOrDie(SmallScenario());
  const OptimizeOutcome o = Solve(s);
  const VerifyPlan plan = PlanVerification(o, 2);
  ASSERT_EQ(plan.Ranked(), 2u);
  std::vector<size_t> progress;
  auto rows = Verify(s, plan, PacketEngine(), EngineKind::kPacket,
                     [&](size_t index, size_t count, const VerifyCandidate&) {
                       EXPECT_EQ(count, plan.candidates.size());
                       progress.push_back(index);
                     });
  ASSERT_TRUE(rows) << rows.Error().ToString();
  ASSERT_EQ(rows.Value().size(), plan.candidates.size());
  EXPECT_EQ(progress, (std::vector<size_t>{0, 1, 2}));
  for (const VerifyRow& row : rows.Value()) {
    const std::vector<double>& b = row.candidate.allocation.bandwidth_GBps;
    nlohmann::json file = ScenarioToJson(s);
    for (size_t d = 0; d < b.size(); ++d)
      file["topology"]["dimensions"][d]["bandwidth_GBps"] = b[d];
    file["engine"] = "analytical";
    const Scenario analytical = test::ParseOrDie(file);
    file["engine"] = "packet";
    const Scenario packet = test::ParseOrDie(file);
    EXPECT_EQ(packet.packet.mtu_bytes, 2048u);
    EXPECT_EQ(row.analytical_ns, AnalyticalEngine().Run(analytical).iteration.total_ns);
    EXPECT_EQ(row.checked_by, EngineKind::kPacket);
    EXPECT_EQ(row.simulated_ns, PacketEngine().Run(packet).iteration.total_ns);
    // And the optimiser's own time for it is the analytical engine's.
    EXPECT_EQ(row.analytical_ns, row.candidate.allocation.time_ns);
    EXPECT_GT(row.simulated_ns, 0.0);
  }
  const std::string csv = VerifyCsv(rows.Value(), s);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,candidate,cost_usd,analytical_time_ns,packet_time_ns,difference_percent,B0_GBps,"
            "B1_GBps");
  EXPECT_NE(csv.find("\n1,optimum,"), std::string::npos);
  EXPECT_NE(csv.find("\n2,frontier,"), std::string::npos);
  EXPECT_NE(csv.find("\n,equal_split,"), std::string::npos);
}

// The packet runs use the scenario's "packet" section: another MTU gives another packet time
// and leaves the analytical time alone.
TEST(OptimizeVerify, PacketSectionIsHonoured) {
  const Scenario s = test::ParseOrDie(SmallScenario());
  nlohmann::json other = SmallScenario();
  other["packet"]["mtu_bytes"] = 512;
  const Scenario t = test::ParseOrDie(other);
  VerifyPlan plan;
  plan.requested = 1;
  plan.candidates = {{1, VerifySource::kOptimum, Allocation{{60, 20}, 0, 0}}};
  auto a = Verify(s, plan, PacketEngine(), EngineKind::kPacket);
  auto b = Verify(t, plan, PacketEngine(), EngineKind::kPacket);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a.Value()[0].analytical_ns, b.Value()[0].analytical_ns);
  EXPECT_NE(a.Value()[0].simulated_ns, b.Value()[0].simulated_ns);
}

// Optimising and verifying change only bandwidths: the optimiser's model and every verifying run
// (analytical and flow, at each allocation) price the graph the loader placed, and none
// generates or places another.
TEST(OptimizeVerify, OptimiseAndVerifyReuseTheLoadersGraph) {
  nlohmann::json doc = test::BaseTrainingScenario();
  doc["optimize"] = SmallScenario()["optimize"];
  const Scenario s = test::ParseOrDie(doc);
  const uint64_t generated = GeneratedGraphCount(), placed = PlacedGraphCount();
  const VerifyPlan plan = PlanVerification(Solve(s), 2);
  auto rows = Verify(s, plan, FlowEngine(), EngineKind::kFlow);
  ASSERT_TRUE(rows) << rows.Error().ToString();
  EXPECT_GE(rows.Value().size(), 2u);
  EXPECT_EQ(GeneratedGraphCount(), generated);
  EXPECT_EQ(PlacedGraphCount(), placed);
}

// On the flow engine, each verified time is what `hfsim run --engine flow` reports for the file
// with those bandwidths; the table and verify.csv name the flow engine.
TEST(OptimizeVerify, FlowEngineTimesEqualWhatRunReports) {
  const Scenario s = test::ParseOrDie(SmallScenario());
  const VerifyPlan plan = PlanVerification(Solve(s), 2);
  auto rows = Verify(s, plan, FlowEngine(), EngineKind::kFlow);
  ASSERT_TRUE(rows) << rows.Error().ToString();
  ASSERT_EQ(rows.Value().size(), plan.candidates.size());
  for (const VerifyRow& row : rows.Value()) {
    nlohmann::json file = ScenarioToJson(s);
    const std::vector<double>& b = row.candidate.allocation.bandwidth_GBps;
    for (size_t d = 0; d < b.size(); ++d)
      file["topology"]["dimensions"][d]["bandwidth_GBps"] = b[d];
    file["engine"] = "flow";
    EXPECT_EQ(row.checked_by, EngineKind::kFlow);
    EXPECT_EQ(row.simulated_ns, FlowEngine().Run(test::ParseOrDie(file)).iteration.total_ns);
    EXPECT_EQ(row.analytical_ns, row.candidate.allocation.time_ns);
    // Two chunks pipeline per NPU on flows, ahead of the closed form's busiest-dimension pace
    // (docs/scenario.md §10.4): never slower.
    EXPECT_LE(row.DifferencePercent(), 1e-9);
  }
  // In one chunk the stages run one after another and nothing shares a link: flows take the
  // closed form's time.
  nlohmann::json one_chunk = SmallScenario();
  one_chunk["communication"]["chunks"] = 1;
  const Scenario s1 = test::ParseOrDie(one_chunk);
  auto single = Verify(s1, PlanVerification(Solve(s1), 2), FlowEngine(), EngineKind::kFlow);
  ASSERT_TRUE(single) << single.Error().ToString();
  for (const VerifyRow& row : single.Value()) EXPECT_NEAR(row.DifferencePercent(), 0.0, 1e-6);
  const std::string csv = VerifyCsv(rows.Value(), s);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,candidate,cost_usd,analytical_time_ns,flow_time_ns,difference_percent,B0_GBps,"
            "B1_GBps");
  EXPECT_NE(VerifyTable(plan, rows.Value(), s).find("with the flow engine"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
