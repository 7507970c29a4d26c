// The compute model's single entry point (models/compute/compute-model.h).
#include "models/compute/compute-model.h"

#include <algorithm>
#include <numeric>

namespace hfsim {

std::string_view ToString(OpClass op_class) {
  switch (op_class) {
    case OpClass::kGemm:
      return "gemm";
    case OpClass::kAttention:
      return "attention";
    case OpClass::kElementwise:
      return "elementwise";
    case OpClass::kCommKernelOverhead:
      return "comm_kernel_overhead";
  }
  return "?";
}

double ComputeTally::TotalNs() const { return std::accumulate(ns.begin(), ns.end(), 0.0); }

ComputeTally& ComputeTally::operator+=(const ComputeTally& other) {
  for (size_t i = 0; i < kOpClassCount; ++i) ns[i] += other.ns[i];
  return *this;
}

std::variant<ComputeModel, std::string> ComputeModel::Create(const DeviceSpec& device,
                                                             Precision training,
                                                             AttentionImpl attention) {
  if (auto why = CheckPrecision(device, training)) return *why;
  if (auto why = CheckPrecision(device, HighPrecisionFor(training))) return *why;
  const AttentionImpl impl =
      device.attention.table == nullptr ? AttentionImpl::kUnfused : attention;
  return ComputeModel(device, training, impl);
}

Precision ComputeModel::PrecisionOf(GemmClass gemm_class) const {
  return gemm_class == GemmClass::kLinear ? m_training : HighPrecisionFor(m_training);
}

GemmEstimate ComputeModel::Gemm(GemmClass gemm_class, const GemmShape& shape,
                                const GemmOptions& options) const {
  return EstimateGemm(m_device, PrecisionOf(gemm_class), shape, options);
}

LinearGemms ComputeModel::Linear(GemmClass gemm_class, uint64_t tokens, uint64_t in, uint64_t out,
                                 const LinearOptions& options) const {
  return EstimateLinearGemms(m_device, PrecisionOf(gemm_class), tokens, in, out, options);
}

AttentionEstimate ComputeModel::Attention(const AttentionShape& shape, Pass pass) const {
  return EstimateAttention(m_device, HighPrecisionFor(m_training), shape, pass, m_attention);
}

double ComputeModel::ElementwiseNs(double bytes) const {
  return ElementwiseTimeNs(m_device, bytes);
}

double ComputeModel::BlockElementwiseNs(const BlockDims& dims, const BlockParallel& parallel,
                                        double tokens, Pass pass) const {
  const ElementwiseBreakdown passes = BlockElementwiseBytes(dims, parallel, m_training, pass);
  return ElementwiseTimeNs(m_device, passes.bytes_per_token * tokens);
}

double ComputeModel::GemmCommOverheadNs(GemmClass gemm_class, const GemmShape& shape,
                                        uint32_t sms_taken) const {
  if (sms_taken == 0) return 0.0;
  GemmOptions shared;
  shared.available_sms = m_device.sm_count - std::min(sms_taken, m_device.sm_count - 1);
  const double alone = Gemm(gemm_class, shape).time_ns;
  const double beside = Gemm(gemm_class, shape, shared).time_ns;
  return std::max(0.0, beside - alone);
}

LinearOverheadNs ComputeModel::LinearCommOverheadNs(GemmClass gemm_class, uint64_t tokens,
                                                    uint64_t in, uint64_t out,
                                                    const LinearOptions& options,
                                                    const LinearSmsTaken& taken) const {
  LinearOverheadNs extra;
  if (!taken.Any()) return extra;
  const LinearGemms alone = Linear(gemm_class, tokens, in, out, options);
  const uint32_t all = options.available_sms > 0
                           ? std::min(options.available_sms, m_device.sm_count)
                           : m_device.sm_count;
  // The three GEMMs on the SMs left, estimated once per distinct count (Transformer Engine's
  // defaults take the same 16 from every pass they charge).
  uint32_t priced_for = 0;
  LinearGemms beside;
  auto more = [&](uint32_t sms, GemmEstimate LinearGemms::*pass) {
    if (sms == 0 || all <= 1) return 0.0;
    if (sms != priced_for) {
      LinearOptions shared = options;
      shared.available_sms = all - std::min(sms, all - 1);
      beside = Linear(gemm_class, tokens, in, out, shared);
      priced_for = sms;
    }
    return std::max(0.0, (beside.*pass).time_ns - (alone.*pass).time_ns);
  };
  extra.fprop = more(taken.fprop, &LinearGemms::fprop);
  extra.dgrad = more(taken.dgrad, &LinearGemms::dgrad);
  extra.wgrad = more(taken.wgrad, &LinearGemms::wgrad);
  return extra;
}

double ComputeModel::CommOverheadNs(double compute_ns, uint32_t sms_taken) const {
  return compute_ns * (OverlappedComputeSlowdown(m_device, sms_taken) - 1.0);
}

}  // namespace hfsim
