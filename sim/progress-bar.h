// A one-line progress bar for long runs, redrawn in place on a terminal at most 5 times a
// second: bar, percentage, points done, rate and time left. Off when stderr is not a terminal,
// so logs and CI output stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hfsim {

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
  bool m_enabled;
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_last;
};

}  // namespace hfsim
