// Bytes on the wire per worker and iteration for a d-value gradient under each compression scheme
// (S5), both directions. The engines charge these instead of 4d when a scheme is chosen.
//   none   up 4d, down 4d (fp32)
//   fp16   up 2d, down 2d
//   top_k  up 8k ((uint32 index, fp32 value) pairs), down 4d: the server's sum is dense
//   thc    up ceil(D b / 8) + 4 (D = d padded to the RHT block; the 4 bytes carry the worker's
//          norm for the max-norm agreement), down D bytes while n g <= 255 (8-bit lanes), else 2D
#pragma once

#include <cstdint>
#include <string_view>

#include "base/name-table.h"
#include "models/compression/thc-config.h"

namespace hfsim {

enum class CompressionScheme { kNone, kFp16, kTopK, kThc };
/// Scenario spellings (communication.compression.scheme).
inline constexpr NameTable<CompressionScheme, 4> kCompressionSchemeNames = {{
    {CompressionScheme::kNone, "none"},
    {CompressionScheme::kFp16, "fp16"},
    {CompressionScheme::kTopK, "top_k"},
    {CompressionScheme::kThc, "thc"},
}};
inline std::string_view ToString(CompressionScheme scheme) {
  return NameIn(kCompressionSchemeNames, scheme);
}

struct WireBytes {
  uint64_t up = 0;    ///< worker -> aggregator
  uint64_t down = 0;  ///< aggregator -> worker
};

struct CompressionChoice {
  CompressionScheme scheme = CompressionScheme::kNone;
  double top_k_fraction = 0.01;
  ThcConfig thc;
};

WireBytes CompressedWireBytes(const CompressionChoice& choice, uint64_t values, uint32_t workers);

}  // namespace hfsim
