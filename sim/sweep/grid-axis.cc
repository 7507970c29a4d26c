#include "sim/sweep/grid-axis.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "sim/report/gnuplot-script.h"

namespace hfsim {

namespace {

// Halfway to each neighbour, and the outer cells as wide outside as inside.
std::vector<double> CellEdges(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  if (n == 1) return {sorted[0] - 0.5, sorted[0] + 0.5};
  std::vector<double> edges{sorted[0] - (sorted[1] - sorted[0]) / 2};
  for (size_t i = 1; i < n; ++i) edges.push_back((sorted[i - 1] + sorted[i]) / 2);
  edges.push_back(sorted[n - 1] + (sorted[n - 1] - sorted[n - 2]) / 2);
  return edges;
}

}  // namespace

std::vector<double> Distinct(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

std::string GridTics(std::string_view axis, const std::vector<double>& values) {
  return values.size() <= kMaxTicsListed ? TicsAt(axis, values) : std::string();
}

std::string BandwidthLabel(uint32_t d, std::string_view note) {
  return GnuplotQuoted(fmt::format("dimension {} bandwidth (GB/s per NPU){}", d, note));
}

GridAxis::GridAxis(const std::vector<double>& all) : values(Distinct(all)) {
  double least = 0.0;
  double most = 0.0;
  for (size_t i = 1; i < values.size(); ++i) {
    const double gap = values[i] - values[i - 1];
    least = i == 1 ? gap : std::min(least, gap);
    most = std::max(most, gap);
  }
  // 1%: a grid written as from/to/step accumulates rounding in its values.
  by_index = most > 1.01 * least;
  std::vector<double> positions = values;
  for (size_t i = 0; by_index && i < values.size(); ++i) positions[i] = static_cast<double>(i);
  edges = CellEdges(positions);
}

size_t GridAxis::Index(double value) const {
  return std::lower_bound(values.begin(), values.end(), value) - values.begin();
}

double GridAxis::Position(double value) const {
  return by_index ? static_cast<double>(Index(value)) : value;
}

std::string GridAxis::Tics(std::string_view axis) const {
  if (!by_index) return GridTics(axis, values);
  const size_t every = (values.size() + kMaxTicsListed - 1) / kMaxTicsListed;
  std::vector<std::pair<std::string, double>> ticks;
  for (size_t i = 0; i < values.size(); i += every) {
    ticks.emplace_back(fmt::format("{}", values[i]), static_cast<double>(i));
  }
  return TicsLabelled(axis, ticks);
}

std::string GridAxis::Label(uint32_t d) const {
  return BandwidthLabel(d, by_index ? ", one cell per value" : "");
}

}  // namespace hfsim
