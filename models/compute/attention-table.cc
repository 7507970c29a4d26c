// The published attention throughput tables and their lookup (models/compute/attention-table.h).
// Sources and how each value was read: docs/compute-model.md §3.
#include "models/compute/attention-table.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hfsim {
namespace {

using C = AttentionCurve;
constexpr CurvePass kFwd = CurvePass::kForward;
constexpr CurvePass kBwd = CurvePass::kBackward;
constexpr CurvePass kFwdBwd = CurvePass::kForwardBackward;

// FlashAttention-2, A100 80GB SXM4, fwd+bwd, bar labels of flash-attention's
// assets/flash2_a100_fwd_bwd_benchmark.png (= the FA2 paper's figure). Three labels are partly
// covered by the legend and read from the bar height: d=64 non-causal at 1k (~153), d=128
// non-causal at 512 (~150) and 1k (~173).
constexpr AttentionCurve kFa2A100[] = {
    C{64, false, kFwdBwd, {132, 153, 162, 171, 175, 176}},
    C{128, false, kFwdBwd, {150, 173, 187, 196, 201, 203}},
    C{64, true, kFwdBwd, {88, 119, 140, 156, 165, 171}},
    C{128, true, kFwdBwd, {99, 133, 155, 173, 182, 189}},
};

// FlashAttention-2, H100 80GB SXM5, fwd+bwd: assets/flash2_h100_fwd_bwd_benchmark.png.
constexpr AttentionCurve kFa2H100[] = {
    C{64, false, kFwdBwd, {215, 254, 274, 288, 294, 296}},
    C{128, false, kFwdBwd, {248, 294, 320, 326, 335, 338}},
    C{64, true, kFwdBwd, {141, 192, 232, 257, 273, 284}},
    C{128, true, kFwdBwd, {163, 221, 265, 294, 308, 328}},
};

// cuDNN (9.1.1) on H100 SXM5, BF16: the cuDNN bars of the FlashAttention-3 paper's forward
// figure (assets/flash3_fp16_fwd.png) and backward figure (non-causal only published).
constexpr AttentionCurve kCudnnH100Curves[] = {
    C{64, false, kFwd, {335, 373, 395, 408, 412, 413}},
    C{128, false, kFwd, {497, 574, 617, 609, 600, 595}},
    C{256, false, kFwd, {470, 546, 580, 581, 580, 581}},
    C{64, true, kFwd, {225, 288, 334, 363, 379, 388}},
    C{128, true, kFwd, {315, 410, 484, 518, 529, 539}},
    C{256, true, kFwd, {308, 391, 450, 483, 497, 509}},
    C{64, false, kBwd, {266, 348, 395, 417, 432, 433}},
    C{128, false, kBwd, {305, 408, 465, 499, 518, 516}},
};

// FlashAttention-3 on H100 SXM5, BF16, same figures. d=256 non-causal at 1k is covered by a
// label in the figure and read from the bar height (~620).
constexpr AttentionCurve kFa3H100[] = {
    C{64, false, kFwd, {333, 392, 460, 476, 496, 497}},
    C{128, false, kFwd, {467, 565, 625, 638, 646, 648}},
    C{256, false, kFwd, {482, 620, 707, 736, 746, 756}},
    C{64, true, kFwd, {197, 265, 371, 420, 460, 473}},
    C{128, true, kFwd, {292, 423, 521, 579, 602, 616}},
    C{256, true, kFwd, {286, 427, 537, 612, 628, 642}},
    C{64, false, kBwd, {272, 363, 422, 453, 472, 474}},
    C{128, false, kBwd, {316, 424, 501, 542, 559, 561}},
};

const AttentionCurve* Find(const AttentionTable& table, uint32_t head_dim, bool causal,
                           CurvePass pass) {
  for (const AttentionCurve& curve : table.curves) {
    if (curve.head_dim == head_dim && curve.causal == causal && curve.pass == pass) return &curve;
  }
  return nullptr;
}

// Log-linear in the sequence length between published points, clamped at both ends.
double At(const AttentionCurve& curve, double seq_len) {
  const auto& s = kAttentionSeqLens;
  if (seq_len <= s.front()) return curve.tflops.front();
  if (seq_len >= s.back()) return curve.tflops.back();
  size_t i = 0;
  while (seq_len > s[i + 1]) ++i;
  const double f = std::log2(seq_len / s[i]) / std::log2(s[i + 1] / s[i]);
  return curve.tflops[i] + f * (curve.tflops[i + 1] - curve.tflops[i]);
}

// The forward-side curve of a case: the forward curve, or the fwd+bwd one for tables that only
// publish that.
const AttentionCurve* ForwardCurve(const AttentionTable& table, uint32_t d, bool causal) {
  if (const AttentionCurve* c = Find(table, d, causal, kFwd)) return c;
  return Find(table, d, causal, kFwdBwd);
}

// The rate at a head dimension the table publishes (a forward or fwd+bwd curve exists for it).
double RateAtPublishedDim(const AttentionTable& table, uint32_t d, bool causal, Pass pass,
                          double seq_len) {
  const AttentionCurve* forward = ForwardCurve(table, d, causal);
  if (forward == nullptr) return 0.0;
  if (pass == Pass::kForward || forward->pass == kFwdBwd) return At(*forward, seq_len);
  if (const AttentionCurve* backward = Find(table, d, causal, kBwd)) return At(*backward, seq_len);
  // No backward curve for (d, causal): carry the forward's penalty over to the nearest head
  // dimension with a non-causal backward curve.
  const AttentionCurve* base = nullptr;
  for (const AttentionCurve& c : table.curves) {
    if (c.pass != kBwd || c.causal) continue;
    const auto distance = [d](uint32_t x) { return x > d ? x - d : d - x; };
    if (base == nullptr || distance(c.head_dim) < distance(base->head_dim)) base = &c;
  }
  if (base == nullptr) return 0.0;
  const AttentionCurve* base_forward = Find(table, base->head_dim, false, kFwd);
  if (base_forward == nullptr) return 0.0;
  return At(*base, seq_len) * At(*forward, seq_len) / At(*base_forward, seq_len);
}

}  // namespace

extern const AttentionTable kFlashAttention2A100{"FlashAttention-2 (A100)", kFa2A100};
extern const AttentionTable kFlashAttention2H100{"FlashAttention-2 (H100)", kFa2H100};
extern const AttentionTable kCudnnH100{"cuDNN fused attention (H100)", kCudnnH100Curves};
extern const AttentionTable kFlashAttention3H100{"FlashAttention-3 (H100)", kFa3H100};

double AttentionRateTflops(const AttentionKernel& kernel, uint32_t head_dim, bool causal, Pass pass,
                           double seq_len) {
  if (kernel.table == nullptr) return 0.0;
  const AttentionTable& table = *kernel.table;
  // The published head dimensions that bracket head_dim (the causal flag does not change them).
  uint32_t below = 0;
  uint32_t above = std::numeric_limits<uint32_t>::max();
  for (const AttentionCurve& c : table.curves) {
    if (c.causal != causal || c.pass == kBwd) continue;
    if (c.head_dim <= head_dim) below = std::max(below, c.head_dim);
    if (c.head_dim >= head_dim) above = std::min(above, c.head_dim);
  }
  if (below == 0 && above == std::numeric_limits<uint32_t>::max()) return 0.0;
  if (below == 0) below = above;  // below the smallest: the smallest
  if (above == std::numeric_limits<uint32_t>::max()) above = below;  // above the largest
  const double low = RateAtPublishedDim(table, below, causal, pass, seq_len);
  double rate = low;
  if (above != below) {
    const double high = RateAtPublishedDim(table, above, causal, pass, seq_len);
    rate = low + (high - low) * (static_cast<double>(head_dim) - below) / (above - below);
  }
  return rate * kernel.scale;
}

}  // namespace hfsim
