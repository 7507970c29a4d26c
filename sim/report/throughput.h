// What people compare a training run by, next to its iteration time: tokens per second per GPU,
// model TFLOP/s per GPU and MFU, with the FLOP convention they are counted in (docs/report.md,
// "throughput").
#pragma once

#include <cstdint>
#include <optional>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "workloads/model-flops.h"

namespace hfsim {

struct Throughput {
  FlopConvention convention = FlopConvention::kMegatronCausal;
  /// Model FLOPs of one iteration (the global batch), workloads/model-flops.h.
  double model_flops_per_iteration = 0.0;
  /// Global batch x sequence length / iteration time / GPUs; nullopt for a model without
  /// tokens (a CNN, a model given row by row).
  std::optional<double> tokens_per_s_per_gpu;
  double samples_per_s_per_gpu = 0.0;
  double model_tflops_per_gpu = 0.0;
  /// model_tflops_per_gpu / peak_TFLOPS_used, a fraction.
  double mfu = 0.0;
  double peak_TFLOPS_used = 0.0;
};

/// The throughput of `training` iterating in `iteration_ns` on `gpus` GPUs, against a device
/// peak of `peak_TFLOPS` (the dense rate at the training precision). Rates are 0 for an
/// iteration of no time.
Throughput TrainingThroughput(const TrainingWorkload& training, double iteration_ns, uint64_t gpus,
                              double peak_TFLOPS, FlopConvention convention);

/// The report's throughput: a training run's, in the scenario's flop_convention (or the one
/// given), against npu.peak_TFLOPS; nullopt for other workloads.
std::optional<Throughput> ReportThroughput(const Report& report, const Scenario& scenario);
std::optional<Throughput> ReportThroughput(const Report& report, const Scenario& scenario,
                                           FlopConvention convention);

}  // namespace hfsim
