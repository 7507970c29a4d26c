// A layer's compute on one rank priced operation by operation by the kernel-level compute model
// (models/compute/compute-model.h, docs/compute-model.md): what the training loop uses instead
// of its roofline when the scenario names a device without a compute_efficiency
// (TrainingConfig::kernel_model). docs/scenario.md §8.1 says how each kind of operation is
// priced; in short:
//
//   linear, expert_linear   the three GEMMs of a linear layer (fprop in forward, dgrad in input
//                           gradients, wgrad in weight gradients) in the training precision,
//                           on the rank's tensor slice (column: out / T, row: in / T); routed
//                           experts as one grouped GEMM over the rank's experts
//   lm_head, router         the same three GEMMs in high precision (BF16 under FP8)
//   attention               the attention core (fused or unfused, causal as the model says):
//                           forward in forward, backward in input gradients
//   elementwise             a dense block's passes as Megatron + TE fuse them
//                           (BlockElementwiseNs); elsewhere its bytes forward and 1.5 x them
//                           backward (read the input and the gradient, write the gradient)
//   embedding               its bytes forward; the same in weight gradients (the rows'
//                           gradients added back), nothing in input gradients
//   unknown                 the roofline at the config's rates
// With tensor-parallel overlap and sequence parallelism, the GEMMs Transformer Engine's
// userbuffers overlap (models/compute/userbuffers.h) are priced again on the SMs its kernels
// leave, the difference under comm_kernel_overhead (docs/compute-model.md §5.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/compute/compute-model.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// One pass of one layer: its kernels' time by class, and the time of its operations of
/// unknown shape (priced by the roofline), ns.
struct KernelPassTimes {
  ComputeTally kernels;
  double roofline_ns = 0.0;

  double TotalNs() const { return kernels.TotalNs() + roofline_ns; }
  KernelPassTimes& operator+=(const KernelPassTimes& other);
};

struct KernelLayerTimes {
  KernelPassTimes forward;
  KernelPassTimes input_grad;
  KernelPassTimes weight_grad;
  /// The attention core's forward and backward (parts of forward and input_grad): what
  /// selective recomputation runs again and ring attention runs block by block.
  double attention_forward_ns = 0.0;
  double attention_backward_ns = 0.0;
};

/// The layer's compute on one rank for `samples` samples per replica under `config` (tensor,
/// context and expert parallelism, sequence parallelism, expert load, tensor-parallel overlap),
/// by `model`; nullopt when no operation of the layer has a shape (kind unknown), which the
/// roofline prices instead.
std::optional<KernelLayerTimes> PriceLayerByKernels(const Layer& layer, const ComputeModel& model,
                                                    const TrainingConfig& config, uint64_t samples);

/// Whether PriceLayerByKernels gives `a` and `b` the same times under any one model, config and
/// batch: the fields of a layer it reads are equal (the operations, whether experts are routed,
/// the tensor-parallel all-reduces, whether collectives are given for forward and for input
/// gradients, whether the layer stays in high precision). Names, FLOP totals and measured times are not read by it.
bool SameKernelPricing(const Layer& a, const Layer& b);

/// PriceLayerByKernels for the layers of one model under one compute model, config and batch,
/// each distinct layer priced once: a layer that prices the same as one already priced
/// (SameKernelPricing) takes that layer's times, which are the same numbers to the bit (the
/// pricing is a pure function of what SameKernelPricing compares). Llama 3 405B's 126 identical
/// blocks are priced once per training loop instead of 126 times. Per call of the training loop
/// and never shared between threads; holds pointers to the layers it priced, which must outlive
/// it. At most kMaxDistinct layers are kept (a model of more distinct layers prices the rest
/// one by one): about kMaxDistinct x 200 bytes.
class KernelLayerMemo {
 public:
  static constexpr size_t kMaxDistinct = 64;

  KernelLayerMemo(const ComputeModel& model, const TrainingConfig& config, uint64_t samples)
      : m_model(&model), m_config(&config), m_samples(samples) {}

  /// PriceLayerByKernels(layer, model, config, samples).
  std::optional<KernelLayerTimes> Price(const Layer& layer);
  /// Layers priced so far (the others were looked up).
  size_t PricedCount() const { return m_priced; }

 private:
  struct Entry {
    const Layer* layer;
    std::optional<KernelLayerTimes> times;
  };
  const ComputeModel* m_model;
  const TrainingConfig* m_config;
  uint64_t m_samples;
  std::vector<Entry> m_entries;
  size_t m_last = 0;  ///< the entry found last: blocks repeat back to back
  size_t m_priced = 0;
};

/// Compute time of one training iteration on one rank by class (gemm, attention, elementwise,
/// comm_kernel_overhead) and the time of what the roofline priced (layers without shapes or
/// with measured times), with recomputation counted where it runs (full: the whole forward
/// again; selective: the attention core's forward again), ns. Requires config.kernel_model.
struct ComputeBreakdown {
  ComputeTally kernels;
  double roofline_ns = 0.0;

  double TotalNs() const { return kernels.TotalNs() + roofline_ns; }
};
ComputeBreakdown KernelComputeBreakdown(const Model& model, const TrainingConfig& config);

}  // namespace hfsim
