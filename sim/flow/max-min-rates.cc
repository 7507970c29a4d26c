#include "sim/flow/max-min-rates.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

std::vector<double> MaxMinRates(const std::vector<double>& capacity,
                                std::span<const FlowDemand> flows) {
  const size_t link_count = capacity.size();
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<double> left = capacity;               // capacity not yet handed out
  std::vector<uint32_t> unfrozen_on(link_count, 0);  // unfrozen flows per link
  std::vector<bool> frozen(flows.size(), false);
  size_t unfrozen = 0;
  for (uint32_t f = 0; f < flows.size(); ++f) {
    if (flows[f].links.empty()) {  // nothing shared: its own cap
      rate[f] = flows[f].cap;
      frozen[f] = true;
      continue;
    }
    for (const uint32_t l : flows[f].links) {
      if (l >= link_count) throw std::out_of_range("MaxMinRates: a flow names a missing link");
      ++unfrozen_on[l];
    }
    ++unfrozen;
  }
  // The flows of each link, as one array: link l's are on_link[start[l]] to on_link[start[l+1]).
  std::vector<uint32_t> start(link_count + 1, 0);
  for (size_t l = 0; l < link_count; ++l) start[l + 1] = start[l] + unfrozen_on[l];
  std::vector<uint32_t> on_link(start[link_count]);
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (uint32_t f = 0; f < flows.size(); ++f) {
      for (const uint32_t l : flows[f].links) on_link[fill[l]++] = f;
    }
  }
  auto freeze = [&](uint32_t f) {
    frozen[f] = true;
    --unfrozen;
    for (const uint32_t l : flows[f].links) --unfrozen_on[l];
  };
  // Each round raises every unfrozen flow by the largest step no link or cap forbids; at least
  // one link saturates or one flow reaches its cap, so there are at most links + flows rounds.
  while (unfrozen > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (size_t l = 0; l < link_count; ++l) {
      if (unfrozen_on[l] > 0) step = std::min(step, left[l] / unfrozen_on[l]);
    }
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!frozen[f]) step = std::min(step, flows[f].cap - rate[f]);
    }
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!frozen[f]) rate[f] += step;
    }
    for (size_t l = 0; l < link_count; ++l) left[l] -= step * unfrozen_on[l];
    // Freeze what is now bound: flows at their cap, then every flow of a saturated link (a
    // relative tolerance absorbs the rounding of the subtractions above).
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!frozen[f] && rate[f] >= flows[f].cap) freeze(f);
    }
    for (size_t l = 0; l < link_count; ++l) {
      if (unfrozen_on[l] == 0 || left[l] > 1e-12 * capacity[l]) continue;
      for (uint32_t i = start[l]; i < start[l + 1]; ++i) {
        if (!frozen[on_link[i]]) freeze(on_link[i]);
      }
    }
  }
  return rate;
}

}  // namespace hfsim
