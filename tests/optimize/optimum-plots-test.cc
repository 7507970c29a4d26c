// optimize's picture (sim/optimize/optimum-plots.h): with one optimum, time against each
// dimension's bandwidth around it, whose lowest point is the optimum (checked against LIBRA's
// closed form, not the optimiser); with a frontier, time against cost; --verify's runs drawn
// next to the model; identifiers kept literal; nothing drawn, and a note, when nothing moves.
#include "sim/optimize/optimum-plots.h"

#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/scenario/scenario-parser.h"
#include "tests/gnuplot-test-util.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

OptimizeOutcome Solve(const Scenario& scenario) {
  auto outcome = Optimize(scenario);
  if (!outcome) ADD_FAILURE() << outcome.Error().ToString();
  return std::move(outcome).Value();
}

Scenario Config(const std::string& name) {
  auto scenario = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

/// One 256 MiB all-reduce over [Ring 4, Switch 8], no latency, 16 chunks, 300 GB/s in total
/// (optimizer-test.cc): the optimum equalises the dimensions' busy times, B_d = 300 k_d / sum k
/// with k = (1.5, 0.4375) x S, i.e. 232.258 and 67.742 GB/s (docs/optimize.md section 11.1).
Scenario ClosedFormScenario() {
  nlohmann::json d = test::CollectiveScenario(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 0}},
       {{"kind", "Switch"}, {"size", 8}, {"bandwidth_GBps", 100}, {"latency_ns", 0}}},
      "all_reduce", uint64_t{256} << 20, 16);
  d["name"] = "closed_form";
  d["optimize"] = {{"total_bandwidth_GBps_per_npu", 300},
                   {"tolerance", OptimizeSpec::kMinTolerance}};
  return test::ParseOrDie(d);
}

PlotScript OnlyPlot(const PlotSet& set) {
  EXPECT_EQ(set.plots.size(), 1u);
  EXPECT_TRUE(set.notes.empty());
  return set.plots.at(0);
}

/// The bandwidth (GB/s) at which panel `panel`'s curve is lowest, and that time (ms).
std::pair<double, double> Lowest(const std::string& script, size_t panel) {
  const auto rows = test::DataRows(script, "curve" + std::to_string(panel));
  EXPECT_GE(rows.size(), 3u);
  const std::vector<double> ms = test::Column(rows, 1);
  const size_t i = std::min_element(ms.begin(), ms.end()) - ms.begin();
  return {test::Column(rows, 0).at(i), ms.at(i)};
}

TEST(OptimumPlots, CurvesAreLowestAtTheClosedFormAllocation) {
  const Scenario s = ClosedFormScenario();
  const OptimizeOutcome o = Solve(s);
  const PlotScript plot = OnlyPlot(OptimumPlots(o, s, {}));
  EXPECT_EQ(plot.png_name, "bandwidth.png");
  const double share0 = 300.0 * 1.5 / 1.9375;
  for (size_t d = 0; d < 2; ++d) {
    const double expected = d == 0 ? share0 : 300.0 - share0;
    const auto [at, ms] = Lowest(plot.script, d);
    EXPECT_NEAR(at, expected, 1e-3 * expected) << "dimension " << d;
    EXPECT_DOUBLE_EQ(ms, o.best.time_ns / 1e6);
    // The curve reaches out on both sides of the optimum.
    const std::vector<double> xs = test::Column(test::DataRows(plot.script, "curve" +
                                                                            std::to_string(d)), 0);
    EXPECT_LT(xs.front(), 0.9 * expected);
    EXPECT_GT(xs.back(), 1.1 * expected);
  }
}

TEST(OptimumPlots, EveryDimensionOfALibraTimeObjectiveIsLowestAtTheOptimum) {
  const Scenario s = Config("libra-gpt3-4d-optimize.json");
  const OptimizeOutcome o = Solve(s);
  const PlotScript plot = OnlyPlot(OptimumPlots(o, s, {}));
  for (size_t d = 0; d < s.dimensions.size(); ++d) {
    // Certified to the tolerance: no point of the line beats it by more.
    EXPECT_GE(Lowest(plot.script, d).second,
              o.best.time_ns / 1e6 * (1 - s.optimize.tolerance)) << "dimension " << d;
    EXPECT_EQ(test::DataRows(plot.script, "optimum" + std::to_string(d)).at(0).at(0),
              fmt::format("{}", o.best.bandwidth_GBps[d]));
  }
  EXPECT_EQ(test::GnuplotMessages(plot.script, plot.png_name), "");
}

TEST(OptimumPlots, TimeUnderBudgetCurvesStayLowestAtTheOptimum) {
  nlohmann::json d = test::BaseTrainingScenario();
  d["optimize"] = {{"objective", "time_under_budget"}, {"budget_usd", 50000},
                   {"total_bandwidth_GBps_per_npu", 300}, {"total", "at_most"}};
  const Scenario s = test::ParseOrDie(d);
  const OptimizeOutcome o = Solve(s);
  const PlotScript plot = OnlyPlot(OptimumPlots(o, s, {}));
  for (size_t dim = 0; dim < 2; ++dim) {
    EXPECT_GE(Lowest(plot.script, dim).second, o.best.time_ns / 1e6 * (1 - 1e-6));
  }
}

TEST(OptimumPlots, VerifiedRunsAreDrawnNextToTheModel) {
  const Scenario s = ClosedFormScenario();
  const OptimizeOutcome o = Solve(s);
  ASSERT_TRUE(o.equal_split);
  // Stand-ins for the engines' times: the plot draws what Verify returned.
  const std::vector<VerifyRow> rows = {
      {{1, VerifySource::kOptimum, o.best}, o.best.time_ns, 1.25 * o.best.time_ns},
      {{0, VerifySource::kEqualSplit, *o.equal_split}, o.equal_split->time_ns, 2e6}};
  const std::string script = OnlyPlot(OptimumPlots(o, s, rows)).script;
  // In two dimensions both allocations lie on each panel's line.
  for (const char* block : {"verified0", "verified1"}) {
    const auto drawn = test::DataRows(script, block);
    ASSERT_EQ(drawn.size(), 2u) << script;
    EXPECT_DOUBLE_EQ(std::stod(drawn[0][2]), 1.25 * o.best.time_ns / 1e6);
    EXPECT_DOUBLE_EQ(std::stod(drawn[1][2]), 2.0);
  }
  EXPECT_NE(script.find("title 'packet engine (--verify)'"), std::string::npos);
  EXPECT_EQ(test::GnuplotMessages(script, "bandwidth.png"), "");
}

TEST(OptimumPlots, FrontierKeepsTheObjectiveNameLiteralAndDrawsVerifiedRuns) {
  const Scenario s = Config("optimize-verify-2d.json");
  const OptimizeOutcome o = Solve(s);
  ASSERT_GE(o.frontier.size(), 2u);
  const std::vector<VerifyRow> rows = {
      {{1, VerifySource::kOptimum, o.best}, o.best.time_ns, 1.1 * o.best.time_ns}};
  const PlotScript plot = OnlyPlot(OptimumPlots(o, s, rows));
  EXPECT_EQ(plot.png_name, "frontier.png");
  EXPECT_EQ(plot.script.rfind("set terminal pngcairo noenhanced ", 0), 0u);
  EXPECT_NE(plot.script.find("(time_x_cost)'"), std::string::npos);
  EXPECT_EQ(test::DataRows(plot.script, "frontier").size(), o.frontier.size());
  ASSERT_EQ(test::DataRows(plot.script, "verified").size(), 1u);
  EXPECT_EQ(test::GnuplotMessages(plot.script, plot.png_name), "");
}

TEST(OptimumPlots, NothingToDrawWhenTheConstraintsPinEveryDimension) {
  // Dimension 0 fixed, and the total then fixes dimension 1.
  nlohmann::json d = ScenarioToJson(ClosedFormScenario());
  d["optimize"]["fixed"] = {{{"dimension", 0}, {"bandwidth_GBps", 200}}};
  const Scenario s = test::ParseOrDie(d);
  const PlotSet set = OptimumPlots(Solve(s), s, {});
  EXPECT_TRUE(set.plots.empty());
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_NE(set.notes[0].find("no bandwidth.png"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
