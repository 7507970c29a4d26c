// The report as JSON (schema: docs/report.md). Every quantity's unit is in its key.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The report plus the scenario it came from, with all defaults filled in, so that the run can
/// be reproduced from the report alone.
nlohmann::json ReportToJson(const Report& report, const Scenario& scenario);

struct Throughput;
/// The report's "throughput" section.
nlohmann::json ThroughputToJson(const Throughput& throughput);

}  // namespace hfsim
