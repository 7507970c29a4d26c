// The report's compute time per operation class (gemm, attention, elementwise,
// comm_kernel_overhead) when the kernel-level compute model priced the job (docs/report.md,
// "compute_breakdown"; docs/scenario.md §8.1).
#pragma once

#include <optional>

#include "sim/scenario/scenario.h"
#include "workloads/kernel-pricing.h"

namespace hfsim {

/// One iteration's compute on one rank by class, ns, recomputation included; under a pipeline
/// the mean over its stages (every micro-batch's work over all layers / pipeline stages). What
/// the roofline priced (layers without shapes, measured times) is in roofline_ns. nullopt
/// unless the scenario is a training job run by the kernel-level model.
std::optional<ComputeBreakdown> ReportComputeBreakdown(const Scenario& scenario);

}  // namespace hfsim
