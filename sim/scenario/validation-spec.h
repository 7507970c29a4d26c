// A scenario's "validation" block: what a real run of the same job measured, and where that
// figure comes from, for `hfsim validate` (docs/validation.md). Every other command ignores it
// (run echoes it into report.json). Read by sim/scenario/validation-section.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/model-flops.h"

namespace hfsim {

/// What a row compares: the iteration time (s), tokens per second per GPU, model TFLOP/s per
/// GPU (in the block's flop_convention), or a collective's bus bandwidth as nccl-tests computes
/// it (GB/s).
enum class ValidationQuantity { kIterationS, kTokensPerSPerGpu, kModelTflopsPerGpu, kBusbwGBps };

/// The quantities' keys in "measured" and their names in validation.csv, in enum order.
inline constexpr std::array<std::string_view, 4> kValidationQuantityNames = {
    "iteration_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "busbw_GBps"};

inline std::string_view ToString(ValidationQuantity quantity) {
  return kValidationQuantityNames[static_cast<size_t>(quantity)];
}

struct ValidationSpec {
  /// The measured values, one per quantity given, in enum order.
  std::vector<std::pair<ValidationQuantity, double>> measured;
  /// busbw_GBps only: the size nccl-tests printed (its whole buffer, hfsim's size_bytes).
  uint64_t size_bytes = 0;
  /// Paper and table, or repository and file, the figures come from.
  std::string source;
  /// What the source's TFLOP/s counts; required with model_tflops_per_gpu.
  std::optional<FlopConvention> flop_convention;
  /// What was inferred rather than read from the source; echoed, never interpreted.
  std::string notes;
};

}  // namespace hfsim
