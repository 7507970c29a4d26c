#include "sim/messages/event-loop.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

namespace {

// Orders the heap so that its front is the earliest event (ties: the first scheduled).
bool Later(const auto& a, const auto& b) {
  return a.at != b.at ? a.at > b.at : a.sequence > b.sequence;
}

}  // namespace

void EventLoop::ScheduleNs(double delay_ns, std::function<void()> callback) {
  if (!(delay_ns >= 0.0)) throw std::invalid_argument("EventLoop: a delay must be >= 0");
  m_heap.push_back({m_now + delay_ns, m_sequence++, std::move(callback)});
  std::push_heap(m_heap.begin(), m_heap.end(),
                 [](const Event& a, const Event& b) { return Later(a, b); });
}

uint64_t EventLoop::Run(uint64_t max_events) {
  uint64_t ran = 0;
  auto last_report = std::chrono::steady_clock::now();
  while (!m_heap.empty() && ran < max_events) {
    // The wall clock is read every 4,096 events only: a read costs more than most events.
    if (m_progress && (ran & 4095) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report >= m_progress_interval) {
        m_progress(m_now, ran);
        last_report = now;
      }
    }
    std::pop_heap(m_heap.begin(), m_heap.end(),
                  [](const Event& a, const Event& b) { return Later(a, b); });
    Event event = std::move(m_heap.back());
    m_heap.pop_back();
    m_now = event.at;
    event.callback();
    ++ran;
  }
  return ran;
}

}  // namespace hfsim
