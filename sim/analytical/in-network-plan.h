// The planned part of the "in_network" report (sim/report/in-network-report.h), from the switch spec
// and the closed form (models/in-network-allreduce.h). Both engines fill it the same way.
#pragma once

#include <optional>

#include "sim/report/in-network-report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The plan of a "collective" all_reduce workload on one dimension whose algorithm is
/// "in_network"; nullopt for any other workload (multi-dimension and training runs price
/// in_network stages but do not report them one by one).
std::optional<InNetworkReport> PlanInNetworkReport(const Scenario& scenario);

}  // namespace hfsim
