// The report as a table for a terminal: what a person reads first after a run.
#pragma once

#include <string>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

std::string SummaryTable(const Report& report, const Scenario& scenario);

/// "812.5 us", "1.204 s": a duration in ns shown in the largest unit that keeps it >= 1.
std::string FormatDuration(double ns);
/// "64.0 MiB": a byte count in binary units.
std::string FormatBytes(double bytes);

}  // namespace hfsim
