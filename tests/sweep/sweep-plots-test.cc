// The sweep's pictures (sim/sweep/sweep-plots.h): a heat map whose colour bar has ticks on a
// small grid and whose cells tile the plane on uneven and holed grids; a sweep over scenario
// parameters drawn as time against the parameter, one line per combination of the others; each
// drawn by gnuplot without a warning.
#include "sim/sweep/sweep-plots.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "tests/gnuplot-test-util.h"
#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

using nlohmann::json;

/// The plan of `sweep` on two Ring dimensions with every point recorded at `time_ns(point)`,
/// and its pictures.
struct Swept {
  std::unique_ptr<SweepPlan> plan;
  std::unique_ptr<SweepTable> table;
  PlotSet pictures;
};

Swept Sweep(const json& sweep, const std::function<double(uint64_t)>& time_ns) {
  json document = test::CollectiveSweep(test::RingDims(2), sweep);
  document["communication"] = {{"chunks", 1}};
  Swept s{test::PlanOrFail(document), nullptr, {}};
  s.table = std::make_unique<SweepTable>(*s.plan);
  for (uint64_t p = 0; p < s.plan->PointCount(); ++p) s.table->Record(p, time_ns(p));
  s.pictures = SweepPlots(*s.plan, *s.table, SummariseSweep(*s.plan, *s.table), "sweep_test");
  return s;
}

std::optional<PlotScript> Picture(const Swept& s, const std::string& script_name) {
  for (const PlotScript& p : s.pictures.plots) {
    if (p.script_name == script_name) return p;
  }
  return std::nullopt;
}

/// [low:high] of `set <axis>range [low:high]`.
std::pair<double, double> Range(const std::string& script, const std::string& axis) {
  const std::string key = "set " + axis + "range [";
  const size_t at = script.find(key) + key.size();
  const size_t colon = script.find(':', at);
  return {std::stod(script.substr(at, colon - at)), std::stod(script.substr(colon + 1))};
}

/// The heat map's cells (columns 3 to 6: x and y edges) cover its plot area exactly once.
void ExpectCellsTile(const std::string& script, size_t cells) {
  const auto rows = test::DataRows(script, "cells");
  ASSERT_EQ(rows.size(), cells);
  const std::vector<double> x0 = test::Column(rows, 2), x1 = test::Column(rows, 3);
  const std::vector<double> y0 = test::Column(rows, 4), y1 = test::Column(rows, 5);
  double area = 0.0;
  for (size_t i = 0; i < rows.size(); ++i) {
    area += (x1[i] - x0[i]) * (y1[i] - y0[i]);
    for (size_t j = 0; j < i; ++j) {
      const bool apart = x1[i] <= x0[j] || x1[j] <= x0[i] || y1[i] <= y0[j] || y1[j] <= y0[i];
      EXPECT_TRUE(apart) << "cells " << i << " and " << j << " overlap";
    }
  }
  const auto [xa, xb] = Range(script, "x");
  const auto [ya, yb] = Range(script, "y");
  EXPECT_NEAR(area, (xb - xa) * (yb - ya), 1e-9 * area);
}

TEST(SweepPlots, SmallGridColourBarHasSeveralTicks) {
  // 3 x 3 times from 1.04 to 1.52 ms: a log colour bar with gnuplot's own ticks showed one label.
  const Swept s = Sweep({{"bandwidth_GBps", {{"grid", {{100, 125, 150}, {100, 125, 150}}}}}},
                        [](uint64_t p) { return 1.04e6 + 0.06e6 * static_cast<double>(p); });
  const auto heatmap = Picture(s, "heatmap.gp");
  ASSERT_TRUE(heatmap);
  const std::vector<double> ticks = test::TickPositions(heatmap->script, "cb");
  EXPECT_GE(ticks.size(), 4u) << heatmap->script;
  for (double t : ticks) {
    EXPECT_GE(t, 1.04);
    EXPECT_LE(t, 1.52);
  }
  ExpectCellsTile(heatmap->script, 9);
}

TEST(SweepPlots, UnevenGridCellsTileThePlane) {
  const Swept s = Sweep({{"bandwidth_GBps", {{"grid", {{10, 20, 40, 80, 160}, {25, 50, 200}}}}}},
                        [](uint64_t p) { return 1e6 * (1.0 + static_cast<double>(p % 7)); });
  const auto heatmap = Picture(s, "heatmap.gp");
  ASSERT_TRUE(heatmap);
  ExpectCellsTile(heatmap->script, 15);
  // One cell per value, each labelled with the value.
  EXPECT_NE(heatmap->script.find("set xtics ('10' 0, '20' 1, '40' 2, '80' 3, '160' 4)"),
            std::string::npos) << heatmap->script;
  EXPECT_EQ(heatmap->script.find("no allocation"), std::string::npos);
}

TEST(SweepPlots, MissingAllocationsAreGreyNotGaps) {
  const Swept s = Sweep({{"bandwidth_GBps", {{"list", {{100, 100}, {200, 100}, {100, 200},
                                                        {400, 50}}}}}},
                        [](uint64_t p) { return 1e6 * (2.0 + static_cast<double>(p)); });
  const auto heatmap = Picture(s, "heatmap.gp");
  ASSERT_TRUE(heatmap);
  EXPECT_EQ(test::DataRows(heatmap->script, "cells").size(), 4u);
  // The grey behind the cells is named in the key: an absent allocation, not a blank.
  EXPECT_NE(heatmap->script.find("set object 1 rectangle from graph 0,0 to graph 1,1 behind"),
            std::string::npos);
  EXPECT_NE(heatmap->script.find("title 'no allocation'"), std::string::npos);
}

TEST(SweepPlots, ParameterSweepDrawsTimeAgainstTheParameter) {
  const json sizes = {1 << 20, 1 << 10, 1 << 16};  // out of order: lines run by size
  const Swept s = Sweep({{"parameters", {{{"path", "workload.collective.size_bytes"},
                                          {"values", sizes}},
                                         {{"path", "communication.chunks"}, {"values", {1, 4}}}}}},
                        [](uint64_t p) { return 1e5 * static_cast<double>(1 + p * p); });
  ASSERT_EQ(s.pictures.plots.size(), 1u);
  const PlotScript& plot = s.pictures.plots[0];
  EXPECT_EQ(plot.png_name, "parameters.png");
  // No cost trade to draw with one allocation per combination: said, not drawn.
  ASSERT_EQ(s.pictures.notes.size(), 1u);
  EXPECT_NE(s.pictures.notes[0].find("no frontier.png"), std::string::npos);
  // One line per chunk count; on each, the size and the recorded time of that combination
  // (combination = size index x 2 + chunk index, one allocation each).
  for (uint64_t chunk = 0; chunk < 2; ++chunk) {
    const auto rows = test::DataRows(plot.script, "line" + std::to_string(chunk));
    ASSERT_EQ(rows.size(), 3u) << plot.script;
    const std::vector<std::pair<double, uint64_t>> by_size = {{1 << 10, 1}, {1 << 16, 2},
                                                              {1 << 20, 0}};
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(std::stod(rows[i][0]), by_size[i].first);
      EXPECT_DOUBLE_EQ(std::stod(rows[i][1]),
                       s.table->TimeNs(by_size[i].second * 2 + chunk) / 1e6);
    }
  }
  EXPECT_NE(plot.script.find("title 'communication.chunks=4'"), std::string::npos);
  EXPECT_NE(plot.script.find("set xlabel 'workload.collective.size_bytes'"), std::string::npos);
  EXPECT_EQ(test::GnuplotMessages(plot.script, plot.png_name), "");
}

TEST(SweepPlots, NamedParameterValuesBecomeTicks) {
  const Swept s = Sweep({{"parameters", {{{"path", "communication.scheme"},
                                          {"values", {"hierarchical", "naive"}}}}}},
                        [](uint64_t p) { return 1e6 * static_cast<double>(1 + p); });
  ASSERT_EQ(s.pictures.plots.size(), 1u);
  const std::string& script = s.pictures.plots[0].script;
  EXPECT_NE(script.find("set xtics ('hierarchical' 0, 'naive' 1)"), std::string::npos) << script;
  EXPECT_EQ(test::GnuplotMessages(script, "parameters.png"), "");
}

TEST(SweepPlots, EveryPictureDrawsWithoutAWarning) {
  const Swept s = Sweep({{"bandwidth_GBps", {{"grid", {{10, 20, 40}, {25, 50}}}}},
                         {"parameters", {{{"path", "communication.chunks"}, {"values", {1, 2}}}}}},
                        [](uint64_t p) { return 1e6 * (1.0 + 1.0 / static_cast<double>(1 + p)); });
  std::set<std::string> drawn;
  for (const PlotScript& p : s.pictures.plots) {
    drawn.insert(p.script_name);
    EXPECT_EQ(p.script.rfind("set terminal pngcairo noenhanced ", 0), 0u) << p.script_name;
    EXPECT_EQ(test::GnuplotMessages(p.script, p.png_name), "") << p.script_name;
  }
  EXPECT_TRUE(drawn.count("heatmap.gp"));
  EXPECT_TRUE(drawn.count("parameters.gp"));
}

}  // namespace
}  // namespace hfsim
