#include "workloads/model-zoo.h"

#include <algorithm>

#include "workloads/zoo-cnns.h"
#include "workloads/zoo-moe.h"
#include "workloads/zoo-transformers.h"

namespace hfsim {
namespace {

enum class Family { kResNet50, kVgg16, kBert, kGpt, kLlama, kMixtral, kDeepSeekV3 };

struct ZooEntry {
  Family family;
  /// The name for every family; the hyper-parameters only for transformers.
  TransformerConfig config;
};

// Hyper-parameters as published, heads last (BERT: Devlin et al. 2019; GPT-2: the released checkpoints'
// configs; GPT-3: Brown et al. 2020, Table 2.1; Llama 3: the released checkpoints' configs
// (Meta 2024, "The Llama 3 Herd of Models", Table 3), trained with an 8,192-token context).
// Every BERT and GPT MLP is 4 * d_model wide; Llama's are as published.
const std::vector<ZooEntry>& Entries() {
  constexpr uint64_t kBertVocab = 30522;
  constexpr uint64_t kGptVocab = 50257;
  constexpr uint64_t kLlamaVocab = 128256;
  static const std::vector<ZooEntry> entries = {
      {Family::kResNet50, {.name = "resnet50"}},
      {Family::kVgg16, {.name = "vgg16"}},
      {Family::kBert, {"bert_base", 12, 768, 3072, kBertVocab, 512, 2, 12}},
      {Family::kBert, {"bert_large", 24, 1024, 4096, kBertVocab, 512, 2, 16}},
      {Family::kGpt, {"gpt2_small", 12, 768, 3072, kGptVocab, 1024, 0, 12}},
      {Family::kGpt, {"gpt2_medium", 24, 1024, 4096, kGptVocab, 1024, 0, 16}},
      {Family::kGpt, {"gpt2_large", 36, 1280, 5120, kGptVocab, 1024, 0, 20}},
      {Family::kGpt, {"gpt2_xl", 48, 1600, 6400, kGptVocab, 1024, 0, 25}},
      {Family::kGpt, {"gpt3_175b", 96, 12288, 49152, kGptVocab, 2048, 0, 96}},
      {Family::kLlama, {"llama3_8b", 32, 4096, 14336, kLlamaVocab, 8192, 0, 32, 8}},
      {Family::kLlama, {"llama3_70b", 80, 8192, 28672, kLlamaVocab, 8192, 0, 64, 8}},
      {Family::kLlama, {"llama3_405b", 126, 16384, 53248, kLlamaVocab, 8192, 0, 128, 8}},
      // Hyper-parameters in zoo-moe.h; here the context each was trained with (Mixtral: 32K;
      // DeepSeek-V3's pre-training: 4K).
      {Family::kMixtral, {.name = "mixtral_8x7b", .max_positions = 32768}},
      {Family::kDeepSeekV3, {.name = "deepseek_v3", .max_positions = 4096}},
  };
  return entries;
}

const ZooEntry* Find(std::string_view name) {
  const auto& entries = Entries();
  auto it = std::find_if(entries.begin(), entries.end(),
                         [name](const ZooEntry& e) { return e.config.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string>& ModelZooNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const ZooEntry& e : Entries()) result.push_back(e.config.name);
    return result;
  }();
  return names;
}

// A transformer's default is the context it was trained with: its position-table length (for
// Llama, which has no table, the context length it was trained with).
uint32_t ZooDefaultSequenceLength(std::string_view name) {
  const ZooEntry* entry = Find(name);
  return entry == nullptr ? 0 : static_cast<uint32_t>(entry->config.max_positions);
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
    case Family::kBert:
      return BuildBert(entry->config, seq);
    case Family::kGpt:
      return BuildGpt(entry->config, seq);
    case Family::kLlama:
      return BuildLlama(entry->config, seq);
    case Family::kMixtral:
      return BuildMixtral8x7B(seq);
    case Family::kDeepSeekV3:
      return BuildDeepSeekV3(seq);
  }
  return std::nullopt;
}

}  // namespace hfsim
