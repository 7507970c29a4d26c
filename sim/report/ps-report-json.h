// The "parameter_server" object of report.json (docs/parameter-server.md, "Report").
#pragma once

#include <nlohmann/json.hpp>

#include "sim/report/ps-report.h"

namespace hfsim {

nlohmann::json PsReportToJson(const ParameterServerReport& report);

}  // namespace hfsim
