#include "workloads/model-zoo.h"

#include <algorithm>

#include "workloads/transformer-model.h"
#include "workloads/zoo-cnns.h"
#include "workloads/zoo-moe.h"
#include "workloads/zoo-transformers.h"

namespace hfsim {
namespace {

enum class Family { kResNet50, kVgg16, kTransformer };

struct ZooEntry {
  Family family;
  /// The name for every family; the hyper-parameters only for transformers.
  TransformerSpec spec;
  /// The context the model was trained with: its default sequence length (0 for CNNs).
  uint32_t context = 0;
};

// Hyper-parameters as published (BERT: Devlin et al. 2019; GPT-2: the released checkpoints'
// configs; GPT-3: Brown et al. 2020, Table 2.1; Llama 3: the released checkpoints' configs
// (Meta 2024, "The Llama 3 Herd of Models", Table 3), trained with an 8,192-token context;
// Mixtral and DeepSeek-V3 in zoo-moe.h, with their training contexts: Mixtral 32K,
// DeepSeek-V3's pre-training 4K).
const std::vector<ZooEntry>& Entries() {
  static const std::vector<ZooEntry> entries = {
      {Family::kResNet50, {.name = "resnet50"}},
      {Family::kVgg16, {.name = "vgg16"}},
      {Family::kTransformer, BertSpec("bert_base", 12, 768, 12), 512},
      {Family::kTransformer, BertSpec("bert_large", 24, 1024, 16), 512},
      {Family::kTransformer, GptSpec("gpt2_small", 12, 768, 12, 1024), 1024},
      {Family::kTransformer, GptSpec("gpt2_medium", 24, 1024, 16, 1024), 1024},
      {Family::kTransformer, GptSpec("gpt2_large", 36, 1280, 20, 1024), 1024},
      {Family::kTransformer, GptSpec("gpt2_xl", 48, 1600, 25, 1024), 1024},
      {Family::kTransformer, GptSpec("gpt3_175b", 96, 12288, 96, 2048), 2048},
      {Family::kTransformer, Llama3Spec("llama3_8b", 32, 4096, 14336, 32), 8192},
      {Family::kTransformer, Llama3Spec("llama3_70b", 80, 8192, 28672, 64), 8192},
      {Family::kTransformer, Llama3Spec("llama3_405b", 126, 16384, 53248, 128), 8192},
      {Family::kTransformer, Mixtral8x7BSpec(), 32768},
      {Family::kTransformer, DeepSeekV3Spec(), 4096},
  };
  return entries;
}

const ZooEntry* Find(std::string_view name) {
  const auto& entries = Entries();
  auto it = std::find_if(entries.begin(), entries.end(),
                         [name](const ZooEntry& e) { return e.spec.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string>& ModelZooNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const ZooEntry& e : Entries()) result.push_back(e.spec.name);
    return result;
  }();
  return names;
}

// A transformer's default is the context it was trained with (for BERT and GPT, the length of
// its position table).
uint32_t ZooDefaultSequenceLength(std::string_view name) {
  const ZooEntry* entry = Find(name);
  return entry == nullptr ? 0 : entry->context;
}

std::optional<TransformerSpec> ZooTransformerSpec(std::string_view name) {
  const ZooEntry* entry = Find(name);
  if (entry == nullptr || entry->family != Family::kTransformer) return std::nullopt;
  return entry->spec;
}

// A sequence longer than the position table is still built (parameters stay those of the
// published model) so that scenarios can explore long-context variants.
std::optional<Model> BuildZooModel(std::string_view name, uint32_t sequence_length) {
  const ZooEntry* entry = Find(name);
  if (entry == nullptr) return std::nullopt;
  const uint32_t seq = sequence_length == 0 ? ZooDefaultSequenceLength(name) : sequence_length;
  switch (entry->family) {
    case Family::kResNet50:
      return BuildResNet50();
    case Family::kVgg16:
      return BuildVgg16();
    case Family::kTransformer:
      return BuildTransformer(entry->spec, seq);
  }
  return std::nullopt;
}

}  // namespace hfsim
