// The gnuplot scripts' shared parts (sim/report/gnuplot-script.h) and run's breakdown.gp
// (sim/report/report-plot.h): identifiers stay literal text, axes get readable ticks, and every
// workload kind's breakdown shows the report fields its time is made of, drawn without a
// gnuplot warning.
#include "sim/report/report-plot.h"

#include <numeric>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/gnuplot-test-util.h"

namespace hfsim {
namespace {

Scenario Load(const std::string& config) {
  auto scenario = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + config);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

struct Drawn {
  Report report;
  std::string script;
  std::vector<std::string> labels;
  std::vector<double> ms;
};

Drawn Breakdown(const std::string& config) {
  const Scenario scenario = Load(config);
  Drawn d;
  d.report = AnalyticalEngine().Run(scenario);
  d.script = BreakdownPlotScript(d.report, scenario, "breakdown.png");
  const auto rows = test::DataRows(d.script, "breakdown");
  for (const auto& row : rows) d.labels.push_back(row.at(0));
  d.ms = test::Column(rows, 1);
  return d;
}

double Sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

TEST(GnuplotScript, TextIsNeverEnhanced) {
  // Enhanced text would set time_x_cost's "_x" and size_MiB's "_M" as subscripts.
  EXPECT_NE(GnuplotHeader("a.png", 900, 560).find("set terminal pngcairo noenhanced "),
            std::string::npos);
  EXPECT_EQ(GnuplotQuoted("it's time_x_cost"), "'it''s time_x_cost'");
  EXPECT_EQ(GnuplotQuotedLines({"a_b", "c"}), "'a_b'.\"\\n\".'c'");
  EXPECT_EQ(DataLabel("a \"b\""), "\"a 'b'\"");
}

TEST(GnuplotScript, NarrowRangeGetsSeveralRoundTicks) {
  // A 3 x 3 sweep's colour bar: 1.04 to 1.52 ms; gnuplot's own log ticks gave one label or none.
  const std::string scale = AxisScale("cb", 1.04, 1.52, false);
  EXPECT_NE(scale.find("unset logscale cb\nset cbrange [1.04:1.52]\n"), std::string::npos)
      << scale;
  const std::vector<double> ticks = test::TickPositions(scale, "cb");
  ASSERT_GE(ticks.size(), 4u) << scale;
  EXPECT_LE(ticks.size(), 7u) << scale;
  for (double t : ticks) {
    EXPECT_GE(t, 1.04);
    EXPECT_LE(t, 1.52);
  }
  EXPECT_NE(scale.find("'1.1' 1.1"), std::string::npos) << scale;
}

TEST(GnuplotScript, ARangeOfRoundingNoiseIsOneValue) {
  // Times a few ulps apart (a sum one ulp off another): the tick loop used to shrink its step
  // below what a double counts in and never end. Now one tick, at the value.
  const double low = 26.16;
  const double high = low * (1.0 + 3e-15);
  const std::string scale = AxisScale("y", low, high, true);
  const std::vector<double> ticks = test::TickPositions(scale, "y");
  ASSERT_EQ(ticks.size(), 1u) << scale;
  EXPECT_NEAR(ticks[0], low, 1e-12);
}

TEST(GnuplotScript, WideRangeIsLogarithmicWithRoundTicks) {
  const std::string scale = AxisScale("y", 0.08, 17.0);
  EXPECT_NE(scale.find("set logscale y\n"), std::string::npos) << scale;
  EXPECT_GE(test::TickPositions(scale, "y").size(), 3u) << scale;
  EXPECT_NE(scale.find("'1' 1"), std::string::npos) << scale;
  EXPECT_NE(scale.find("'10' 10"), std::string::npos) << scale;
  // One value: a range around it, so gnuplot does not warn of an empty range.
  EXPECT_NE(AxisScale("y", 2.0, 2.0).find("set yrange [1.8:2.2]"), std::string::npos);
}

TEST(BreakdownPlot, TrainingShowsItsSixPhases) {
  const Drawn d = Breakdown("quickstart.json");
  EXPECT_EQ(d.labels.size(), 6u);
  // The phases add up to the iteration (docs/report.md, identities of section 2.2).
  EXPECT_NEAR(Sum(d.ms), d.report.iteration.total_ns / 1e6, 1e-9 * d.report.iteration.total_ns);
}

TEST(BreakdownPlot, ParameterServerShowsItsPhases) {
  const Drawn d = Breakdown("ps-lite-sparse.json");
  EXPECT_EQ(d.labels, (std::vector<std::string>{"worker compute", "push", "aggregate (servers)",
                                                "pull"}));
  const ParameterServerReport& ps = *d.report.parameter_server;
  EXPECT_DOUBLE_EQ(d.ms[1], ps.push_ns / 1e6);
  // Summed over the run's iterations, as the report keeps them: they make up its total.
  EXPECT_NEAR(Sum(d.ms), Sum(ps.iteration_ns) / 1e6, 1e-9 * Sum(ps.iteration_ns));
}

TEST(BreakdownPlot, PacketParameterServerShowsComputeAndCommunication) {
  // The packet engine measures iterations, not phases (its phases_ns are 0): the bars are the
  // mean iteration's compute and the communication after it, which add up to the iteration.
  const Scenario scenario = Load("ps-lite-sparse.json");
  Report report = AnalyticalEngine().Run(scenario);
  report.engine = "packet";
  ParameterServerReport& ps = *report.parameter_server;
  ps.compute_ns = ps.push_ns = ps.aggregate_ns = ps.pull_ns = 0.0;
  const std::string script = BreakdownPlotScript(report, scenario, "breakdown.png");
  const std::vector<double> ms = test::Column(test::DataRows(script, "breakdown"), 1);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_NEAR(ms[0], report.iteration.step_compute_ns / 1e6, 1e-12);
  EXPECT_NEAR(ms[0] + ms[1], report.iteration.total_ns / 1e6, 1e-9 * report.iteration.total_ns);
  EXPECT_GT(ms[1], 0.0);
}

TEST(BreakdownPlot, GossipShowsComputeAndExchanges) {
  const Drawn d = Breakdown("s3-gossip-adaptive.json");
  const GossipReport& g = *d.report.gossip;
  EXPECT_EQ(d.ms, (std::vector<double>{g.compute_ns / 1e6, g.exchange_ns / 1e6}));
  EXPECT_NEAR(Sum(d.ms), g.total_ns / 1e6, 1e-9 * g.total_ns);
}

TEST(BreakdownPlot, CollectiveShowsEachDimensionsBusyTime) {
  const Drawn d = Breakdown("allreduce-4d-64MiB.json");
  ASSERT_EQ(d.ms.size(), 1 + d.report.dimensions.size());
  EXPECT_EQ(d.labels[0], "collective");
  EXPECT_DOUBLE_EQ(d.ms[0], d.report.iteration.total_ns / 1e6);
  for (size_t i = 0; i < d.report.dimensions.size(); ++i) {
    EXPECT_DOUBLE_EQ(d.ms[i + 1], d.report.dimensions[i].busy_ns / 1e6);
    // Pipelined chunks: no dimension is busy longer than the collective takes.
    EXPECT_LE(d.ms[i + 1], d.ms[0] * (1 + 1e-12));
  }
}

TEST(BreakdownPlot, EveryKindDrawsWithoutAWarning) {
  for (const char* config : {"quickstart.json", "ps-lite-sparse.json", "s3-gossip-adaptive.json",
                             "allreduce-4d-64MiB.json"}) {
    EXPECT_EQ(test::GnuplotMessages(Breakdown(config).script, "breakdown.png"), "") << config;
  }
}

}  // namespace
}  // namespace hfsim
