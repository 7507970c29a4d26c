// Published models, built layer by layer from their architecture hyper-parameters so that every
// parameter count and FLOP figure can be checked against its definition.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/layer.h"
#include "workloads/transformer-spec.h"

namespace hfsim {

/// Names accepted by the scenario's "workload.training.model": "resnet50", "vgg16", "bert_base",
/// "bert_large", "gpt2_small", "gpt2_medium", "gpt2_large", "gpt2_xl", "gpt3_175b", "llama3_8b",
/// "llama3_70b", "llama3_405b", "mixtral_8x7b", "deepseek_v3".
const std::vector<std::string>& ModelZooNames();

/// The model, or nullopt for an unknown name. `sequence_length` (tokens) sets the activation
/// sizes and attention FLOPs of transformers; 0 means the model's own context length
/// (BERT 512, GPT-2 1024, GPT-3 2048). CNNs ignore it (ImageNet 224x224 inputs).
std::optional<Model> BuildZooModel(std::string_view name, uint32_t sequence_length = 0);

/// The model's default sequence length in tokens (0 for CNNs).
uint32_t ZooDefaultSequenceLength(std::string_view name);

/// The hyper-parameters a zoo transformer is built from (BuildZooModel is BuildTransformer of
/// them), or nullopt for a CNN or an unknown name.
std::optional<TransformerSpec> ZooTransformerSpec(std::string_view name);

}  // namespace hfsim
