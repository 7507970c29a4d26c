// Kahn's topological order that always takes the smallest ready index: deterministic, and it
// keeps the given order wherever dependencies allow. Shared by the schedule (units of a graph)
// and the reader of hand-written graphs (nodes of a program).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace hfsim {

/// `pending[i]`: how many waits of item i are unmet; `waiters[i]`: the items waiting on i, one
/// entry per wait. Items with `take(i)` false are left out. Returns the items in order; any
/// item left with pending[i] > 0 afterwards waits, directly or not, on itself.
template <typename Take>
std::vector<uint32_t> SmallestFirstOrder(std::vector<uint32_t>& pending,
                                         const std::vector<std::vector<uint32_t>>& waiters,
                                         Take&& take) {
  std::vector<uint32_t> order, ready;
  for (uint32_t i = 0; i < pending.size(); ++i) {
    if (take(i) && pending[i] == 0) ready.push_back(i);
  }
  std::make_heap(ready.begin(), ready.end(), std::greater<>());
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    const uint32_t item = ready.back();
    ready.pop_back();
    order.push_back(item);
    for (const uint32_t waiter : waiters[item]) {
      if (--pending[waiter] == 0) {
        ready.push_back(waiter);
        std::push_heap(ready.begin(), ready.end(), std::greater<>());
      }
    }
  }
  return order;
}

}  // namespace hfsim
