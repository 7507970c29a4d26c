// One transformer block of a TransformerSpec as a Layer: its exact parameters, forward FLOPs,
// kept activations, keys and values, routed experts and its operations with their shapes.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/layer.h"
#include "workloads/transformer-spec.h"

namespace hfsim {

/// Parameters of block `layer` (0-based): attention, norms, and its MLP or its router, shared
/// and routed experts. `spec` must pass CheckTransformerSpec's field limits.
uint64_t TransformerBlockParams(const TransformerSpec& spec, uint32_t layer);

/// Multiply-adds per token of block `layer`'s weight matrices, its routed experts left out (their
/// work is counted per token routed).
uint64_t TransformerBlockMatrixMacs(const TransformerSpec& spec, uint32_t layer);

/// Block `layer` for sequences of `seq` tokens, named `name`. Forward FLOPs per sample:
///   2 seq (matrix multiply-adds per token)  every token through every matrix but the routed
///                                           experts' (biases, norms, activations left out)
/// + 2 seq^2 heads (qk_head_dim + v_head_dim) the attention core, scores and weighted sum, over
///                                           the full seq x seq square (the causal mask is not
///                                           exploited, as in Megatron's estimate before 2025)
/// Kept activations by Korthikanti et al. 2022, eq. 1 (s h (34 + 5 a s / h) bytes, 16-bit),
/// whatever the architecture; keys and values expanded for every key/value head.
Layer BuildTransformerBlock(const TransformerSpec& spec, uint32_t layer, uint64_t seq,
                            std::string name);

}  // namespace hfsim
