// The time of the attention core (softmax(Q K^T / sqrt(d)) V, its forward or its backward) on
// one device, fused (FlashAttention / cuDNN, from published throughput) or unfused (the
// 2022-era Megatron path: two batched GEMMs and memory-bound softmax passes over the scores).
// docs/compute-model.md §3.
//
// FLOPs are counted as FlashAttention's benchmarks count them: forward 2 x b x heads x pairs x
// (d + d_v), where `pairs` is the number of (query, key) positions the mask lets through per
// batch and head; backward 2.5 x forward. Without a mask pairs = q_len x kv_len, so forward =
// 4 b heads s^2 d for q = kv = s and d_v = d; with a causal mask on a square block, half.
#pragma once

#include <cstdint>

#include "models/compute/device.h"
#include "models/compute/pass.h"
#include "models/compute/precision.h"

namespace hfsim {

enum class AttentionImpl : uint8_t { kFused, kUnfused };
/// "fused", "unfused".
std::string_view ToString(AttentionImpl impl);

/// One attention call on one rank.
struct AttentionShape {
  uint64_t batch = 1;
  /// Query heads on this rank (after the tensor split).
  uint32_t heads = 1;
  /// Key/value heads on this rank (grouped-query attention). Neither path's time depends on
  /// them: FLOPs count query heads, and the unfused path works on K and V expanded to every
  /// query head, as Megatron's local attention expands them (that copy is not priced).
  uint32_t kv_heads = 1;
  uint64_t q_len = 0;
  uint64_t kv_len = 0;
  uint32_t head_dim = 128;
  /// Value head dimension; 0: head_dim (differs for MLA: 192 for q/k, 128 for v).
  uint32_t v_head_dim = 0;
  bool causal = false;
  /// With `causal`: the position of the first query minus the position of the first key, in
  /// one sequence. 0 with q_len = kv_len is ordinary causal self-attention (half the square).
  /// Context parallelism: a rank's q block against a kv block wholly before it (offset >=
  /// kv_len) is computed in full, against its own block (offset 0) by half, against one wholly
  /// after it (offset <= -q_len) not at all. kv_len - q_len is FlashAttention's bottom-right
  /// alignment.
  int64_t q_offset = 0;
  /// Dropout on the attention probabilities (unfused path: a separate pass with a mask).
  bool dropout = false;

  uint32_t ValueDim() const { return v_head_dim > 0 ? v_head_dim : head_dim; }
};

/// (query, key) pairs one batch element and head computes: q_len x kv_len without a mask; with
/// `causal`, the area of the block below the diagonal key <= query (continuous, as the
/// benchmarks count: a square diagonal block gives exactly half).
double AttendedPairs(const AttentionShape& shape);

/// The FLOPs of the pass in FlashAttention's convention (header comment).
double AttentionFlops(const AttentionShape& shape, Pass pass);

struct AttentionEstimate {
  double time_ns = 0.0;
  /// AttentionFlops of the pass.
  double flops = 0.0;
  /// The implementation that priced it (a device without a fused kernel runs unfused).
  AttentionImpl impl = AttentionImpl::kFused;
  /// Fused: the kernel's rate, TFLOP/s. Unfused: 0.
  double rate_TFLOPS = 0.0;
  /// Unfused: the GEMMs' time and the softmax/mask/dropout passes' time (they add up to
  /// time_ns). Fused: 0.
  double gemm_ns = 0.0;
  double elementwise_ns = 0.0;
};

/// The fused path reads the device's kernel table at the sequence length sqrt(q_len x kv_len),
/// with the causal curve when the mask cuts through the block and the non-causal one when it
/// lets it all through (a fully masked block costs 0). Fused kernels are 16-bit: fp8 is priced
/// at the BF16 rate (FP8 attention is off by default in Megatron + TE; no published FP8
/// backward exists), fp32/tf32 run unfused. A device without a fused kernel (Volta) runs
/// unfused.
///
/// The unfused path computes the whole q_len x kv_len block (the mask is applied in the
/// softmax, saving nothing): forward QK^T (batch b x heads, m = q_len, n = kv_len, k = d) and
/// PV (m = q_len, n = d_v, k = kv_len); backward dS K, dS^T Q, dO V^T, P^T dO; plus, per score
/// element, Megatron's fused scale-mask-softmax (read 2 B, write 2 B; backward read 4, write
/// 2) and, with dropout, a dropout pass (read 2, write 2 and a 1-byte mask; backward read 3,
/// write 2), at 16-bit score elements.
AttentionEstimate EstimateAttention(const DeviceSpec& device, Precision precision,
                                    const AttentionShape& shape, Pass pass,
                                    AttentionImpl impl = AttentionImpl::kFused);

/// EstimateAttention(...).time_ns.
double AttentionTimeNs(const DeviceSpec& device, Precision precision, const AttentionShape& shape,
                       Pass pass, AttentionImpl impl = AttentionImpl::kFused);

}  // namespace hfsim
