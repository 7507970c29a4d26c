#include "sim/runs/progress-bar.h"

#include <cstdio>

#include <fmt/format.h>

namespace hfsim {

std::string ClockText(double seconds) {
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

double StatusLine::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void StatusLine::Draw(const std::string& line) {
  if (!m_enabled) return;
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
  m_drawn = true;
}

void StatusLine::Clear() {
  if (!m_drawn) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  m_drawn = false;
}

std::string RateText(double per_second, const std::string& item) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M {}s/s", per_second / 1e6, item);
  if (per_second >= 1e3) return fmt::format("{:.1f} k {}s/s", per_second / 1e3, item);
  if (per_second >= 1) return fmt::format("{:.1f} {}s/s", per_second, item);
  // Below one a second the inverse reads better: "0 points/s" said nothing.
  if (per_second > 0) return fmt::format("{:.1f} s/{}", 1.0 / per_second, item);
  return fmt::format("- {}s/s", item);
}

ProgressBar::ProgressBar(std::string label, uint64_t total, uint64_t already, bool enabled)
    : m_label(std::move(label)), m_total(total), m_already(already), m_line(enabled),
      m_last(std::chrono::steady_clock::now()) {}

std::string ProgressBar::Render(const std::string& label, uint64_t done, uint64_t total,
                                uint64_t already, double seconds) {
  constexpr int kWidth = 30;
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kWidth);
  const double rate = seconds > 0 ? static_cast<double>(done - already) / seconds : 0.0;
  const std::string left =
      rate > 0 ? ClockText(static_cast<double>(total - done) / rate) : std::string("?");
  return fmt::format("{} [{}{}] {:5.1f}% {}/{} {} left {}", label, std::string(filled, '#'),
                     std::string(kWidth - filled, '.'), fraction * 100.0, done, total,
                     RateText(rate, "point"), left);
}

void ProgressBar::Update(uint64_t done) {
  if (!m_line.Enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  if (m_line.Drawn() && now - m_last < std::chrono::milliseconds(200) && done < m_total) return;
  m_last = now;
  m_line.Draw(Render(m_label, done, m_total, m_already, m_line.Seconds()));
}

void ProgressBar::Finish() { m_line.Clear(); }

}  // namespace hfsim
