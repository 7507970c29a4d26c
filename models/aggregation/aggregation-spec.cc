#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

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
