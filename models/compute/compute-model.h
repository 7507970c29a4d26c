// The kernel-level compute model in one object, for the training generator: a device, the
// training precision and the attention implementation, and what each kind of operation costs
// under them. Built once per scenario; its methods are pure and allocation-free, meant to run
// once per distinct layer shape when the graph is built. docs/compute-model.md §6.
//
// Precision per GEMM (Megatron-LM + Transformer Engine under `--fp8-format`, docs §1): the
// linear layers of transformer blocks (QKV, proj, fc1, fc2, experts) follow the training
// precision — fprop, dgrad and wgrad all in FP8 (fp8_wgrad defaults to True); the LM head is
// Megatron's own ColumnParallelLinear, not a TE module, so it stays BF16; the attention core
// stays BF16 (fp8_dot_product_attention defaults to False).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "models/compute/attention-time.h"
#include "models/compute/comm-sm.h"
#include "models/compute/device.h"
#include "models/compute/elementwise.h"
#include "models/compute/gemm-time.h"
#include "models/compute/precision.h"
#include "models/compute/userbuffers.h"

namespace hfsim {

/// Which precision a GEMM runs in.
enum class GemmClass : uint8_t {
  /// A transformer block's linear layer (and MoE experts): the training precision.
  kLinear,
  /// The output (LM head) projection: high precision (BF16 under FP8).
  kLmHead,
  /// Anything else kept in high precision (the unfused attention core's batched GEMMs, a
  /// router): BF16 under FP8.
  kHighPrecision,
};

/// The classes of time the report shows.
enum class OpClass : uint8_t { kGemm, kAttention, kElementwise, kCommKernelOverhead };
inline constexpr size_t kOpClassCount = 4;
inline constexpr std::array<OpClass, kOpClassCount> kAllOpClasses = {
    OpClass::kGemm, OpClass::kAttention, OpClass::kElementwise, OpClass::kCommKernelOverhead};
/// "gemm", "attention", "elementwise", "comm_kernel_overhead".
std::string_view ToString(OpClass op_class);

/// What communication kernels add to each of a linear layer's three GEMMs, ns.
struct LinearOverheadNs {
  double fprop = 0.0;
  double dgrad = 0.0;
  double wgrad = 0.0;
};

/// Time summed per class, ns.
struct ComputeTally {
  std::array<double, kOpClassCount> ns{};

  void Add(OpClass op_class, double time_ns) { ns[static_cast<size_t>(op_class)] += time_ns; }
  double operator[](OpClass op_class) const { return ns[static_cast<size_t>(op_class)]; }
  double TotalNs() const;
  ComputeTally& operator+=(const ComputeTally& other);
};

class ComputeModel {
 public:
  /// The model, or why `device` cannot train in `training` (e.g. FP8 on an A100, BF16 on a
  /// V100), naming what it can. A device without a fused attention kernel runs unfused
  /// whatever `attention` asks (attention_impl() says which).
  static std::variant<ComputeModel, std::string> Create(const DeviceSpec& device,
                                                        Precision training,
                                                        AttentionImpl attention);

  const DeviceSpec& device() const { return m_device; }
  Precision training_precision() const { return m_training; }
  AttentionImpl attention_impl() const { return m_attention; }
  Precision PrecisionOf(GemmClass gemm_class) const;
  /// The same model training in HighPrecisionFor(training): BF16 under FP8, itself otherwise.
  /// Prices a layer Megatron keeps in BF16 in an FP8 job (first_last_layers_bf16): its linear
  /// GEMMs in BF16 and its elementwise passes without the FP8 casts.
  ComputeModel InHighPrecision() const {
    return ComputeModel(m_device, HighPrecisionFor(m_training), m_attention);
  }

  GemmEstimate Gemm(GemmClass gemm_class, const GemmShape& shape,
                    const GemmOptions& options = {}) const;
  LinearGemms Linear(GemmClass gemm_class, uint64_t tokens, uint64_t in, uint64_t out,
                     const LinearOptions& options = {}) const;
  /// The attention core in high precision (BF16 under FP8) with the model's implementation.
  AttentionEstimate Attention(const AttentionShape& shape, Pass pass) const;
  double ElementwiseNs(double bytes) const;
  /// A block's elementwise passes for `tokens` tokens (BlockElementwiseBytes), ns.
  double BlockElementwiseNs(const BlockDims& dims, const BlockParallel& parallel, double tokens,
                            Pass pass) const;
  /// What a communication kernel holding `sms_taken` SMs adds to a GEMM beside it: the GEMM
  /// re-quantized on the remaining SMs minus the GEMM alone, ns (>= 0).
  double GemmCommOverheadNs(GemmClass gemm_class, const GemmShape& shape, uint32_t sms_taken) const;
  /// GemmCommOverheadNs for a linear layer's three GEMMs (Linear with the same options), each
  /// re-quantized on the SMs left by `taken`'s count for its pass (0: nothing added).
  LinearOverheadNs LinearCommOverheadNs(GemmClass gemm_class, uint64_t tokens, uint64_t in,
                                        uint64_t out, const LinearOptions& options,
                                        const LinearSmsTaken& taken) const;
  /// What it adds to `compute_ns` of other (not re-quantized) work: compute_ns x (slowdown - 1).
  double CommOverheadNs(double compute_ns, uint32_t sms_taken) const;

 private:
  ComputeModel(const DeviceSpec& device, Precision training, AttentionImpl attention)
      : m_device(device), m_training(training), m_attention(attention) {}

  DeviceSpec m_device;
  Precision m_training;
  AttentionImpl m_attention;
};

}  // namespace hfsim
