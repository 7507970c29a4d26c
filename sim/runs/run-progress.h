// The progress line of one long run on a terminal: simulated time reached, against the analytical
// engine's estimate of where the run ends when there is one, events run and their rate, and the
// time left at that rate. Drawn on stderr, in place; off when stderr is no terminal (logs and CI
// stay clean) or when the user asked for quiet.
#pragma once

#include <cstdint>
#include <string>

#include "sim/runs/progress-bar.h"

namespace hfsim {

class RunProgress {
 public:
  /// `expected_ns`: where the run is expected to end (0: unknown, no time left shown).
  RunProgress(std::string label, double expected_ns, bool enabled);
  /// Clears the line, so an error that ends the run is not printed on top of it.
  ~RunProgress() { Finish(); }
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;
  void Update(double simulated_ns, uint64_t events);
  /// Clears the line (the caller prints its summary after).
  void Finish();

  /// The line for a run at `simulated_ns` after `events` events and `seconds` of wall time.
  static std::string Render(const std::string& label, double simulated_ns, double expected_ns,
                            uint64_t events, double seconds);

 private:
  std::string m_label;
  double m_expected_ns;
  StatusLine m_line;
};

}  // namespace hfsim
