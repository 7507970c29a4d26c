// The "gossip" part of report.json and the summary table's gossip lines (docs/report.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/report/gossip-report.h"

namespace hfsim {

nlohmann::json GossipReportToJson(const GossipReport& gossip);
/// Lines for the summary table: workload, learning, traffic and time to the target accuracy.
std::string GossipSummary(const GossipReport& gossip);

}  // namespace hfsim
