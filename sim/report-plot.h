// A picture of a report: where the iteration's time goes and how busy each dimension is, as a
// gnuplot script (data inline) that renders a PNG. The CLI writes the script next to the PNG so
// a user can restyle and re-render it.
#pragma once

#include <string>
#include <string_view>

#include "sim/report.h"
#include "sim/scenario.h"

namespace hfsim {

/// `text` as a gnuplot string literal: single-quoted, a quote inside doubled.
std::string GnuplotQuoted(std::string_view text);

/// A self-contained gnuplot script that writes `png_name` (relative to gnuplot's working dir).
std::string BreakdownPlotScript(const Report& report, const Scenario& scenario,
                                const std::string& png_name);

}  // namespace hfsim
