// The "in_network" object of report.json and its lines in the summary table
// (docs/in-network.md, "Report").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/in-network-report.h"

namespace hfsim {

nlohmann::json InNetworkReportToJson(const InNetworkReport& report);
/// Lines for the summary table, starting with a blank line.
std::string InNetworkSummary(const InNetworkReport& report);

}  // namespace hfsim
