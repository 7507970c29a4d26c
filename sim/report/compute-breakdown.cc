#include "sim/report/compute-breakdown.h"

namespace hfsim {

std::optional<ComputeBreakdown> ReportComputeBreakdown(const Scenario& scenario) {
  if (scenario.workload_kind != WorkloadKind::kTraining) return std::nullopt;
  const TrainingWorkload& t = scenario.training;
  if (!t.config.kernel_model) return std::nullopt;
  if (!t.MegatronLayout()) return KernelComputeBreakdown(t.model, t.config);
  // The generator prices one micro-batch per layer (training-graph.h); each rank runs its
  // stage's layers for every micro-batch (with one stage, every layer m times).
  const uint32_t micro_batches = t.pipeline.micro_batches;
  TrainingConfig micro = t.config;
  micro.global_batch_samples = t.config.global_batch_samples / micro_batches;
  ComputeBreakdown b = KernelComputeBreakdown(t.model, micro);
  const double scale = static_cast<double>(micro_batches) / t.pipeline.pipeline;
  for (double& ns : b.kernels.ns) ns *= scale;
  b.roofline_ns *= scale;
  return b;
}

}  // namespace hfsim
