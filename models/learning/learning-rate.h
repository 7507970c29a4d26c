// Learning-rate schedules of the gossip workers' SGD, by name (the scenario's "schedule"):
//   constant     lr(t) = lr0
//   step         lr(t) = lr0 * factor^floor(t / every)
//   exponential  lr(t) = lr0 * gamma^t
//   cosine       lr(t) = lr0 * (1 + cos(pi * min(t, total) / total)) / 2
// The adaptive exchange trigger of S3 reads lr(t) (its threshold can follow it), so the schedule
// also shapes the traffic.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

enum class LearningRateSchedule { kConstant, kStep, kExponential, kCosine };
inline constexpr NameTable<LearningRateSchedule, 4> kLearningRateScheduleNames = {{
    {LearningRateSchedule::kConstant, "constant"},
    {LearningRateSchedule::kStep, "step"},
    {LearningRateSchedule::kExponential, "exponential"},
    {LearningRateSchedule::kCosine, "cosine"},
}};
inline std::string_view ToString(LearningRateSchedule schedule) {
  return NameIn(kLearningRateScheduleNames, schedule);
}

struct LearningRate {
  LearningRateSchedule schedule = LearningRateSchedule::kConstant;
  double initial = 0.1;
  double factor = 0.1;    ///< step: multiplier every `every` steps
  uint32_t every = 1000;  ///< step
  double gamma = 0.999;   ///< exponential: multiplier per step
  uint32_t total = 1000;  ///< cosine: steps to reach 0

  double At(uint64_t step) const {
    switch (schedule) {
      case LearningRateSchedule::kConstant:
        return initial;
      case LearningRateSchedule::kStep:
        return initial * std::pow(factor, static_cast<double>(step / every));
      case LearningRateSchedule::kExponential:
        return initial * std::pow(gamma, static_cast<double>(step));
      case LearningRateSchedule::kCosine: {
        const double t = static_cast<double>(std::min<uint64_t>(step, total)) / total;
        return initial * (1.0 + std::cos(std::numbers::pi * t)) / 2.0;
      }
    }
    return initial;
  }
};

}  // namespace hfsim
