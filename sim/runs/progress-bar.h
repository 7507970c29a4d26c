// A one-line progress bar for long runs, redrawn in place on a terminal at most 5 times a
// second: bar, percentage, points done, rate and time left. Off when stderr is not a terminal,
// so logs and CI output stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hfsim {

/// A rate for people: "1.2 k points/s", "3.0 points/s", and below one a second "2.5 s/point".
std::string RateText(double per_second, const std::string& item);
/// Wall time as h:mm:ss, rounded to the second.
std::string ClockText(double seconds);

/// stderr's status line, redrawn in place: what every progress display shares. Off when not
/// enabled (stderr no terminal, or -q): then Draw and Clear do nothing.
class StatusLine {
 public:
  explicit StatusLine(bool enabled)
      : m_enabled(enabled), m_start(std::chrono::steady_clock::now()) {}
  bool Enabled() const { return m_enabled; }
  bool Drawn() const { return m_drawn; }
  /// Wall seconds since the display started.
  double Seconds() const;
  void Draw(const std::string& line);
  /// Removes the line if it is drawn (the caller prints its summary after).
  void Clear();

 private:
  bool m_enabled;
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start;
};

class ProgressBar {
 public:
  /// `total` points, of which `already` were done before this run (a resumed sweep).
  ProgressBar(std::string label, uint64_t total, uint64_t already, bool enabled);
  void Update(uint64_t done);
  /// Clears the line (the caller prints its summary after).
  void Finish();

  /// The line drawn for `done` of `total` after `seconds` (for tests).
  static std::string Render(const std::string& label, uint64_t done, uint64_t total,
                            uint64_t already, double seconds);

 private:
  std::string m_label;
  uint64_t m_total;
  uint64_t m_already;
  StatusLine m_line;
  std::chrono::steady_clock::time_point m_last;
};

}  // namespace hfsim
