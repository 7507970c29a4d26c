// The planned half of a parameter-server report: messages, bytes, keys and per-server incast as
// the traffic (workloads/parameter-server.h) lays them out. Both engines start from it; the
// analytical engine's deliveries equal the plan by construction, the packet engine overwrites
// the delivered counters with what its servers and workers actually received.
#pragma once

#include <vector>

#include "sim/report/ps-report.h"
#include "sim/report/report.h"
#include "topologies/dimension.h"
#include "topologies/topology.h"
#include "workloads/parameter-server.h"

namespace hfsim {

/// Adds one iteration's planned traffic to `report` (sized for `workload` on first use).
void AddPlannedIteration(const ParameterServerWorkload& workload, const PsIterationTraffic& traffic,
                         ParameterServerReport& report);
/// Sets busiest_server from the per-server push bytes.
void FindBusiestServer(ParameterServerReport& report);

/// Per topology dimension, bytes sent into it by all NPUs for one iteration's pushes and pulls:
/// a message adds its bytes to every dimension in which its source and destination differ
/// (dimension-order routing crosses each such dimension once).
std::vector<double> PsDimensionBytes(const Topology& topology,
                                     const ParameterServerWorkload& workload,
                                     const PsIterationTraffic& traffic);

/// report.dimensions for a parameter-server run (after iteration.total_ns and parameter_server
/// are set): per dimension, `dimension_bytes` (summed over all iterations, PsDimensionBytes)
/// per iteration and NPU, and the utilisation that gives over the mean iteration time.
void AddPsDimensionReports(const std::vector<Dimension>& dimensions,
                           const std::vector<double>& dimension_bytes, Report& report);

}  // namespace hfsim
