// A Hugging Face transformers config.json read as a TransformerSpec, for the causal language
// models whose architecture hfsim counts exactly: Llama (1, 2, 3, 3.1), Mistral, Mixtral,
// Qwen2/Qwen2.5, Qwen3 (dense and MoE) and DeepSeek-V3.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workloads/transformer-spec.h"

namespace hfsim {

/// The model_type values read, each with its one accepted class in "architectures":
/// llama (LlamaForCausalLM), mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v3.
const std::vector<std::string>& HfModelTypes();

/// What ReadHfConfig found: the spec, or the first problem, named by the config's key ("" for
/// the file as a whole) with the value found and what is accepted.
struct HfConfigRead {
  std::optional<TransformerSpec> spec;
  SpecProblem problem;
};

/// The model a config.json (parsed) describes, named `name`. The model type comes from
/// "model_type", or from "architectures" when that is missing; a type outside HfModelTypes(),
/// another head than the causal LM's, or a feature that would change the counts and is not
/// modelled is refused, naming its key:
///   - sliding-window attention per layer (Qwen's use_sliding_window: true), and attention
///     biases in latent attention;
///   - a model-wide sliding window (Mistral's sliding_window) is kept in the spec: the model is
///     built only for sequences that fit in it, where it changes nothing.
/// Keys that change no count (rope scaling, dropout, token ids, torch_dtype, quantization) are
/// not read. Missing keys take the transformers library's defaults for the type.
HfConfigRead ReadHfConfig(const nlohmann::json& config, const std::string& name);

}  // namespace hfsim
