// A TransformerSpec built into the rows of a Model, named and arranged as spec.rows says.
#pragma once

#include <cstdint>

#include "workloads/layer.h"
#include "workloads/transformer-spec.h"

namespace hfsim {

/// The model `spec` describes for sequences of `sequence_length` tokens. `spec` must pass
/// CheckTransformerSpec and the length CheckSequenceLength. Rows, in order:
///   the embedding (token table, learned position and token-type tables, embedding norm; 0 FLOPs,
///     one all-reduce under tensor parallelism, as a vocab-parallel table needs);
///   the blocks (transformer-block.h; 2 all-reduces each; Model::first_block and blocks mark them);
///   llama: "norm" and "output" (the LM head: vocab x hidden parameters unless tied, 2 s d vocab
///     FLOPs, no all-reduce: a vocab-parallel cross-entropy exchanges per-token scalars only);
///   gpt2: "ln_f" (the final norm, with the tied LM head's FLOPs);
///   bert: "pooler" (a d x d layer with bias on the first token: 2 d^2 FLOPs, output d);
///   then per multi-token-prediction module "mtp.<k>" (its two norms, its 2d x d projection and
///   a block of the last layer's kind, with the embedding lookup's all-reduce: 3) and
///   "mtp.<k>.output" (its norm and the shared LM head's FLOPs).
/// Every row lists its operations with their shapes; all but the dense standard-attention
/// blocks are priced whole by the roofline (Layer::roofline_as_one).
Model BuildTransformer(const TransformerSpec& spec, uint32_t sequence_length);

/// Marks the first `first` and the last `last` of the model's transformer blocks (the rows
/// Model::first_block and Model::blocks mark) to stay in high precision (Layer::high_precision):
/// Megatron-LM's first_last_layers_bf16, which counts the decoder's layers only
/// (megatron/core/fp8_utils.py, is_first_last_bf16_layer), so multi-token prediction modules
/// are left as they are. A model that marks no blocks is left as it is.
void KeepEndLayersInHighPrecision(uint32_t first, uint32_t last, Model& model);

/// Parameters of every row but the routed experts a token does not go to: what one token uses
/// ("active" parameters, as mixture-of-experts papers report them).
uint64_t ActiveParams(const Model& model);

}  // namespace hfsim
