// The summary of a sweep against brute force over the recorded points of each combination:
// fastest and least time x cost (ties to the lower point), and the Pareto frontier of cost
// against time (no point cheaper-and-no-slower or faster-and-no-dearer than a frontier point,
// and every other point is matched or beaten by one).
#include "sim/sweep/sweep-summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "sim/sweep/point-evaluator.h"
#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

using nlohmann::json;

/// [Ring 4, Ring 2] priced 1 and 2 $ per GB/s, a grid of `axis` x `axis`, and `sizes`.
json PricedSweep(const json& axis, const json& sizes) {
  return {
      {"topology",
       {{"dimensions", test::Dims(test::Dim("Ring", 4, 50, 100), test::Dim("Ring", 2, 25, 900))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}}},
      {"cost", {{"dimensions", {{{"link_usd_per_GBps", 1}}, {{"link_usd_per_GBps", 2}}}}}},
      {"sweep",
       {{"bandwidth_GBps", {{"grid", {axis, axis}}}},
        {"parameters", {{{"path", "workload.collective.size_bytes"}, {"values", sizes}}}}}}};
}

struct Expected {
  std::optional<uint64_t> fastest;
  std::optional<uint64_t> best;
  std::vector<uint64_t> frontier;
  uint64_t points = 0;
};

/// Brute force over the recorded points of combination c.
Expected BruteForce(const SweepPlan& plan, SweepTable& table, uint64_t c) {
  Expected e;
  const uint64_t per = plan.AllocationCount();
  std::vector<uint64_t> points;
  for (uint64_t p = c * per; p < (c + 1) * per; ++p) {
    if (table.Done(p)) points.push_back(p);
  }
  e.points = points.size();
  // $: 8 NPUs x (1 x B0 + 2 x B1).
  const auto cost = [&](uint64_t p) {
    const std::vector<double> b = table.Bandwidths(p);
    return 8.0 * (1.0 * b[0] + 2.0 * b[1]);
  };
  const auto time = [&](uint64_t p) { return table.TimeNs(p); };
  for (uint64_t p : points) {
    EXPECT_DOUBLE_EQ(*table.CostUsd(p), cost(p));
    if (!e.fastest || time(p) < time(*e.fastest)) e.fastest = p;
    if (!e.best || time(p) * cost(p) < time(*e.best) * cost(*e.best)) e.best = p;
  }
  for (uint64_t p : points) {
    bool dominated = false;
    for (uint64_t q : points) {
      const bool no_worse = cost(q) <= cost(p) && time(q) <= time(p);
      const bool better = cost(q) < cost(p) || time(q) < time(p);
      dominated = dominated || (no_worse && better) || (no_worse && !better && q < p);
    }
    if (!dominated) e.frontier.push_back(p);
  }
  std::sort(e.frontier.begin(), e.frontier.end(),
            [&](uint64_t a, uint64_t b) { return cost(a) < cost(b); });
  return e;
}

void ExpectMatchesBruteForce(const SweepPlan& plan, SweepTable& table) {
  const std::vector<CombinationSummary> summary = SummariseSweep(plan, table);
  ASSERT_EQ(summary.size(), plan.Combinations().size());
  for (uint64_t c = 0; c < summary.size(); ++c) {
    const CombinationSummary& s = summary[c];
    const Expected e = BruteForce(plan, table, c);
    EXPECT_EQ(s.combination, c);
    EXPECT_EQ(s.points, e.points);
    EXPECT_EQ(s.fastest, e.fastest) << "combination " << c;
    EXPECT_EQ(s.best_time_x_cost, e.best) << "combination " << c;
    EXPECT_EQ(s.frontier, e.frontier) << "combination " << c;
    // The frontier's shape: cost up, time down, strictly.
    for (size_t i = 1; i < s.frontier.size(); ++i) {
      EXPECT_LT(*table.CostUsd(s.frontier[i - 1]), *table.CostUsd(s.frontier[i]));
      EXPECT_GT(table.TimeNs(s.frontier[i - 1]), table.TimeNs(s.frontier[i]));
    }
    if (e.points > 0) {
      ASSERT_FALSE(s.frontier.empty());
      // The last frontier point is as fast as the fastest point.
      EXPECT_EQ(table.TimeNs(s.frontier.back()), table.TimeNs(*s.fastest));
    }
  }
}

TEST(SweepSummary, AnalyticalSweepMatchesBruteForce) {
  const auto plan = test::PlanOrFail(
      PricedSweep({{"from", 5}, {"to", 100}, {"step", 5}}, {4096, 1 << 20, 64 << 20}));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 1200u);
  SweepTable table(*plan);
  PointEvaluator evaluator(*plan);
  for (uint64_t p = 0; p < plan->PointCount(); ++p) table.Record(p, evaluator.TimeNs(p));
  ExpectMatchesBruteForce(*plan, table);
  // More of both bandwidths is faster: the fastest is the top corner (100, 100).
  const auto summary = SummariseSweep(*plan, table);
  for (const CombinationSummary& s : summary) {
    EXPECT_EQ(table.Bandwidths(*s.fastest), (std::vector<double>{100, 100}));
    // The cheapest allocation (5, 5) is on the frontier, first.
    EXPECT_EQ(table.Bandwidths(s.frontier.front()), (std::vector<double>{5, 5}));
  }
}

TEST(SweepSummary, TiesAndGapsMatchBruteForce) {
  // Times from a handful of values and costs with many ties; some points not recorded.
  const auto plan = test::PlanOrFail(PricedSweep({1, 2, 3, 4, 5, 6}, {4096, 8192, 16384}));
  ASSERT_TRUE(plan);
  for (uint32_t seed = 0; seed < 20; ++seed) {
    SweepTable table(*plan);
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> time(1, 5);
    std::uniform_int_distribution<int> keep(0, 3);
    for (uint64_t p = 0; p < plan->PointCount(); ++p) {
      // Combination 2 records nothing at all for odd seeds.
      if (keep(random) != 0 && !(seed % 2 == 1 && p >= 72)) table.Record(p, 100.0 * time(random));
    }
    ExpectMatchesBruteForce(*plan, table);
    const auto summary = SummariseSweep(*plan, table);
    if (seed % 2 == 1) {
      EXPECT_EQ(summary[2].points, 0u);
      EXPECT_FALSE(summary[2].fastest.has_value());
      EXPECT_TRUE(summary[2].frontier.empty());
      EXPECT_NE(SweepSummaryText(*plan, table, summary).find("no points recorded"),
                std::string::npos);
    }
  }
}

TEST(SweepSummary, JsonNamesEachCombinationsValuesAndBestPoints) {
  json document = PricedSweep({10, 20}, {4096, 8192});
  document["sweep"]["parameters"].push_back(
      {{"path", "communication.chunks"}, {"values", {1, 2, 4}}});
  document["communication"] = {{"chunks", 1}};
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 24u);
  SweepTable table(*plan);
  PointEvaluator evaluator(*plan);
  for (uint64_t p = 0; p < plan->PointCount(); ++p) table.Record(p, evaluator.TimeNs(p));
  const auto summary = SummariseSweep(*plan, table);
  const json out = SweepSummaryJson(*plan, table, summary);
  ASSERT_EQ(out.size(), 6u);
  for (uint64_t c = 0; c < 6; ++c) {
    const json& entry = out[c];
    EXPECT_EQ(entry["combination"], c);
    EXPECT_EQ(entry["points"], 4);
    // Combination c: size index c / 3, chunks index c % 3.
    EXPECT_EQ(entry["parameters"]["workload.collective.size_bytes"],
              (json::array({4096, 8192})[c / 3]));
    EXPECT_EQ(entry["parameters"]["communication.chunks"], (json::array({1, 2, 4})[c % 3]));
    const uint64_t fastest = entry["fastest"]["point"];
    EXPECT_EQ(fastest, *summary[c].fastest);
    EXPECT_EQ(entry["fastest"]["time_ns"].get<double>(), table.TimeNs(fastest));
    EXPECT_EQ(entry["fastest"]["bandwidth_GBps"], (json::array({20, 20})));
    EXPECT_EQ(entry["fastest"]["cost_usd"].get<double>(), 8.0 * (20 + 2 * 20));
    EXPECT_EQ(entry["best_time_x_cost"]["point"], *summary[c].best_time_x_cost);
    EXPECT_EQ(entry["frontier_points"].get<std::vector<uint64_t>>(), summary[c].frontier);
  }
  const std::string text = SweepSummaryText(*plan, table, summary);
  EXPECT_NE(text.find("communication.chunks=4"), std::string::npos) << text;
  EXPECT_NE(text.find("best time x cost"), std::string::npos) << text;
}

TEST(SweepSummary, UnpricedFabricHasOnlyTheFastest) {
  const json dims = test::Dims(test::Dim("Switch", 2, 50, 100), test::Dim("Ring", 2, 50, 100),
                               test::Dim("Ring", 2, 50, 100), test::Dim("Ring", 2, 50, 100));
  const json document = {
      {"topology", {{"dimensions", dims}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}}},
      {"sweep", {{"bandwidth_GBps", {{"list", {{1, 2, 3, 4}, {5, 6, 7, 8}, {5, 6, 7, 9}}}}}}}};
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  SweepTable table(*plan);
  table.Record(0, 30.0);
  table.Record(1, 20.0);
  table.Record(2, 20.0);
  const auto summary = SummariseSweep(*plan, table);
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].fastest, 1u);  // tie with point 2: the lower point
  EXPECT_FALSE(summary[0].best_time_x_cost.has_value());
  EXPECT_TRUE(summary[0].frontier.empty());
  EXPECT_FALSE(SweepSummaryJson(*plan, table, summary)[0].contains("best_time_x_cost"));
}

}  // namespace
}  // namespace hfsim
