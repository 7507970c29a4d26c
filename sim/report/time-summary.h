// How long messages took, as a report states it: count, mean and percentiles of a list of
// times. The message runtime (sim/messages/executor-stats.h) summarises its measurements with
// it; PacketReport carries the result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hfsim {

/// count, mean and nearest-rank percentiles (p50 = value at rank ceil(0.5 count)), ns.
struct TimeSummary {
  uint64_t count = 0;
  double mean_ns = 0.0;
  double p50_ns = 0.0;
  double p99_ns = 0.0;
  double max_ns = 0.0;
};

/// Summary of `values` (taken by value: it is partially reordered). All zero when empty.
inline TimeSummary Summarise(std::vector<double> values) {
  TimeSummary summary;
  summary.count = values.size();
  if (values.empty()) return summary;
  double sum = 0.0;
  for (double v : values) sum += v;
  summary.mean_ns = sum / static_cast<double>(values.size());
  auto rank = [&](double fraction) {
    const auto at = static_cast<size_t>(std::ceil(fraction * static_cast<double>(values.size())));
    const size_t index = std::clamp<size_t>(at, 1, values.size()) - 1;
    std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(index), values.end());
    return values[index];
  };
  summary.p50_ns = rank(0.5);
  summary.p99_ns = rank(0.99);
  summary.max_ns = *std::max_element(values.begin(), values.end());
  return summary;
}

}  // namespace hfsim
