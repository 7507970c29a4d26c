#include "models/compression/wire-size.h"

#include <algorithm>
#include <cmath>

namespace hfsim {

WireBytes CompressedWireBytes(const CompressionChoice& choice, uint64_t d, uint32_t workers) {
  switch (choice.scheme) {
    case CompressionScheme::kNone:
      return {4 * d, 4 * d};
    case CompressionScheme::kFp16:
      return {2 * d, 2 * d};
    case CompressionScheme::kTopK: {
      const uint64_t k = std::clamp<uint64_t>(
          static_cast<uint64_t>(std::llround(choice.top_k_fraction * static_cast<double>(d))), 1, d);
      return {8 * k, 4 * d};
    }
    case CompressionScheme::kThc: {
      const uint64_t block = choice.thc.block;
      const uint64_t padded = (d + block - 1) / block * block;
      const uint64_t up = (padded * choice.thc.bits + 7) / 8 + 4;
      const bool lanes = !ThcLaneProblem(workers, choice.thc.granularity).has_value();
      return {up, lanes ? padded : 2 * padded};
    }
  }
  return {};
}

}  // namespace hfsim
