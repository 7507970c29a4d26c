// Float <-> int32 conversion for in-network aggregation, exactly as workers and the switch do it
// (SwitchML's and ATP's schemes: docs/aggregation.md §3, §8). The switch only adds int32;
// everything here runs on the workers, except AddInt32, which is the switch's add.
//
// A worker's value x becomes q = clamp(round(x * scale), -limit, +limit), rounding half away from
// zero (std::round: independent of the FPU rounding mode, so every run gives the same bits). The
// switch adds the W workers' q with int32 semantics; a worker decodes sum / scale.
//
// Error bound: when no q was clamped and the sum did not overflow, |q - x * scale| <= 1/2 for each
// worker, so |sum_x - decode(sum_q)| <= W / (2 * scale). SumErrorBound adds a relative 2^-20 for
// the double rounding of the decode and of a double-precision reference sum (both below 2^-21 of
// the bound, since |sum_q| <= 2^31).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

/// Block exponents travel as int8 on the wire; an all-zero block gets the smallest.
inline constexpr int32_t kMinBlockExponent = -126;
inline constexpr int32_t kMaxBlockExponent = 127;

/// Smallest e with |x| < 2^e for every finite x of the block (std::frexp's exponent of the largest
/// magnitude), clamped to [kMinBlockExponent, kMaxBlockExponent]. Non-finite values are ignored
/// (they quantise to the clamp limit, or 0 for NaN).
int32_t BlockExponent(std::span<const float> values);

/// The largest quantised magnitude: 2^value_bits - 1, and with block exponents also at most
/// INT32_MAX / W (SwitchML's numerator), so the W-worker sum cannot overflow.
int64_t QuantisationLimit(const AggregationSwitchSpec& spec);

/// Values per unit: limit / 2^exponent for block exponents (SwitchML's INT32_MAX / (W * 2^e)
/// when value_bits is wide enough), spec.fixed_scale for the fixed scheme (exponent ignored).
double QuantisationScale(const AggregationSwitchSpec& spec, int32_t exponent);

/// round(x * scale) clamped to [-limit, limit]; +-inf clamp, NaN gives 0.
int32_t Quantise(double x, double scale, int64_t limit);
/// Whether x quantises without clamping.
bool QuantisesWithoutClamping(double x, double scale, int64_t limit);
/// K values (zero-padded to `values_per_packet`) quantised with one scale.
std::vector<int32_t> QuantiseBlock(std::span<const float> values, const AggregationSwitchSpec& spec,
                                   int32_t exponent);

/// sum / scale.
double Dequantise(int64_t sum, double scale);

/// The switch's int32 add: saturating (clamped to [INT32_MIN, INT32_MAX]) or two's-complement
/// wrapping.
int32_t AddInt32(int32_t a, int32_t b, OverflowBehaviour overflow);

/// Bound on |sum of W floats - Dequantise(sum of their quantised values)|, valid when no value was
/// clamped and the sum did not overflow (always so for block exponents with finite inputs).
double SumErrorBound(const AggregationSwitchSpec& spec, double scale);

}  // namespace hfsim
