#include "sim/runs/run-progress.h"

#include <fmt/format.h>

namespace hfsim {

namespace {

// "812 ns", "3.42 µs", "1.234 ms", "2.5 s": simulated time for people.
std::string SimulatedTime(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} µs", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

}  // namespace

RunProgress::RunProgress(std::string label, double expected_ns, bool enabled)
    : m_label(std::move(label)), m_expected_ns(expected_ns), m_line(enabled) {}

std::string RunProgress::Render(const std::string& label, double simulated_ns, double expected_ns,
                                uint64_t events, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(events) / seconds : 0.0;
  std::string line = fmt::format("{}: {} simulated", label, SimulatedTime(simulated_ns));
  // The estimate is the analytical engine's, which sees no queues: a congested run goes past it,
  // and then no time left can be promised.
  if (expected_ns > 0 && simulated_ns <= expected_ns) {
    line += fmt::format(" of about {} ({:.0f}%)", SimulatedTime(expected_ns),
                        100.0 * simulated_ns / expected_ns);
  } else if (expected_ns > 0) {
    line += fmt::format(", past the analytical {}", SimulatedTime(expected_ns));
  }
  line += fmt::format(", {} event{}, {}", events, events == 1 ? "" : "s", RateText(rate, "event"));
  if (expected_ns > 0 && simulated_ns > 0 && simulated_ns <= expected_ns && seconds > 0) {
    line += fmt::format(", about {} left", ClockText(seconds * (expected_ns / simulated_ns - 1.0)));
  }
  return line;
}

void RunProgress::Update(double simulated_ns, uint64_t events) {
  if (!m_line.Enabled()) return;
  m_line.Draw(Render(m_label, simulated_ns, m_expected_ns, events, m_line.Seconds()));
}

void RunProgress::Finish() { m_line.Clear(); }

}  // namespace hfsim
