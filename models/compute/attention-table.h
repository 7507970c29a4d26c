// Published throughput of fused attention kernels (FlashAttention-2, cuDNN and FlashAttention-3
// on Hopper), and the one rule that reads a rate out of them.
//
// Every rate is in TFLOP/s as the kernels' own benchmarks count FLOPs: forward 4 b s^2 h d,
// halved when causal; backward 2.5 x forward (flash-attention benchmarks/
// benchmark_flash_attention.py `flops`; hopper/benchmark_attn.py). The benchmarks size B x S =
// 16k tokens and H x d = 2048. Sources, page by page: docs/compute-model.md §3.
//
// Lookup (AttentionRateTflops), in this order:
//   - sequence length: log-linear between the published lengths 512 ... 16384; below 512 the
//     rate at 512 and above 16384 the rate at 16384 (clamped: no extrapolation);
//   - head dimension: linear between the published dimensions (64, 128, and 256 where the
//     table has it); outside them the nearest published one;
//   - pass: a table that publishes forward + backward together (FA2's figures) gives that one
//     rate to both passes, so forward and backward take 1 : 2.5 of the measured fwd+bwd time;
//     a table with separate forward and backward curves uses them, and where it lacks a
//     backward curve (cuDNN/FA3: causal, and head dim 256) derives it as
//     bwd(d', non-causal) x fwd(d, causal?) / fwd(d', non-causal), d' the nearest head dim
//     with a published backward curve: the forward's causal (or head-dim) penalty carried over.
//   - AttentionKernel::scale multiplies the result (a device without its own table borrows a
//     sibling's, scaled by the two devices' measured matmul ceilings; device.cc says which).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "models/compute/pass.h"

namespace hfsim {

/// The sequence lengths (q = kv) every published curve is measured at.
inline constexpr std::array<double, 6> kAttentionSeqLens = {512, 1024, 2048, 4096, 8192, 16384};

/// What one published curve measures.
enum class CurvePass : uint8_t { kForward, kBackward, kForwardBackward };

struct AttentionCurve {
  uint32_t head_dim = 128;
  bool causal = false;
  CurvePass pass = CurvePass::kForward;
  /// TFLOP/s at each of kAttentionSeqLens.
  std::array<double, 6> tflops{};
};

/// One kernel's published curves.
struct AttentionTable {
  std::string_view name;
  std::span<const AttentionCurve> curves;
};

/// A device's fused attention kernel: a table and the factor its rates are multiplied by (1 for
/// the device the table was measured on).
struct AttentionKernel {
  const AttentionTable* table = nullptr;
  double scale = 1.0;
};

/// FlashAttention-2 on an A100 80GB SXM4, fwd+bwd, FP16/BF16 (FA2 paper / README figure).
extern const AttentionTable kFlashAttention2A100;
/// FlashAttention-2 on an H100 80GB SXM5, fwd+bwd, FP16/BF16 (flash-attention README figure).
extern const AttentionTable kFlashAttention2H100;
/// cuDNN 9.1 fused attention on an H100 80GB SXM5 at 1830 MHz, forward and non-causal backward,
/// BF16 (the cuDNN columns of the FlashAttention-3 paper's figures): what Transformer Engine
/// runs on Hopper (it prefers its cuDNN FusedAttention backend on compute capability >= 9.0).
extern const AttentionTable kCudnnH100;
/// FlashAttention-3 on the same H100, forward and non-causal backward, BF16.
extern const AttentionTable kFlashAttention3H100;

/// The kernel's rate in TFLOP/s (the benchmark's FLOP convention) for one case, read as the
/// header comment says. `seq_len` > 0. A kernel without a table has no rate: 0.
double AttentionRateTflops(const AttentionKernel& kernel, uint32_t head_dim, bool causal, Pass pass,
                           double seq_len);

}  // namespace hfsim
