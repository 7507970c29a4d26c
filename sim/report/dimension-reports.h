// The per-dimension rows of a report, shared by both engines: traffic and occupied time summed
// over the collectives (times their occurrences), and utilisation against the iteration time.
#pragma once

#include <vector>

#include "sim/report/report.h"
#include "topologies/dimension.h"

namespace hfsim {

/// Fills report.dimensions and report.total_traffic_bytes from report.collectives,
/// report.iteration.total_ns and report.npus.
void AddDimensionReports(const std::vector<Dimension>& dimensions, Report& report);

}  // namespace hfsim
