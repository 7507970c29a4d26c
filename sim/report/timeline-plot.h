// A picture of one iteration: the timeline's spans as bars on one row per (rank class, track),
// as a self-contained gnuplot script (`hfsim run -o DIR` writes gantt.gp and gantt.png for small
// jobs; --trace gives the same spans to Perfetto for any size).
#pragma once

#include <optional>
#include <string>

#include "sim/report/timeline.h"

namespace hfsim {

/// Most rows and spans the picture draws; beyond them bars would be thinner than a pixel.
inline constexpr size_t kMaxGanttRows = 32;
inline constexpr size_t kMaxGanttSpans = 4000;

/// The script that draws `png_name`, or nullopt when the timeline has more rows or spans than
/// the picture can show (the caller says so and points to --trace).
std::optional<std::string> GanttPlotScript(const Timeline& timeline, const std::string& title,
                                           const std::string& png_name);

}  // namespace hfsim
