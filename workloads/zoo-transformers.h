// Transformer models of the zoo (BERT encoders, GPT decoders, Llama 3), as the hyper-parameters
// they were published with. BuildTransformer (transformer-model.h) builds them.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/transformer-spec.h"

namespace hfsim {

/// A BERT encoder as Hugging Face's BertModel (no pre-training heads): post-norm LayerNorm
/// blocks with biases, a GELU MLP of 4 d, learned positions (512) and token types (2), an
/// embedding LayerNorm and the pooler. Rows "embeddings(word+pos+type+LN)", "encoder.layer.<i>",
/// "pooler". A block holds 12 d^2 + 13 d parameters.
TransformerSpec BertSpec(std::string name, uint32_t layers, uint64_t d, uint32_t heads);

/// A GPT-2-style decoder: pre-norm LayerNorm blocks with biases, a GELU MLP of 4 d, learned
/// positions (`context` rows), the LM head tied to the token embedding. Rows "wte+wpe", "h.<i>",
/// "ln_f" (which also carries the LM head's logits FLOPs). Pre- versus post-norm placement changes
/// no count, so BERT's block and this one hold the same parameters: e.g. d = 768, ffn = 3072:
/// 4 x 590,592 + 2 x 1,536 + 2,362,368 + 2,360,064 = 7,087,872 (12 d^2 + 13 d).
TransformerSpec GptSpec(std::string name, uint32_t layers, uint64_t d, uint32_t heads,
                        uint64_t context);

/// A Llama 3 decoder: grouped-query attention (8 key/value heads of 128), a SwiGLU MLP of three
/// d x ffn matrices, RMSNorm (a scale only), no biases, rotary positions (no table), vocab
/// 128,256 and an LM head of its own. Rows "tok_embeddings", "layers.<i>", "norm", "output".
/// Llama 3 8B's block (d = 4096, 32 heads, ffn 14,336): 2 x 16,777,216 + 2 x 4,194,304 +
/// 176,160,768 + 8,192 = 218,112,000 parameters.
TransformerSpec Llama3Spec(std::string name, uint32_t layers, uint64_t d, uint64_t ffn,
                           uint32_t heads);

}  // namespace hfsim
