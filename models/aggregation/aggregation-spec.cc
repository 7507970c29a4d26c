#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

std::string_view ToString(AggregationMode mode) {
  return mode == AggregationMode::kAllReduce ? "allreduce" : "parameter_server";
}

std::string_view ToString(FixedPointScheme scheme) {
  return scheme == FixedPointScheme::kBlockExponent ? "block_exponent" : "fixed_scale";
}

std::string_view ToString(OverflowBehaviour overflow) {
  return overflow == OverflowBehaviour::kWrap ? "wrap" : "saturate";
}

std::string_view ToString(ValueFormat format) {
  return format == ValueFormat::kInt32 ? "int32" : "thc";
}

uint32_t SumGrowthBits(uint32_t workers) {
  uint32_t bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) < workers) ++bits;
  return bits;
}

uint32_t WidestSafeValueBits(uint32_t workers) {
  const uint32_t growth = SumGrowthBits(workers);
  return growth >= 31 ? 0 : 31 - growth;
}

}  // namespace hfsim
