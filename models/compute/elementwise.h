// Memory-bound work: elementwise kernels, norms, residual adds, casts, the loss and the
// optimizer step, priced by the bytes they move at the device's achievable HBM bandwidth.
// docs/compute-model.md §4.
//
// A transformer block's elementwise passes as Megatron-LM + Transformer Engine run them, with
// the fusions on by default in Megatron's training arguments (arguments.py negative flags
// --no-bias-gelu-fusion, --no-bias-swiglu-fusion, --no-bias-dropout-fusion, --no-rope-fusion,
// --no-masked-softmax-fusion, --no-gradient-accumulation-fusion) and in TE's fused modules
// (LayerNormLinear: the norm written straight into the next GEMM's input, quantized under FP8):
//
//   forward                                         backward
//   input norm (in QKV's LayerNormLinear)            residual-gradient add (attention branch)
//   RoPE on q and k (fused kernel)                   input norm backward
//   [fp8] cast of the attention output for proj      RoPE backward on dq, dk
//   bias-dropout-add after proj (fused)              [fp8] casts of the four GEMMs' output
//   pre-MLP norm (in fc1's LayerNormLinear)              gradients
//   bias-SwiGLU / bias-GeLU (fused)                  SwiGLU / GeLU backward
//   [fp8] cast of the activation for fc2             pre-MLP norm backward
//   bias-dropout-add after fc2 (fused)               residual-gradient add (MLP branch)
//                                                    dropout backward (when hidden dropout)
// Bytes are per token of the micro-batch (the whole sequence) on one rank: token-wise work
// (norms, residual adds) is split over the tensor group only with sequence parallelism;
// head- and FFN-wise work (RoPE, activation, casts of sharded tensors) always is. Activations
// are 16-bit (the high precision); FP8 casts read 16 bits and write 1 byte row-wise plus 1 byte
// column-wise (TE keeps a transposed FP8 copy for wgrad on Hopper). Bias gradients, norm
// statistics and scales are per row or per channel and left out (< 1 % of the bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "models/compute/device.h"
#include "models/compute/pass.h"
#include "models/compute/precision.h"

namespace hfsim {

/// bytes / (HBM bandwidth x achievable fraction), ns.
double ElementwiseTimeNs(const DeviceSpec& device, double bytes);

/// A transformer block's dimensions, whole (before any tensor split).
struct BlockDims {
  uint64_t hidden = 0;
  /// FFN width F: fc1 makes 2F (gated) or F outputs, fc2 reads F.
  uint64_t ffn = 0;
  bool gated = true;
  /// Query width (heads x head_dim); 0: hidden.
  uint64_t query_dim = 0;
  /// Key (= value) width (kv_heads x head_dim); 0: query width.
  uint64_t kv_dim = 0;
  bool rope = true;
  /// Dropout after the attention projection and fc2 (GPT-3: yes; Llama: no).
  bool hidden_dropout = false;

  uint64_t QueryDim() const { return query_dim > 0 ? query_dim : hidden; }
  uint64_t KvDim() const { return kv_dim > 0 ? kv_dim : QueryDim(); }
};

struct BlockParallel {
  uint32_t tensor = 1;
  bool sequence_parallel = false;
};

struct ElementwisePass {
  std::string_view name;
  double bytes_per_token = 0.0;
};

/// The passes of one block (or of the loss), each with its bytes per token; no allocation.
struct ElementwiseBreakdown {
  std::array<ElementwisePass, 16> passes{};
  size_t count = 0;
  double bytes_per_token = 0.0;

  void Add(std::string_view name, double bytes) {
    passes[count++] = ElementwisePass{name, bytes};
    bytes_per_token += bytes;
  }
};

/// The block's elementwise passes for one pass direction, with the linear layers' GEMMs in
/// `linear_precision` (fp8 adds the casts). Multiply bytes_per_token by the tokens of the
/// micro-batch (batch x sequence / context-parallel degree) and price with ElementwiseTimeNs.
ElementwiseBreakdown BlockElementwiseBytes(const BlockDims& dims, const BlockParallel& parallel,
                                           Precision linear_precision, Pass pass);

/// The loss over vocabulary-parallel logits (V / tensor per rank), per token. Megatron's
/// default vocab_parallel_cross_entropy (megatron/core/tensor_parallel/cross_entropy.py) works
/// in fp32: forward cast to fp32 (read 2, write 4), max (read 4), subtract in place (8), exp in
/// place (8), sum (4), divide in place (8); backward multiply in place (8) and the cast back
/// (read 4, write 2). `fused` (--cross-entropy-loss-fusion, off by default) is priced as three
/// fused passes forward (cast + max, subtract + exp + sum, divide: 6 + 8 + 8) and the same
/// backward: an estimate, not a measurement.
ElementwiseBreakdown LossElementwiseBytes(uint64_t vocab, uint32_t tensor, bool fused, Pass pass);

/// Bytes one Adam step moves per parameter of the rank's optimizer shard, as Megatron's
/// (distributed) optimizer keeps the states: reads the fp32 main parameter, fp32 gradient,
/// fp32 exp_avg and exp_avg_sq (16), writes the three fp32 states back (12) and the 16-bit
/// model parameter (2): 30.
double AdamStepBytesPerParameter();

/// Bytes per GEMM weight element to make its FP8 copies once per optimizer step (TE caches them
/// across micro-batches): read the 16-bit weight, write it row-wise and column-wise: 4.
double Fp8WeightCastBytesPerParameter();

}  // namespace hfsim
