// The parameter-server lines of the summary table.
#pragma once

#include <string>

#include "sim/report/ps-report.h"
#include "workloads/parameter-server.h"

namespace hfsim {

/// "workload: parameter server, ..." (one line, newline-terminated).
std::string PsWorkloadLine(const ParameterServerWorkload& workload);
/// Bytes, incast per server, busiest server and the conservation line.
std::string PsSummary(const ParameterServerReport& report);

}  // namespace hfsim
