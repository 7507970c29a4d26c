#include "sim/sweep/sweep-table.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace hfsim {

SweepTable::SweepTable(const SweepPlan& plan)
    : m_plan(&plan), m_walker(plan.Space()), m_time_ns(plan.PointCount(), 0.0),
      m_done(plan.PointCount(), 0) {}

std::string SweepTable::Header() const {
  std::string header = "point";
  for (const SweepParameter& p : m_plan->Parameters()) header += "," + p.path;
  for (uint32_t d = 0; d < m_plan->Space().DimensionCount(); ++d) {
    header += fmt::format(",B{}_GBps", d);
  }
  return header + ",total_GBps,time_ns,cost_usd,time_x_cost_ns_usd\n";
}

void SweepTable::Record(uint64_t point, double time_ns) {
  if (m_done[point] == 0) ++m_done_count;
  m_done[point] = 1;
  m_time_ns[point] = time_ns;
}

const std::vector<double>& SweepTable::Bandwidths(uint64_t point) {
  return m_plan->Bandwidths(m_walker, point);
}

std::optional<double> SweepTable::CostUsd(uint64_t point) {
  const auto& cost = m_plan->Combinations()[point / m_plan->AllocationCount()].cost;
  if (!cost) return std::nullopt;
  return cost->CostUsd(Bandwidths(point));
}

void SweepTable::AppendRow(uint64_t point, std::string& out) {
  const SweepCombination& combination = m_plan->Combinations()[point / m_plan->AllocationCount()];
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}", point);
  for (const std::string& cell : combination.cells) fmt::format_to(it, ",{}", cell);
  const std::vector<double>& bandwidths = Bandwidths(point);
  double total = 0.0;
  for (double b : bandwidths) {
    fmt::format_to(it, ",{}", b);
    total += b;
  }
  const double time_ns = m_time_ns[point];
  fmt::format_to(it, ",{:.12g},{}", total, time_ns);
  if (combination.cost) {
    const double cost = combination.cost->CostUsd(bandwidths);
    fmt::format_to(it, ",{},{}\n", cost, time_ns * cost);
  } else {
    out += ",,\n";
  }
}

std::string SweepTable::Csv() {
  std::string out = Header();
  out.reserve(out.size() + m_done_count * 96);
  for (uint64_t p = 0; p < m_done.size(); ++p) {
    if (m_done[p] != 0) AppendRow(p, out);
  }
  return out;
}

std::optional<std::string> SweepTable::Load(const std::string& text, const std::string& name,
                                            Loaded& loaded) {
  const std::string header = Header();
  if (text.size() < header.size() && header.compare(0, text.size(), text) == 0) {
    // The writer was stopped before its header was whole (or written at all): no rows yet.
    loaded = Loaded{0, 0};
    return std::nullopt;
  }
  if (text.compare(0, header.size(), header) != 0) {
    return fmt::format("{}: its header is not this sweep's (expected \"{}\"); it was written "
                       "for another scenario: remove it or use another --out directory",
                       name, header.substr(0, header.size() - 1));
  }
  size_t at = header.size();
  uint64_t line = 1;
  loaded = Loaded{0, header.size()};
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) break;  // a row cut short by an interrupted writer
    ++line;
    const std::string_view row(text.data() + at, end - at);
    // point is the first field; time_ns the third from the end (parameter cells may be quoted
    // and hold commas, the last three never do).
    uint64_t point = 0;
    const auto [point_end, point_error] = std::from_chars(row.data(), row.data() + row.size(), point);
    const size_t c3 = row.rfind(',');
    const size_t c2 = c3 == std::string_view::npos ? c3 : row.rfind(',', c3 - 1);
    const size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos
                                                              : row.rfind(',', c2 - 1);
    double time_ns = 0.0;
    bool ok = point_error == std::errc() && *point_end == ',' && c1 != std::string_view::npos &&
              point < m_done.size();
    if (ok) {
      const auto [time_end, time_error] = std::from_chars(row.data() + c1 + 1, row.data() + c2, time_ns);
      ok = time_error == std::errc() && time_end == row.data() + c2 && std::isfinite(time_ns);
    }
    if (!ok) {
      return fmt::format("{}: line {}: not a row of this sweep: \"{}\"", name, line,
                         std::string(row.substr(0, 80)));
    }
    Record(point, time_ns);
    ++loaded.rows;
    at = end + 1;
    loaded.valid_bytes = at;
  }
  return std::nullopt;
}

}  // namespace hfsim
