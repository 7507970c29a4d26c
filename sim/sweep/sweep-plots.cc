#include "sim/sweep/sweep-plots.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "sim/report-plot.h"

namespace hfsim {

namespace {

constexpr uint64_t kMaxScatterPoints = 20000;
constexpr size_t kMaxCombinationsDrawn = 8;

std::string Header(const std::string& png) {
  // noenhanced: scenario keys such as size_MiB are text, not subscripts.
  return fmt::format("set terminal pngcairo noenhanced size 900,640 font 'sans,10'\n"
                     "set output {}\n", GnuplotQuoted(png));
}

std::string CombinationLabel(const SweepPlan& plan, uint64_t combination) {
  std::string label;
  for (size_t i = 0; i < plan.Parameters().size(); ++i) {
    label += fmt::format("{}{}={}", label.empty() ? "" : ", ", plan.Parameters()[i].path,
                         plan.Combinations()[combination].cells[i]);
  }
  return label;
}

/// Smallest gap between neighbouring distinct values (the cell width of a grid), or 1.
double Spacing(const std::vector<double>& sorted) {
  double gap = std::numeric_limits<double>::infinity();
  for (size_t i = 1; i < sorted.size(); ++i) gap = std::min(gap, sorted[i] - sorted[i - 1]);
  return std::isfinite(gap) ? gap : 1.0;
}

}  // namespace

std::optional<PlotScript> AllocationPlot(const SweepPlan& plan, SweepTable& table,
                                         const std::string& title) {
  std::vector<uint32_t> varied;
  for (uint32_t d = 0; d < plan.Space().DimensionCount(); ++d) {
    if (plan.Space().Varies(d)) varied.push_back(d);
  }
  if (varied.empty()) return std::nullopt;
  std::string where = plan.Combinations().size() > 1
                          ? fmt::format(" ({})", CombinationLabel(plan, 0))
                          : std::string();
  if (varied.size() == 1) {
    const uint32_t d = varied[0];
    std::map<double, double> best;  // B_d -> least time (ms)
    for (uint64_t p = 0; p < plan.AllocationCount(); ++p) {
      if (!table.Done(p)) continue;
      const double b = table.Bandwidths(p)[d];
      const double t = table.TimeNs(p) / 1e6;
      auto [it, fresh] = best.emplace(b, t);
      if (!fresh) it->second = std::min(it->second, t);
    }
    PlotScript plot{"time.gp", "time.png", Header("time.png") + "$time << EOD\n"};
    for (const auto& [b, t] : best) plot.script += fmt::format("{} {}\n", b, t);
    plot.script += fmt::format(
        "EOD\nset title {}\nset xlabel 'dimension {} bandwidth (GB/s per NPU)'\n"
        "set ylabel 'time (ms)'\nset logscale y\nset grid\nplot $time using 1:2 with linespoints "
        "pointtype 7 linecolor rgb '#4472c4' notitle\n",
        GnuplotQuoted(title + where), d);
    return plot;
  }
  const uint32_t dx = varied[0];
  const uint32_t dy = varied[1];
  std::map<std::pair<double, double>, double> best;  // (B_x, B_y) -> least time (ms)
  for (uint64_t p = 0; p < plan.AllocationCount(); ++p) {
    if (!table.Done(p)) continue;
    const std::vector<double>& b = table.Bandwidths(p);
    const double t = table.TimeNs(p) / 1e6;
    auto [it, fresh] = best.emplace(std::make_pair(b[dx], b[dy]), t);
    if (!fresh) it->second = std::min(it->second, t);
  }
  if (best.empty()) return std::nullopt;
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& [key, t] : best) {
    xs.push_back(key.first);
    ys.push_back(key.second);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  const double half_x = Spacing(xs) / 2;
  const double half_y = Spacing(ys) / 2;
  PlotScript plot{"heatmap.gp", "heatmap.png", Header("heatmap.png") + "$cells << EOD\n"};
  for (const auto& [key, t] : best) plot.script += fmt::format("{} {} {}\n", key.first, key.second, t);
  const bool others = varied.size() > 2;
  plot.script += fmt::format(
      "EOD\nset title {}\nset xlabel 'dimension {} bandwidth (GB/s per NPU)'\n"
      "set ylabel 'dimension {} bandwidth (GB/s per NPU)'\nset cblabel {}\n"
      "set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')\nset style fill solid\n"
      "set logscale cb\n"
      "set xrange [{}:{}]\nset yrange [{}:{}]\n"
      "plot $cells using 1:2:({}):({}):3 with boxxyerror fillcolor palette notitle\n",
      GnuplotQuoted(title + where), dx, dy,
      GnuplotQuoted(others ? "time (ms), best over the other dimensions" : "time (ms)"),
      xs.front() - half_x, xs.back() + half_x, ys.front() - half_y, ys.back() + half_y, half_x,
      half_y);
  return plot;
}

std::optional<PlotScript> FrontierPlot(const SweepPlan& plan, SweepTable& table,
                                       const std::vector<CombinationSummary>& summary,
                                       const std::string& title) {
  static const char* kColours[] = {"#4472c4", "#ed7d31", "#70ad47", "#7030a0",
                                   "#c00000", "#00b0f0", "#806000", "#404040"};
  PlotScript plot{"frontier.gp", "frontier.png", Header("frontier.png")};
  std::string plots;
  size_t drawn = 0;
  for (const CombinationSummary& s : summary) {
    if (drawn == kMaxCombinationsDrawn || !plan.Combinations()[s.combination].cost) continue;
    if (s.points == 0) continue;
    const uint64_t stride = (s.points + kMaxScatterPoints - 1) / kMaxScatterPoints;
    plot.script += fmt::format("$points{} << EOD\n", drawn);
    uint64_t seen = 0;
    const uint64_t per = plan.AllocationCount();
    for (uint64_t p = s.combination * per; p < (s.combination + 1) * per; ++p) {
      if (!table.Done(p) || seen++ % stride != 0) continue;
      plot.script += fmt::format("{} {}\n", *table.CostUsd(p) / 1e6, table.TimeNs(p) / 1e6);
    }
    plot.script += fmt::format("EOD\n$frontier{} << EOD\n", drawn);
    for (uint64_t p : s.frontier) {
      plot.script += fmt::format("{} {}\n", *table.CostUsd(p) / 1e6, table.TimeNs(p) / 1e6);
    }
    plot.script += "EOD\n";
    const std::string label = summary.size() > 1 ? CombinationLabel(plan, s.combination) : "";
    plots += fmt::format(
        "{}$points{} using 1:2 with points pointtype 7 pointsize 0.4 linecolor rgb '{}' title {}, "
        "$frontier{} using 1:2 with lines linewidth 2 linecolor rgb '{}' {}",
        plots.empty() ? "" : ", ", drawn, kColours[drawn],
        GnuplotQuoted(label.empty() ? "allocations" : label), drawn, kColours[drawn],
        drawn == 0 ? "title 'Pareto frontier'" : "notitle");
    ++drawn;
  }
  if (drawn == 0) return std::nullopt;
  plot.script += fmt::format(
      "set title {}\nset xlabel 'network cost (M$)'\nset ylabel 'time (ms)'\nset logscale y\n"
      "set grid\nset key top right\nplot {}\n",
      GnuplotQuoted(title), plots);
  return plot;
}

}  // namespace hfsim
