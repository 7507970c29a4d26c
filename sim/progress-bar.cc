#include "sim/progress-bar.h"

#include <cstdio>

#include <fmt/format.h>

namespace hfsim {

namespace {

std::string Rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M/s", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f} k/s", per_second / 1e3);
  return fmt::format("{:.2f} /s", per_second);
}

std::string Clock(double seconds) {
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::string label, uint64_t total, uint64_t already, bool enabled)
    : m_label(std::move(label)), m_total(total), m_already(already), m_enabled(enabled),
      m_start(std::chrono::steady_clock::now()), m_last(m_start) {}

std::string ProgressBar::Render(const std::string& label, uint64_t done, uint64_t total,
                                uint64_t already, double seconds) {
  constexpr int kWidth = 30;
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kWidth);
  const double rate = seconds > 0 ? static_cast<double>(done - already) / seconds : 0.0;
  const std::string left =
      rate > 0 ? Clock(static_cast<double>(total - done) / rate) : std::string("?");
  return fmt::format("{} [{}{}] {:5.1f}% {}/{} {} left {}", label, std::string(filled, '#'),
                     std::string(kWidth - filled, '.'), fraction * 100.0, done, total, Rate(rate),
                     left);
}

void ProgressBar::Update(uint64_t done) {
  if (!m_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (m_drawn && now - m_last < std::chrono::milliseconds(200) && done < m_total) return;
  m_last = now;
  const double seconds = std::chrono::duration<double>(now - m_start).count();
  std::fprintf(stderr, "\r%s\x1b[K", Render(m_label, done, m_total, m_already, seconds).c_str());
  std::fflush(stderr);
  m_drawn = true;
}

void ProgressBar::Finish() {
  if (!m_enabled || !m_drawn) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  m_drawn = false;
}

}  // namespace hfsim
