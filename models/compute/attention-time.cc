// Attention core time, fused from published throughput or unfused as GEMMs plus softmax passes
// (models/compute/attention-time.h; docs/compute-model.md §3).
#include "models/compute/attention-time.h"

#include <algorithm>
#include <cmath>

#include "models/compute/attention-table.h"
#include "models/compute/elementwise.h"
#include "models/compute/gemm-time.h"

namespace hfsim {
namespace {

// The integral of clamp(u, 0, L) from -infinity to x: the visible keys summed over queries.
double VisibleKeysUpTo(double x, double kv_len) {
  if (x <= 0.0) return 0.0;
  if (x <= kv_len) return 0.5 * x * x;
  return 0.5 * kv_len * kv_len + kv_len * (x - kv_len);
}

AttentionEstimate Unfused(const DeviceSpec& device, Precision precision,
                          const AttentionShape& shape, Pass pass, double flops) {
  AttentionEstimate e;
  e.impl = AttentionImpl::kUnfused;
  e.flops = flops;
  const uint64_t bh = shape.batch * shape.heads;
  const uint64_t sq = shape.q_len;
  const uint64_t sk = shape.kv_len;
  const uint64_t d = shape.head_dim;
  const uint64_t dv = shape.ValueDim();
  if (pass == Pass::kForward) {
    e.gemm_ns = EstimateGemm(device, precision, GemmShape{sq, sk, d, bh}).time_ns +  // Q K^T
                EstimateGemm(device, precision, GemmShape{sq, dv, sk, bh}).time_ns;  // P V
  } else {
    e.gemm_ns = EstimateGemm(device, precision, GemmShape{sq, d, sk, bh}).time_ns +   // dS K
                EstimateGemm(device, precision, GemmShape{sk, d, sq, bh}).time_ns +   // dS^T Q
                EstimateGemm(device, precision, GemmShape{sq, sk, dv, bh}).time_ns +  // dO V^T
                EstimateGemm(device, precision, GemmShape{sk, dv, sq, bh}).time_ns;   // P^T dO
  }
  // Score elements, whole block: the mask saves nothing here.
  const double scores = static_cast<double>(bh) * static_cast<double>(sq) * static_cast<double>(sk);
  const double a = BytesPerElement(HighPrecisionFor(precision));
  double bytes_per_score = pass == Pass::kForward ? 2.0 * a : 3.0 * a;  // softmax
  // Dropout: forward reads the probabilities, writes them and the mask; backward reads the
  // gradient and the mask and writes the gradient.
  if (shape.dropout) bytes_per_score += 2.0 * a + 1.0;
  e.elementwise_ns = ElementwiseTimeNs(device, scores * bytes_per_score);
  e.time_ns = e.gemm_ns + e.elementwise_ns;
  return e;
}

}  // namespace

std::string_view ToString(AttentionImpl impl) {
  return impl == AttentionImpl::kFused ? "fused" : "unfused";
}

double AttendedPairs(const AttentionShape& shape) {
  const double sq = static_cast<double>(shape.q_len);
  const double sk = static_cast<double>(shape.kv_len);
  if (!shape.causal) return sq * sk;
  const double first = static_cast<double>(shape.q_offset);
  return VisibleKeysUpTo(first + sq, sk) - VisibleKeysUpTo(first, sk);
}

double AttentionFlops(const AttentionShape& shape, Pass pass) {
  const double forward = 2.0 * static_cast<double>(shape.batch) * static_cast<double>(shape.heads) *
                         AttendedPairs(shape) *
                         static_cast<double>(shape.head_dim + shape.ValueDim());
  return pass == Pass::kForward ? forward : 2.5 * forward;
}

AttentionEstimate EstimateAttention(const DeviceSpec& device, Precision precision,
                                    const AttentionShape& shape, Pass pass, AttentionImpl impl) {
  const double flops = AttentionFlops(shape, pass);
  const double pairs = AttendedPairs(shape);
  if (pairs <= 0.0 || shape.batch == 0 || shape.heads == 0) {
    AttentionEstimate none;
    none.impl = impl;
    return none;
  }
  const bool fused_precision = precision == Precision::kBf16 || precision == Precision::kFp16 ||
                               precision == Precision::kFp8;
  if (impl == AttentionImpl::kUnfused || device.attention.table == nullptr || !fused_precision) {
    return Unfused(device, precision == Precision::kFp8 ? Precision::kBf16 : precision, shape, pass,
                   flops);
  }
  AttentionEstimate e;
  e.impl = AttentionImpl::kFused;
  e.flops = flops;
  const double full = static_cast<double>(shape.q_len) * static_cast<double>(shape.kv_len);
  const bool masked = shape.causal && pairs < full;
  const double seq = std::sqrt(full);
  // The kernel's head dimension: the mean of the q/k and v dimensions, whose sum the FLOPs use.
  const auto head_dim = static_cast<uint32_t>((shape.head_dim + shape.ValueDim()) / 2);
  e.rate_TFLOPS = AttentionRateTflops(device.attention, head_dim, masked, pass, seq);
  e.time_ns = flops / (e.rate_TFLOPS * 1000.0);
  return e;
}

double AttentionTimeNs(const DeviceSpec& device, Precision precision, const AttentionShape& shape,
                       Pass pass, AttentionImpl impl) {
  return EstimateAttention(device, precision, shape, pass, impl).time_ns;
}

}  // namespace hfsim
