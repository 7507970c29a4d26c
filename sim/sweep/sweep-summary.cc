#include "sim/sweep/sweep-summary.h"

#include <algorithm>

#include <fmt/format.h>

namespace hfsim {

std::vector<CombinationSummary> SummariseSweep(const SweepPlan& plan, SweepTable& table) {
  std::vector<CombinationSummary> summary;
  const uint64_t per = plan.AllocationCount();
  for (uint64_t c = 0; c < plan.Combinations().size(); ++c) {
    CombinationSummary s;
    s.combination = c;
    const bool priced = plan.Combinations()[c].cost.has_value();
    std::vector<std::pair<double, uint64_t>> by_cost;  // (cost, point)
    double best_product = 0.0;
    for (uint64_t p = c * per; p < (c + 1) * per; ++p) {
      if (!table.Done(p)) continue;
      ++s.points;
      const double time = table.TimeNs(p);
      if (!s.fastest || time < table.TimeNs(*s.fastest)) s.fastest = p;
      if (!priced) continue;
      const double cost = *table.CostUsd(p);
      by_cost.emplace_back(cost, p);
      if (!s.best_time_x_cost || time * cost < best_product) {
        s.best_time_x_cost = p;
        best_product = time * cost;
      }
    }
    // Frontier: scan by cost (ties: faster first, then lower point) keeping strict improvements.
    std::sort(by_cost.begin(), by_cost.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      const double ta = table.TimeNs(a.second);
      const double tb = table.TimeNs(b.second);
      return ta != tb ? ta < tb : a.second < b.second;
    });
    for (const auto& [cost, p] : by_cost) {
      if (s.frontier.empty() || table.TimeNs(p) < table.TimeNs(s.frontier.back())) {
        s.frontier.push_back(p);
      }
    }
    summary.push_back(std::move(s));
  }
  return summary;
}

namespace {

nlohmann::json PointJson(SweepTable& table, uint64_t point) {
  nlohmann::json out = {{"point", point},
                        {"bandwidth_GBps", table.Bandwidths(point)},
                        {"time_ns", table.TimeNs(point)}};
  if (auto cost = table.CostUsd(point)) {
    out["cost_usd"] = *cost;
    out["time_x_cost_ns_usd"] = table.TimeNs(point) * *cost;
  }
  return out;
}

std::string Allocation(SweepTable& table, uint64_t point) {
  std::string out;
  for (double b : table.Bandwidths(point)) out += fmt::format("{}{:g}", out.empty() ? "" : " / ", b);
  return out + " GB/s";
}

}  // namespace

nlohmann::json SweepSummaryJson(const SweepPlan& plan, SweepTable& table,
                                const std::vector<CombinationSummary>& summary) {
  nlohmann::json out = nlohmann::json::array();
  for (const CombinationSummary& s : summary) {
    nlohmann::json entry = {{"combination", s.combination}, {"points", s.points}};
    nlohmann::json parameters = nlohmann::json::object();
    for (size_t i = 0; i < plan.Parameters().size(); ++i) {
      const SweepParameter& p = plan.Parameters()[i];
      // The combination's value of parameter i: the same mixed radix as SweepPlan::Build.
      uint64_t rest = s.combination;
      for (size_t j = plan.Parameters().size(); j-- > i + 1;) rest /= plan.Parameters()[j].values.size();
      parameters[p.path] = p.values[rest % p.values.size()];
    }
    entry["parameters"] = parameters;
    if (s.fastest) entry["fastest"] = PointJson(table, *s.fastest);
    if (s.best_time_x_cost) entry["best_time_x_cost"] = PointJson(table, *s.best_time_x_cost);
    nlohmann::json frontier = nlohmann::json::array();
    for (uint64_t p : s.frontier) frontier.push_back(p);
    entry["frontier_points"] = frontier;
    out.push_back(entry);
  }
  return out;
}

std::string SweepSummaryText(const SweepPlan& plan, SweepTable& table,
                             const std::vector<CombinationSummary>& summary) {
  std::string out;
  for (const CombinationSummary& s : summary) {
    if (summary.size() > 1) {
      out += "combination";
      for (size_t i = 0; i < plan.Parameters().size(); ++i) {
        out += fmt::format(" {}={}", plan.Parameters()[i].path,
                           plan.Combinations()[s.combination].cells[i]);
      }
      out += "\n";
    }
    if (!s.fastest) {
      out += "  no points recorded\n";
      continue;
    }
    out += fmt::format("  {:<18} {:.6g} ms at {} (point {})\n", "fastest",
                       table.TimeNs(*s.fastest) / 1e6, Allocation(table, *s.fastest), *s.fastest);
    if (s.best_time_x_cost) {
      const uint64_t p = *s.best_time_x_cost;
      out += fmt::format("  {:<18} {:.6g} ms x {:.6g} $ at {} (point {})\n", "best time x cost",
                         table.TimeNs(p) / 1e6, *table.CostUsd(p), Allocation(table, p), p);
      out += fmt::format("  {:<18} {} points\n", "cost frontier", s.frontier.size());
    }
  }
  return out;
}

}  // namespace hfsim
