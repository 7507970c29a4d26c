// A picture of a report: where the time goes and how busy each dimension is, as a gnuplot
// script (data inline) that renders a PNG. The CLI writes the script next to the PNG so a user
// can restyle and re-render it. Every bar is a report field (docs/report.md section 7).
#pragma once

#include <string>

#include "sim/report/gnuplot-script.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// A self-contained gnuplot script that writes `png_name` (relative to gnuplot's working dir).
/// Left: the parts of the time (training phases; parameter-server phases, or from the packet
/// engine the mean iteration's compute and communication; gossip compute and exchanges; a
/// collective and each dimension's busy time). Right: each dimension's utilisation.
std::string BreakdownPlotScript(const Report& report, const Scenario& scenario,
                                const std::string& png_name);

}  // namespace hfsim
