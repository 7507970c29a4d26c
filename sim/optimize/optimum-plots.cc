#include "sim/optimize/optimum-plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/cost-model.h"
#include "sim/optimize/polytope.h"
#include "sim/optimize/time-model.h"
#include "topologies/topology.h"

namespace hfsim {

namespace {

constexpr int kSamples = 81;     // points per curve, evenly spaced on a log axis
constexpr double kWindow = 4.0;  // a curve spans the optimum's bandwidth / 4 to x 4, if feasible
// ... and only while the time stays within this factor of the optimum's, so the neighbourhood
// of the optimum fills the panel rather than the starved ends (the time is convex along the
// line, so what is kept is one piece).
constexpr double kMaxSlowdown = 2.0;
// Relative tolerances: of a verified allocation lying on a panel's line; of a sample meeting
// the constraints (the optimiser's own, for the equal split); of a constraint the optimum meets
// with equality.
constexpr double kSameAllocation = 1e-6;
constexpr double kContainsTolerance = 1e-9;
constexpr double kBinding = 1e-6;

// The series every picture shares: the model's curve, the optimum, the equal split and the two
// engines' runs of --verify.
const std::string kModel = fmt::format(
    "with linespoints pointtype 7 pointsize 0.5 linewidth 2 "
    "linecolor rgb '{}'",
    kSeriesColours[0]);
const std::string kOptimum =
    fmt::format("with points pointtype 5 pointsize 2 linecolor rgb '{}'", kSeriesColours[1]);
const std::string kEqual =
    fmt::format("with points pointtype 9 pointsize 2 linecolor rgb '{}'", kSeriesColours[2]);
const std::string kAnalytical = fmt::format(
    "with points pointtype 6 pointsize 2.5 linecolor rgb "
    "'{}' title 'analytical engine (--verify)'",
    kSeriesColours[3]);
// The checking engine's series, named for it (packet or flow).
std::string CheckedStyle(const std::vector<VerifyRow>& verified) {
  const EngineKind kind = verified.empty() ? EngineKind::kPacket : verified.front().checked_by;
  return fmt::format(
      "with points pointtype 13 pointsize 2 linecolor rgb '{}' title '{} engine "
      "(--verify)'",
      kSeriesColours[4], ToString(kind));
}

// Rows "x analytical_ms checked_ms" of the verified runs, and the two series that draw them.
std::string VerifiedSeries(std::string_view block, const std::vector<VerifyRow>& verified) {
  return fmt::format(", ${0} using 1:2 {1}, ${0} using 1:3 {2}", block, kAnalytical,
                     CheckedStyle(verified));
}

PlotScript FrontierPlot(const OptimizeOutcome& outcome, const Scenario& scenario,
                        const std::vector<VerifyRow>& verified) {
  std::string script = GnuplotHeader("frontier.png", 900, 560);
  std::string rows;
  Span times;
  for (const FrontierPoint& p : outcome.frontier) {
    rows += fmt::format("{} {}\n", p.allocation.cost_usd / 1e6, p.allocation.time_ns / 1e6);
    times.Add(p.allocation.time_ns / 1e6);
  }
  script += DataBlock("frontier", rows) +
            DataBlock("best", fmt::format("{} {}\n", outcome.best.cost_usd / 1e6,
                                          outcome.best.time_ns / 1e6));
  std::string extra;
  if (outcome.equal_split) {
    script += DataBlock("equal", fmt::format("{} {}\n", outcome.equal_split->cost_usd / 1e6,
                                             outcome.equal_split->time_ns / 1e6));
    extra += ", $equal using 1:2 " + kEqual + " title 'equal split'";
    times.Add(outcome.equal_split->time_ns / 1e6);
  }
  if (!verified.empty()) {
    std::string runs;
    for (const VerifyRow& r : verified) {
      runs += fmt::format("{} {} {}\n", r.candidate.allocation.cost_usd / 1e6,
                          r.analytical_ns / 1e6, r.simulated_ns / 1e6);
      times.Add(r.simulated_ns / 1e6);
    }
    script += DataBlock("verified", runs);
    extra += VerifiedSeries("verified", verified);
  }
  return PlotScript{
      "frontier.gp", "frontier.png",
      script + fmt::format("set title {}\nset xlabel 'network cost (M$)'\n"
                           "set ylabel 'iteration time (ms)'\nset grid\nset key top right\n{}"
                           "plot $frontier using 1:2 {} title 'optimal time per budget', "
                           "$best using 1:2 {} title {}{}\n",
                           GnuplotQuoted(fmt::format("{}: time vs network cost ({})", scenario.name,
                                                     ToString(outcome.objective))),
                           AxisScale("y", times.low, times.high), kModel, kOptimum,
                           GnuplotQuoted(outcome.objective == OptimizeObjective::kTimeXCost
                                             ? "best time x cost"
                                             : "optimum"),
                           extra)};
}

// The allocation with B_d = x on the line through `best` along which dimension d moves: the
// other dimensions of positive `weight` scale together so that sum_k weight_k B_k (the total,
// or the cost) stays the optimum's; the rest keep their bandwidth.
std::vector<double> Moved(const std::vector<double>& best, uint32_t d, double x,
                          const std::vector<double>& weight) {
  double held = 0.0;
  for (size_t k = 0; k < best.size(); ++k) held += k != d ? weight[k] * best[k] : 0.0;
  std::vector<double> b = best;
  b[d] = x;
  for (size_t k = 0; k < best.size(); ++k) {
    if (k != d && weight[k] > 0.0) b[k] *= 1.0 + weight[d] * (best[d] - x) / held;
  }
  return b;
}

bool Same(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t k = 0; k < a.size(); ++k) {
    if (std::abs(a[k] - b[k]) > kSameAllocation * std::max(1.0, std::abs(b[k]))) return false;
  }
  return true;
}

// One dimension's panel: its blocks (suffix = the panel number) and its plot command.
struct Panel {
  std::string blocks;
  std::string commands;
};

std::optional<Panel> DimensionPanel(const OptimizeOutcome& outcome, const Scenario& scenario,
                                    const std::vector<VerifyRow>& verified, const TimeModel& model,
                                    const Polytope& feasible, const std::vector<double>& weight,
                                    uint32_t d, size_t n) {
  const std::vector<double>& best = outcome.best.bandwidth_GBps;
  std::vector<double> xs{best[d]};
  for (int i = 0; i < kSamples; ++i) {
    xs.push_back(best[d] * std::pow(kWindow, 2.0 * i / (kSamples - 1) - 1.0));
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::string curve;
  Span x_span;
  Span y_span;
  for (double x : xs) {
    const std::vector<double> b = Moved(best, d, x, weight);
    const bool positive = std::all_of(b.begin(), b.end(), [](double v) { return v > 0.0; });
    // The optimum itself is drawn even where the LP's rounding puts it a hair outside.
    if (x != best[d] && (!positive || !feasible.Contains(b, kContainsTolerance))) continue;
    const double ms = model.TimeNs(b) / 1e6;
    if (ms > kMaxSlowdown * outcome.best.time_ns / 1e6) continue;
    curve += fmt::format("{} {}\n", x, ms);
    x_span.Add(x);
    y_span.Add(ms);
  }
  if (!(x_span.high > x_span.low)) return std::nullopt;  // pinned by the constraints
  // Points of the line only, within the curve's span.
  auto on_line = [&](const std::vector<double>& a) {
    return a[d] >= x_span.low && a[d] <= x_span.high && Same(Moved(best, d, a[d], weight), a);
  };
  Panel panel;
  panel.blocks = DataBlock(fmt::format("curve{}", n), curve) +
                 DataBlock(fmt::format("optimum{}", n),
                           fmt::format("{} {}\n", best[d], outcome.best.time_ns / 1e6));
  panel.commands = fmt::format(
      "$curve{0} using 1:2 {1} title 'time model', $optimum{0} using 1:2 "
      "{2} title 'optimum'",
      n, kModel, kOptimum);
  if (outcome.equal_split && on_line(outcome.equal_split->bandwidth_GBps)) {
    panel.blocks += DataBlock(fmt::format("equal{}", n),
                              fmt::format("{} {}\n", outcome.equal_split->bandwidth_GBps[d],
                                          outcome.equal_split->time_ns / 1e6));
    panel.commands += fmt::format(", $equal{} using 1:2 {} title 'equal split'", n, kEqual);
  }
  std::string runs;
  for (const VerifyRow& r : verified) {
    const std::vector<double>& a = r.candidate.allocation.bandwidth_GBps;
    if (!on_line(a)) continue;
    runs += fmt::format("{} {} {}\n", a[d], r.analytical_ns / 1e6, r.simulated_ns / 1e6);
    y_span.Add(r.simulated_ns / 1e6);
  }
  if (!runs.empty()) {
    panel.blocks += DataBlock(fmt::format("verified{}", n), runs);
    panel.commands += VerifiedSeries(fmt::format("verified{}", n), verified);
  }
  const Dimension& dim = scenario.dimensions[d];
  panel.commands = fmt::format(
      "set title {}\nset xlabel {}\n{}{}plot {}\n",
      GnuplotQuoted(fmt::format("dimension {}: {} {}", d, ToString(dim.kind), dim.size)),
      GnuplotQuoted(fmt::format("dimension {} bandwidth (GB/s per NPU)", d)),
      AxisScale("x", x_span.low, x_span.high), AxisScale("y", y_span.low, y_span.high),
      panel.commands);
  return panel;
}

PlotSet BandwidthPlot(const OptimizeOutcome& outcome, const Scenario& scenario,
                      const std::vector<VerifyRow>& verified) {
  const OptimizeSpec& spec = scenario.optimize;
  const auto dims = static_cast<uint32_t>(scenario.dimensions.size());
  // The same constraints the optimiser solved under, its budget included.
  Polytope feasible = BuildPolytope(spec, dims);
  std::vector<double> marginal;  // $ per GB/s of each dimension
  if (outcome.budget_usd) {
    const CostModel cost(spec.cost.unit_usd_per_GBps, Topology(scenario.dimensions).NpuCount());
    for (uint32_t d = 0; d < dims; ++d) marginal.push_back(cost.MarginalUsdPerGBps(d));
    feasible.Add(BudgetRow(marginal, *outcome.budget_usd));
  }
  std::vector<bool> fixed(dims, false);
  for (const FixedBandwidth& f : spec.fixed) fixed[f.dimension] = true;
  // What the other dimensions hold as one moves: the total where it binds, else the budget
  // where it binds (weights: the dimensions' prices), else nothing.
  const std::vector<double>& best = outcome.best.bandwidth_GBps;
  const auto& total = spec.total_bandwidth_GBps_per_npu;
  std::vector<double> weight(dims, 0.0);
  std::string others = "the others keep theirs";
  if (total && (spec.total == TotalRelation::kEqual ||
                std::accumulate(best.begin(), best.end(), 0.0) >= *total * (1 - kBinding))) {
    weight.assign(dims, 1.0);
    others = "the others share the rest of the total";
  } else if (outcome.budget_usd && outcome.best.cost_usd >= *outcome.budget_usd * (1 - kBinding)) {
    weight = marginal;
    others = "the others keep the cost at the budget";
  }
  for (uint32_t d = 0; d < dims; ++d) weight[d] = fixed[d] ? 0.0 : weight[d];
  const TimeModel model(scenario);
  std::string blocks;
  std::vector<std::string> panels;
  for (uint32_t d = 0; d < dims; ++d) {
    if (fixed[d]) continue;
    auto panel =
        DimensionPanel(outcome, scenario, verified, model, feasible, weight, d, panels.size());
    if (!panel) continue;
    blocks += panel->blocks;
    panels.push_back(panel->commands);
  }
  PlotSet set;
  if (panels.empty()) {
    set.notes.push_back(
        "no bandwidth.png: the constraints leave no dimension's bandwidth room "
        "to move around the optimum, so there is no curve to draw");
    return set;
  }
  const size_t columns = std::min<size_t>(panels.size(), panels.size() == 4 ? 2 : 3);
  const size_t rows = (panels.size() + columns - 1) / columns;
  std::string script =
      GnuplotHeader("bandwidth.png", columns == 1 ? 900 : 460 * columns,
                    rows == 1 ? 560 : 440 * rows) +
      blocks +
      fmt::format(
          "set multiplot layout {},{} title {}\nset grid\n"
          "set ylabel 'iteration time (ms)'\nset key top center\n",
          rows, columns,
          GnuplotQuotedLines({fmt::format("{}: iteration time around the optimum ({})",
                                          scenario.name, ToString(outcome.objective)),
                              "as one dimension's bandwidth moves, " + others}));
  for (const std::string& panel : panels) script += panel;
  set.plots.push_back({"bandwidth.gp", "bandwidth.png", script + "unset multiplot\n"});
  return set;
}

}  // namespace

PlotSet OptimumPlots(const OptimizeOutcome& outcome, const Scenario& scenario,
                     const std::vector<VerifyRow>& verified) {
  if (outcome.frontier.size() >= 2) return PlotSet{{FrontierPlot(outcome, scenario, verified)}, {}};
  return BandwidthPlot(outcome, scenario, verified);
}

}  // namespace hfsim
