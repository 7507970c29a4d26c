#include "sim/report/throughput.h"

namespace hfsim {

// Megatron-LM's training_log prints num_floating_point_operations(args, batch_size) /
// (elapsed time per iteration x 10^12 x world size) as "throughput per GPU (TFLOP/s/GPU)"
// (megatron/training/training.py); MFU divides that by the device's dense peak.
Throughput TrainingThroughput(const TrainingWorkload& training, double iteration_ns, uint64_t gpus,
                              double peak_TFLOPS, FlopConvention convention) {
  Throughput t;
  t.convention = convention;
  t.peak_TFLOPS_used = peak_TFLOPS;
  const auto samples = static_cast<double>(training.config.global_batch_samples);
  t.model_flops_per_iteration = ModelFlopsPerSample(training.model, convention) * samples;
  if (iteration_ns > 0.0 && gpus > 0) {
    const double per_gpu_second = 1e9 / (iteration_ns * static_cast<double>(gpus));
    t.samples_per_s_per_gpu = samples * per_gpu_second;
    t.model_tflops_per_gpu = t.model_flops_per_iteration * per_gpu_second / 1e12;
    t.mfu = peak_TFLOPS > 0.0 ? t.model_tflops_per_gpu / peak_TFLOPS : 0.0;
  }
  if (training.sequence_length_tokens > 0) {
    t.tokens_per_s_per_gpu = t.samples_per_s_per_gpu * training.sequence_length_tokens;
  }
  return t;
}

std::optional<Throughput> ReportThroughput(const Report& report, const Scenario& scenario) {
  return ReportThroughput(report, scenario, scenario.training.flop_convention);
}

// The one place that chooses the peak MFU is measured against.
std::optional<Throughput> ReportThroughput(const Report& report, const Scenario& scenario,
                                           FlopConvention convention) {
  if (scenario.workload_kind != WorkloadKind::kTraining) return std::nullopt;
  const TrainingWorkload& training = scenario.training;
  return TrainingThroughput(training, report.iteration.total_ns, report.npus, training.peak_TFLOPS,
                            convention);
}

}  // namespace hfsim
