// The zoo's transformers, now built from their TransformerSpec, against the builders they
// replaced (legacy-zoo-builders.h, verbatim): every row's name and every number the old rows
// held is the same double or integer, at the default and at other sequence lengths, and the
// roofline prices every row exactly as before (the rows that gained operations are priced whole).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/workloads/legacy-zoo-builders.h"
#include "workloads/model-zoo.h"
#include "workloads/training-loop.h"
#include "workloads/transformer-model.h"

namespace hfsim {
namespace {

// The zoo's table before the change (model-zoo.cc at commit 6a657a8), and how it built each.
Model LegacyZooModel(const std::string& name, uint32_t seq) {
  constexpr uint64_t kBertVocab = 30522, kGptVocab = 50257, kLlamaVocab = 128256;
  using legacy::TransformerConfig;
  if (name == "bert_base")
    return legacy::BuildBert({name, 12, 768, 3072, kBertVocab, 512, 2, 12}, seq);
  if (name == "bert_large")
    return legacy::BuildBert({name, 24, 1024, 4096, kBertVocab, 512, 2, 16}, seq);
  if (name == "gpt2_small")
    return legacy::BuildGpt({name, 12, 768, 3072, kGptVocab, 1024, 0, 12}, seq);
  if (name == "gpt2_medium")
    return legacy::BuildGpt({name, 24, 1024, 4096, kGptVocab, 1024, 0, 16}, seq);
  if (name == "gpt2_large")
    return legacy::BuildGpt({name, 36, 1280, 5120, kGptVocab, 1024, 0, 20}, seq);
  if (name == "gpt2_xl")
    return legacy::BuildGpt({name, 48, 1600, 6400, kGptVocab, 1024, 0, 25}, seq);
  if (name == "gpt3_175b")
    return legacy::BuildGpt({name, 96, 12288, 49152, kGptVocab, 2048, 0, 96}, seq);
  if (name == "llama3_8b")
    return legacy::BuildLlama({name, 32, 4096, 14336, kLlamaVocab, 8192, 0, 32, 8}, seq);
  if (name == "llama3_70b")
    return legacy::BuildLlama({name, 80, 8192, 28672, kLlamaVocab, 8192, 0, 64, 8}, seq);
  if (name == "llama3_405b")
    return legacy::BuildLlama({name, 126, 16384, 53248, kLlamaVocab, 8192, 0, 128, 8}, seq);
  if (name == "mixtral_8x7b") return legacy::BuildMixtral8x7B(seq);
  if (name == "deepseek_v3") return legacy::BuildDeepSeekV3(seq);
  ADD_FAILURE() << "no legacy builder for " << name;
  return {};
}

const std::vector<std::string> kTransformers = {
    "bert_base", "bert_large", "gpt2_small", "gpt2_medium", "gpt2_large",   "gpt2_xl",
    "gpt3_175b", "llama3_8b",  "llama3_70b", "llama3_405b", "mixtral_8x7b", "deepseek_v3"};

// The fields a row had before shapes were added, compared exactly (EXPECT_EQ on doubles: the
// same bits, not nearly).
void ExpectSameRow(const Layer& old_row, const Layer& row, const std::string& where) {
  EXPECT_EQ(row.name, old_row.name) << where;
  EXPECT_EQ(row.params, old_row.params) << where;
  EXPECT_EQ(row.forward_flops_per_sample, old_row.forward_flops_per_sample) << where;
  EXPECT_EQ(row.output_elements_per_sample, old_row.output_elements_per_sample) << where;
  EXPECT_EQ(row.tensor_parallel_all_reduces, old_row.tensor_parallel_all_reduces) << where;
  EXPECT_EQ(row.forward_ns, old_row.forward_ns) << where;
  EXPECT_EQ(row.input_grad_ns, old_row.input_grad_ns) << where;
  EXPECT_EQ(row.weight_grad_ns, old_row.weight_grad_ns) << where;
  EXPECT_EQ(row.forward_comm, old_row.forward_comm) << where;
  EXPECT_EQ(row.input_grad_comm, old_row.input_grad_comm) << where;
  EXPECT_EQ(row.weight_grad_comm, old_row.weight_grad_comm) << where;
  EXPECT_EQ(row.routed, old_row.routed) << where;
  EXPECT_EQ(row.attention_flops_per_sample, old_row.attention_flops_per_sample) << where;
  EXPECT_EQ(row.activation_bytes_per_sample, old_row.activation_bytes_per_sample) << where;
  EXPECT_EQ(row.attention_activation_bytes_per_sample,
            old_row.attention_activation_bytes_per_sample)
      << where;
  EXPECT_EQ(row.kv_elements_per_sample, old_row.kv_elements_per_sample) << where;
  if (old_row.operations.empty()) {
    // Priced whole before; the operations it gained must not change that.
    EXPECT_TRUE(row.roofline_as_one) << where;
    return;
  }
  EXPECT_FALSE(row.roofline_as_one) << where;
  ASSERT_EQ(row.operations.size(), old_row.operations.size()) << where;
  for (size_t i = 0; i < row.operations.size(); ++i) {
    const Operation& a = old_row.operations[i];
    const Operation& b = row.operations[i];
    EXPECT_EQ(b.name, a.name) << where;
    EXPECT_EQ(b.flops_per_sample, a.flops_per_sample) << where << " " << a.name;
    EXPECT_EQ(b.activation_elements_per_sample, a.activation_elements_per_sample)
        << where << " " << a.name;
    EXPECT_EQ(b.params, a.params) << where << " " << a.name;
  }
}

// Default lengths, the shortest, odd ones (whose products are not powers of two), the zoo's
// other contexts and the longest the scenario accepts (2^20, where the largest products pass
// 2^53).
TEST(ZooSpecIdentity, EveryRowKeepsEveryNumber) {
  const std::vector<uint32_t> lengths = {0,    1,    7,    100,   1000,      1023,
                                         2048, 4097, 8192, 32768, 1'000'003, 1u << 20};
  for (const std::string& name : kTransformers) {
    for (const uint32_t length : lengths) {
      const uint32_t seq = length == 0 ? ZooDefaultSequenceLength(name) : length;
      const Model old_model = LegacyZooModel(name, seq);
      const Model model = *BuildZooModel(name, length);
      const std::string where = name + " at " + std::to_string(seq);
      EXPECT_EQ(model.name, old_model.name) << where;
      EXPECT_EQ(model.attention_heads, old_model.attention_heads) << where;
      EXPECT_EQ(model.kv_heads, old_model.kv_heads) << where;
      ASSERT_EQ(model.layers.size(), old_model.layers.size()) << where;
      for (size_t i = 0; i < model.layers.size(); ++i) {
        ExpectSameRow(old_model.layers[i], model.layers[i], where + " row " + std::to_string(i));
      }
    }
  }
}

// The roofline (and the FLOP model) price each row of the old and the new model to the same
// nanosecond, with and without tensor and expert parallelism, recomputation and context.
TEST(ZooSpecIdentity, TheRooflinePricesEveryRowAsBefore) {
  for (const std::string& name : kTransformers) {
    const uint32_t seq = ZooDefaultSequenceLength(name);
    Model old_model = LegacyZooModel(name, seq);
    const Model model = *BuildZooModel(name);
    // The legacy builders predate Layer::checkpointed (full recomputation leaves the embedding,
    // the final norm and the head alone): the rows take the new model's.
    ASSERT_EQ(old_model.layers.size(), model.layers.size()) << name;
    for (size_t i = 0; i < model.layers.size(); ++i) {
      old_model.layers[i].checkpointed = model.layers[i].checkpointed;
    }
    for (const uint32_t tensor : {1u, 4u}) {
      for (const double bandwidth : {0.0, 2039.0, 3350.0}) {
        TrainingConfig config;
        config.global_batch_samples = 8;
        config.data_parallel = 2;
        config.tensor_parallel = tensor;
        config.peak_flops_per_ns = 989e3;
        config.compute_efficiency = 0.5;
        config.memory_bytes_per_ns = bandwidth;
        config.recompute = tensor == 1 ? Recompute::kSelective : Recompute::kFull;
        config.expert_parallel = old_model.layers[1].routed ? 2 : 1;
        const TrainingIteration a = BuildTrainingIteration(old_model, config);
        const TrainingIteration b = BuildTrainingIteration(model, config);
        ASSERT_EQ(a.layers.size(), b.layers.size());
        for (size_t i = 0; i < a.layers.size(); ++i) {
          const std::string where = name + " " + a.layers[i].name;
          EXPECT_EQ(b.layers[i].forward_ns, a.layers[i].forward_ns) << where;
          EXPECT_EQ(b.layers[i].input_grad_ns, a.layers[i].input_grad_ns) << where;
          EXPECT_EQ(b.layers[i].weight_grad_ns, a.layers[i].weight_grad_ns) << where;
          EXPECT_EQ(b.layers[i].forward_comm, a.layers[i].forward_comm) << where;
          EXPECT_EQ(b.layers[i].weight_grad_comm, a.layers[i].weight_grad_comm) << where;
          EXPECT_EQ(b.layers[i].forward_expert, a.layers[i].forward_expert) << where;
        }
      }
    }
  }
}

// The comparison can fail: a spec one hidden unit wider differs from the zoo's row by row.
TEST(ZooSpecIdentity, ADifferentSpecIsCaught) {
  TransformerSpec spec = *ZooTransformerSpec("llama3_8b");
  EXPECT_EQ(BuildTransformer(spec, 8192).layers, BuildZooModel("llama3_8b")->layers);
  spec.ffn += 1;
  EXPECT_NE(BuildTransformer(spec, 8192).layers[1].params,
            LegacyZooModel("llama3_8b", 8192).layers[1].params);
}

}  // namespace
}  // namespace hfsim
