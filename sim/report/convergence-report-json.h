// The "convergence" part of report.json and its summary lines (docs/report.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/report/convergence-report.h"

namespace hfsim {

nlohmann::json ConvergenceReportToJson(const ConvergenceReport& convergence);
/// Lines for the summary table: the learning, and the time to the target accuracy.
std::string ConvergenceSummary(const ConvergenceReport& convergence);

}  // namespace hfsim
