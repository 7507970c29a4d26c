#include "sim/sweep/sweep-plots.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "sim/sweep/grid-axis.h"

namespace hfsim {

namespace {

constexpr uint64_t kMaxScatterPoints = 20000;
constexpr size_t kMaxSeriesDrawn = kSeriesColours.size();  // one colour per series
constexpr const char* kNoPointGrey = "#d9d9d9";

std::string Header(const std::string& png) { return GnuplotHeader(png, 900, 640); }

/// "path=value, ..." for the parameters of `combination`, leaving out parameter `skip`.
std::string CombinationLabel(const SweepPlan& plan, uint64_t combination,
                             size_t skip = SIZE_MAX) {
  std::string label;
  for (size_t i = 0; i < plan.Parameters().size(); ++i) {
    if (i == skip) continue;
    label += fmt::format("{}{}={}", label.empty() ? "" : ", ", plan.Parameters()[i].path,
                         plan.Combinations()[combination].cells[i]);
  }
  return label;
}

/// The least time (ms) at each bandwidth of `dims` over the first combination's allocations.
std::map<std::vector<double>, double> LeastTimes(const SweepPlan& plan, SweepTable& table,
                                                 const std::vector<uint32_t>& dims) {
  std::map<std::vector<double>, double> best;
  for (uint64_t p = 0; p < plan.AllocationCount(); ++p) {
    if (!table.Done(p)) continue;
    std::vector<double> key;
    for (uint32_t d : dims) key.push_back(table.Bandwidths(p)[d]);
    const double t = table.TimeNs(p) / 1e6;
    auto [it, fresh] = best.emplace(key, t);
    if (!fresh) it->second = std::min(it->second, t);
  }
  return best;
}

std::optional<PlotScript> AllocationPlot(const SweepPlan& plan, SweepTable& table,
                                         const std::string& title) {
  std::vector<uint32_t> varied;
  for (uint32_t d = 0; d < plan.Space().DimensionCount(); ++d) {
    if (plan.Space().Varies(d)) varied.push_back(d);
  }
  if (varied.empty()) return std::nullopt;
  const std::string where = plan.Combinations().size() > 1
                                ? fmt::format(" ({})", CombinationLabel(plan, 0))
                                : std::string();
  // Cells show the least time over the dimensions not drawn.
  const bool others = varied.size() > 2;
  if (others) varied.resize(2);
  const auto best = LeastTimes(plan, table, varied);
  if (best.empty()) return std::nullopt;
  Span times;
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& [key, t] : best) {
    times.Add(t);
    xs.push_back(key[0]);
    if (varied.size() == 2) ys.push_back(key[1]);
  }
  xs = Distinct(xs);
  if (varied.size() == 1) {
    std::string rows;
    for (const auto& [key, t] : best) rows += fmt::format("{} {}\n", key[0], t);
    return PlotScript{
        "time.gp", "time.png",
        Header("time.png") + DataBlock("time", rows) +
            fmt::format("set title {}\nset xlabel {}\nset ylabel 'time (ms)'\nset grid\n",
                        GnuplotQuoted(title + where), BandwidthLabel(varied[0])) +
            AxisScale("x", xs.front(), xs.back()) + GridTics("x", xs) +
            AxisScale("y", times.low, times.high) +
            "plot $time using 1:2 with linespoints pointtype 7 linecolor rgb '#4472c4' "
            "notitle\n"};
  }
  const GridAxis x_axis(xs);
  const GridAxis y_axis(ys);
  std::string rows;
  for (const auto& [key, t] : best) {
    const size_t i = x_axis.Index(key[0]);
    const size_t j = y_axis.Index(key[1]);
    rows += fmt::format("{} {} {} {} {} {} {}\n", x_axis.Position(key[0]),
                        y_axis.Position(key[1]), x_axis.edges[i], x_axis.edges[i + 1],
                        y_axis.edges[j], y_axis.edges[j + 1], t);
  }
  // Grey behind the cells marks the (x, y) pairs no allocation has (an uneven split, a list).
  const bool holes = best.size() < x_axis.values.size() * y_axis.values.size();
  return PlotScript{
      "heatmap.gp", "heatmap.png",
      Header("heatmap.png") + DataBlock("cells", rows) +
          fmt::format(
              "set title {}\nset xlabel {}\nset ylabel {}\nset cblabel {} offset 1.5,0\n"
              "set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')\n"
              "set style fill solid 1.0 noborder\nset xrange [{}:{}]\nset yrange [{}:{}]\n",
              GnuplotQuoted(title + where), x_axis.Label(varied[0]), y_axis.Label(varied[1]),
              GnuplotQuoted(others ? "time (ms), best over the other dimensions" : "time (ms)"),
              x_axis.edges.front(), x_axis.edges.back(), y_axis.edges.front(),
              y_axis.edges.back()) +
          AxisScale("cb", times.low, times.high, false) + x_axis.Tics("x") + y_axis.Tics("y") +
          (holes ? fmt::format("set object 1 rectangle from graph 0,0 to graph 1,1 behind "
                               "fillcolor rgb '{}' fillstyle solid noborder\n"
                               "set key at screen 0.99, screen 0.99 right top\n",
                               kNoPointGrey)
                 : std::string("unset key\n")) +
          // Each cell drawn 2% wider and taller than its edges: antialiased neighbours that
          // only touch leave hairline seams.
          "plot $cells using 1:2:($3-0.02*($4-$3)):($4+0.02*($4-$3)):($5-0.02*($6-$5)):"
          "($6+0.02*($6-$5)):7 with boxxyerror fillcolor palette notitle" +
          (holes ? fmt::format(", keyentry with boxes fillcolor rgb '{}' title 'no allocation'\n",
                               kNoPointGrey)
                 : std::string("\n"))};
}

/// The parameter along the x axis: the first with several values, preferring one whose values
/// are all numbers (drawn to scale) over one with other values (drawn as evenly spaced names).
std::optional<size_t> XParameter(const SweepPlan& plan, bool& numeric) {
  std::optional<size_t> chosen;
  for (size_t i = 0; i < plan.Parameters().size(); ++i) {
    const auto& values = plan.Parameters()[i].values;
    if (values.size() < 2) continue;
    numeric = std::all_of(values.begin(), values.end(), [](auto& v) { return v.is_number(); });
    if (numeric) return i;
    if (!chosen) chosen = i;
  }
  return chosen;
}

std::optional<PlotScript> ParameterPlot(const SweepPlan& plan, SweepTable& table,
                                        const std::vector<CombinationSummary>& summary,
                                        const std::string& title,
                                        std::vector<std::string>& notes) {
  bool numeric = false;
  const std::optional<size_t> x = XParameter(plan, numeric);
  if (!x) return std::nullopt;
  std::vector<std::string> names;   // x values that are not numbers, in the sweep's order
  std::vector<std::string> labels;  // one line per combination of the other parameters
  std::vector<std::vector<std::pair<double, double>>> lines;
  std::vector<double> xs;
  Span times;
  for (const CombinationSummary& s : summary) {
    if (!s.fastest) continue;
    const std::string& cell = plan.Combinations()[s.combination].cells[*x];
    double at = 0.0;
    if (numeric) {
      at = std::strtod(cell.c_str(), nullptr);  // the value's JSON text
    } else {
      at = static_cast<double>(std::find(names.begin(), names.end(), cell) - names.begin());
      if (at == static_cast<double>(names.size())) names.push_back(cell);
    }
    const std::string label = CombinationLabel(plan, s.combination, *x);
    const size_t line = std::find(labels.begin(), labels.end(), label) - labels.begin();
    if (line == labels.size()) labels.push_back(label);
    if (line >= kMaxSeriesDrawn) continue;
    if (line == lines.size()) lines.emplace_back();
    const double t = table.TimeNs(*s.fastest) / 1e6;
    times.Add(t);
    lines[line].emplace_back(at, t);
    xs.push_back(at);
  }
  if (xs.empty()) return std::nullopt;
  if (labels.size() > kMaxSeriesDrawn) {
    notes.push_back(fmt::format("parameters.png draws {} of the {} combinations of the other "
                                "parameters", kMaxSeriesDrawn, labels.size()));
  }
  const std::string& path = plan.Parameters()[*x].path;
  std::string script = Header("parameters.png");
  std::string plots;
  for (size_t l = 0; l < lines.size(); ++l) {
    std::sort(lines[l].begin(), lines[l].end());
    std::string rows;
    for (const auto& [at, t] : lines[l]) rows += fmt::format("{} {}\n", at, t);
    script += DataBlock(fmt::format("line{}", l), rows);
    plots += fmt::format("{}$line{} using 1:2 with linespoints pointtype 7 linewidth 2 "
                         "linecolor rgb '{}' {}",
                         plots.empty() ? "" : ", ", l, kSeriesColours[l],
                         labels[l].empty() ? "notitle" : "title " + GnuplotQuoted(labels[l]));
  }
  xs = Distinct(xs);
  std::string x_axis;
  if (numeric) {
    x_axis = AxisScale("x", xs.front(), xs.back()) + GridTics("x", xs);
  } else {
    std::vector<std::pair<std::string, double>> ticks;
    for (size_t i = 0; i < names.size(); ++i) ticks.emplace_back(names[i], i);
    x_axis = fmt::format("set xrange [-0.5:{}]\n", names.size() - 0.5) + TicsLabelled("x", ticks);
  }
  const std::string y_label =
      plan.AllocationCount() == 1
          ? std::string("time (ms)")
          : fmt::format("fastest time over the {} allocations (ms)", plan.AllocationCount());
  return PlotScript{"parameters.gp", "parameters.png",
                    script +
                        fmt::format("set title {}\nset xlabel {}\nset ylabel {}\nset grid\n"
                                    "set key below height 1\n",
                                    GnuplotQuoted(title), GnuplotQuoted(path),
                                    GnuplotQuoted(y_label)) +
                        x_axis + AxisScale("y", times.low, times.high) + "plot " + plots + "\n"};
}

std::optional<PlotScript> FrontierPlot(const SweepPlan& plan, SweepTable& table,
                                       const std::vector<CombinationSummary>& summary,
                                       const std::string& title,
                                       std::vector<std::string>& notes) {
  if (plan.AllocationCount() == 1) {
    notes.push_back("no frontier.png: each parameter combination has one allocation, so there is "
                    "no trade of cost against time to draw");
    return std::nullopt;
  }
  PlotScript plot{"frontier.gp", "frontier.png", Header("frontier.png")};
  std::string plots;
  size_t drawn = 0;
  Span times;
  for (const CombinationSummary& s : summary) {
    if (drawn == kMaxSeriesDrawn || !plan.Combinations()[s.combination].cost) continue;
    if (s.points == 0) continue;
    const uint64_t stride = (s.points + kMaxScatterPoints - 1) / kMaxScatterPoints;
    std::string points;
    uint64_t seen = 0;
    const uint64_t per = plan.AllocationCount();
    for (uint64_t p = s.combination * per; p < (s.combination + 1) * per; ++p) {
      if (!table.Done(p) || seen++ % stride != 0) continue;
      times.Add(table.TimeNs(p) / 1e6);
      points += fmt::format("{} {}\n", *table.CostUsd(p) / 1e6, table.TimeNs(p) / 1e6);
    }
    std::string frontier;
    for (uint64_t p : s.frontier) {
      times.Add(table.TimeNs(p) / 1e6);
      frontier += fmt::format("{} {}\n", *table.CostUsd(p) / 1e6, table.TimeNs(p) / 1e6);
    }
    plot.script += DataBlock(fmt::format("points{}", drawn), points) +
                   DataBlock(fmt::format("frontier{}", drawn), frontier);
    const std::string label = summary.size() > 1 ? CombinationLabel(plan, s.combination) : "";
    plots += fmt::format(
        "{}$points{} using 1:2 with points pointtype 7 pointsize {} linecolor rgb '{}' title {}, "
        "$frontier{} using 1:2 with lines linewidth 2 linecolor rgb '{}' {}",
        plots.empty() ? "" : ", ", drawn,
        // Dots small enough to tell thousands apart, large enough to see a handful.
        s.points > 1000 ? 0.4 : 1.0, kSeriesColours[drawn],
        GnuplotQuoted(label.empty() ? "allocations" : label), drawn, kSeriesColours[drawn],
        drawn == 0 ? "title 'Pareto frontier'" : "notitle");
    ++drawn;
  }
  if (drawn == 0) {
    notes.push_back("no frontier.png: the scenario's \"cost\" section cannot price this fabric");
    return std::nullopt;
  }
  plot.script += fmt::format("set title {}\nset xlabel 'network cost (M$)'\n"
                             "set ylabel 'time (ms)'\nset grid\nset key below height 1\n",
                             GnuplotQuoted(title)) +
                 AxisScale("y", times.low, times.high) + "plot " + plots + "\n";
  return plot;
}

}  // namespace

PlotSet SweepPlots(const SweepPlan& plan, SweepTable& table,
                   const std::vector<CombinationSummary>& summary, const std::string& title) {
  PlotSet set;
  for (auto plot : {AllocationPlot(plan, table, title),
                    ParameterPlot(plan, table, summary, title, set.notes),
                    FrontierPlot(plan, table, summary, title, set.notes)}) {
    if (plot) set.plots.push_back(std::move(*plot));
  }
  return set;
}

}  // namespace hfsim
