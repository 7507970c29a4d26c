// The axes of a sweep's pictures over bandwidth grids: distinct values, their ticks and labels,
// and the heat map's cells, which tile the plane however uneven the grid's steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hfsim {

/// Above this many values an axis lists no ticks of its own (gnuplot's read better) or, on a
/// heat map axis of one cell per value, labels every n-th.
inline constexpr size_t kMaxTicsListed = 12;

/// The values sorted, each once.
std::vector<double> Distinct(std::vector<double> values);

/// A tick at each value, as written, when there are at most kMaxTicsListed; else nothing.
std::string GridTics(std::string_view axis, const std::vector<double>& values);

/// 'dimension <d> bandwidth (GB/s per NPU)<note>', quoted for gnuplot.
std::string BandwidthLabel(uint32_t d, std::string_view note = "");

/// A heat map axis. Evenly spaced values are drawn where they are; uneven ones (steps of 10, 20,
/// 40, ..., or a list) one cell each, labelled with their values, so small steps stay as visible
/// as large ones. Either way each cell reaches halfway to its neighbours: the cells tile.
struct GridAxis {
  explicit GridAxis(const std::vector<double>& all);

  std::vector<double> values;  ///< sorted, distinct
  bool by_index = false;       ///< one cell per value, at 0, 1, 2, ...
  std::vector<double> edges;   ///< values.size() + 1 cell edges, in plot coordinates

  size_t Index(double value) const;
  double Position(double value) const;  ///< where `value`'s cell is centred
  std::string Tics(std::string_view axis) const;
  std::string Label(uint32_t d) const;
};

}  // namespace hfsim
