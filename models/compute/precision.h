// The number formats a GEMM, an attention kernel or an elementwise pass runs in.
//
// Training precision in Megatron-LM + Transformer Engine (docs/compute-model.md §1): "bf16"
// runs everything in BF16; "fp8" runs the linear layers' GEMMs (fprop, dgrad, wgrad) in FP8
// and keeps the attention core, norms, softmax and the LM head in BF16. fp16 is the pre-BF16
// mixed precision of V100-era runs; tf32 and fp32 are there for completeness (peaks exist for
// them on every preset; no training preset uses them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hfsim {

enum class Precision : uint8_t { kBf16, kFp16, kFp8, kTf32, kFp32 };
inline constexpr size_t kPrecisionCount = 5;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::kBf16, Precision::kFp16, Precision::kFp8, Precision::kTf32, Precision::kFp32};

/// The name in scenarios and reports: "bf16", "fp16", "fp8", "tf32", "fp32".
std::string_view ToString(Precision precision);
/// The precision named `name` (exactly, lower case), or nullopt.
std::optional<Precision> ParsePrecision(std::string_view name);
/// Every accepted name, in table order, for error messages: "bf16, fp16, fp8, tf32, fp32".
std::string PrecisionNames();

/// Bytes one element occupies in memory (tf32 is stored as fp32).
double BytesPerElement(Precision precision);

/// The precision of the work that stays in high precision when the linear layers run in
/// `training`: BF16 under FP8 (Megatron + TE keep the attention core, norms, softmax and the LM
/// head in BF16), otherwise `training` itself.
inline Precision HighPrecisionFor(Precision training) {
  return training == Precision::kFp8 ? Precision::kBf16 : training;
}

inline constexpr size_t Index(Precision precision) { return static_cast<size_t>(precision); }

}  // namespace hfsim
