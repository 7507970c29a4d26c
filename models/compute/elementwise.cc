// Memory-bound work priced by bytes (models/compute/elementwise.h; docs/compute-model.md §4).
#include "models/compute/elementwise.h"

namespace hfsim {

double ElementwiseTimeNs(const DeviceSpec& device, double bytes) {
  return bytes / device.AchievableBytesPerNs();
}

ElementwiseBreakdown BlockElementwiseBytes(const BlockDims& dims, const BlockParallel& parallel,
                                           Precision linear_precision, Pass pass) {
  ElementwiseBreakdown out;
  // a: bytes of a 16-bit (high-precision) activation; fp8 casts write 1 + 1 bytes.
  const double a = BytesPerElement(HighPrecisionFor(linear_precision));
  const bool fp8 = linear_precision == Precision::kFp8;
  const double t = parallel.tensor;
  const double ts = parallel.sequence_parallel ? t : 1.0;  // token-wise work's split
  const auto h = static_cast<double>(dims.hidden);
  const auto f = static_cast<double>(dims.ffn);
  const double fc1_out = dims.gated ? 2.0 * f : f;
  const auto q = static_cast<double>(dims.QueryDim());
  const auto kv = static_cast<double>(dims.KvDim());
  const double cast = a + 2.0;            // read 16-bit, write FP8 row- and column-wise
  const double norm_out = fp8 ? 2.0 : a;  // the norm writes the GEMM's (FP8) input
  const double mask = dims.hidden_dropout ? 1.0 : 0.0;

  if (pass == Pass::kForward) {
    out.Add("input norm", (a + norm_out) * h / ts);
    if (dims.rope) out.Add("RoPE", 2.0 * a * (q + kv) / t);
    if (fp8) out.Add("proj input cast", cast * q / t);
    out.Add("bias-dropout-add (attention)", (3.0 * a + mask) * h / ts);
    out.Add("pre-MLP norm", (a + norm_out) * h / ts);
    out.Add(dims.gated ? "bias-SwiGLU" : "bias-GeLU", a * (fc1_out + f) / t);
    if (fp8) out.Add("fc2 input cast", cast * f / t);
    out.Add("bias-dropout-add (MLP)", (3.0 * a + mask) * h / ts);
    return out;
  }
  if (dims.hidden_dropout) out.Add("dropout backward (MLP)", (2.0 * a + 1.0) * h / ts);
  if (fp8) out.Add("fc2 output-gradient cast", cast * h / ts);
  // SwiGLU: read fc1's saved 2F outputs and the F gradient, write 2F; GeLU: F, F, F.
  out.Add(dims.gated ? "SwiGLU backward" : "GeLU backward",
          a * (dims.gated ? 5.0 * f : 3.0 * f) / t);
  if (fp8) out.Add("fc1 output-gradient cast", cast * fc1_out / t);
  out.Add("pre-MLP norm backward", 3.0 * a * h / ts);
  out.Add("residual-gradient add (MLP)", 3.0 * a * h / ts);
  if (dims.hidden_dropout) out.Add("dropout backward (attention)", (2.0 * a + 1.0) * h / ts);
  if (fp8) out.Add("proj output-gradient cast", cast * h / ts);
  if (dims.rope) out.Add("RoPE backward", 2.0 * a * (q + kv) / t);
  if (fp8) out.Add("QKV output-gradient cast", cast * (q + 2.0 * kv) / t);
  out.Add("input norm backward", 3.0 * a * h / ts);
  out.Add("residual-gradient add (attention)", 3.0 * a * h / ts);
  return out;
}

ElementwiseBreakdown LossElementwiseBytes(uint64_t vocab, uint32_t tensor, bool fused, Pass pass) {
  ElementwiseBreakdown out;
  const double v = static_cast<double>(vocab) / tensor;  // logits per token on this rank
  constexpr double a = 2.0;                              // 16-bit logits
  constexpr double f32 = 4.0;
  if (pass == Pass::kForward) {
    if (fused) {
      out.Add("cast + max", (a + f32) * v);
      out.Add("subtract + exp + sum", 2.0 * f32 * v);
      out.Add("divide", 2.0 * f32 * v);
    } else {
      out.Add("cast to fp32", (a + f32) * v);
      out.Add("max", f32 * v);
      out.Add("subtract max", 2.0 * f32 * v);
      out.Add("exp", 2.0 * f32 * v);
      out.Add("sum", f32 * v);
      out.Add("divide", 2.0 * f32 * v);
    }
    return out;
  }
  out.Add("scale gradient", 2.0 * f32 * v);
  out.Add("cast gradient", (f32 + a) * v);
  return out;
}

double AdamStepBytesPerParameter() { return 4.0 * 4.0 + 3.0 * 4.0 + 2.0; }

double Fp8WeightCastBytesPerParameter() { return 2.0 + 1.0 + 1.0; }

}  // namespace hfsim
