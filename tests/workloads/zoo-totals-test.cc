// Zoo lookup and whole-model totals against the published parameter counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

// Parameter counts as reported for the reference implementations (torchvision, Hugging Face
// transformers; GPT-3 175B from its hyper-parameters in Brown et al. 2020).
TEST(ZooTotalsTest, ParamsMatchPublishedCounts) {
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"resnet50", 25'557'032},    {"vgg16", 138'357'544},      {"bert_base", 109'482'240},
      {"bert_large", 335'141'888}, {"gpt2_small", 124'439'808}, {"gpt2_medium", 354'823'168},
      {"gpt2_large", 774'030'080}, {"gpt2_xl", 1'557'611'200},  {"gpt3_175b", 174'604'259'328ull},
      // Llama 3: the counts of the released checkpoints (sum of their tensors' sizes).
      {"llama3_8b", 8'030'261'248ull}, {"llama3_70b", 70'553'706'496ull},
      {"llama3_405b", 405'853'388'800ull},
      // Mixture of experts, from the hyper-parameters (zoo-moe.h works them out per layer).
      {"mixtral_8x7b", 46'702'792'704ull}, {"deepseek_v3", 671'026'419'200ull},
  };
  for (const auto& [name, params] : expected) {
    const std::optional<Model> model = BuildZooModel(name);
    ASSERT_TRUE(model.has_value()) << name;
    EXPECT_EQ(model->TotalParams(), params) << name;
  }
}

// The familiar 4.09 G multiply-adds of ResNet-50 and 15.47 G of VGG-16 per 224x224 image.
TEST(ZooTotalsTest, CnnFlopsMatchPublishedMacs) {
  EXPECT_EQ(BuildZooModel("resnet50")->TotalForwardFlopsPerSample(), 2.0 * 4'089'184'256);
  EXPECT_EQ(BuildZooModel("vgg16")->TotalForwardFlopsPerSample(), 2.0 * 15'470'264'320);
}

// The model cards' rounded sizes: 8B, 70B and 405B parameters (the 70B card's 70.6B).
TEST(ZooTotalsTest, LlamaMatchesItsModelCards) {
  EXPECT_NEAR(BuildZooModel("llama3_8b")->TotalParams() / 1e9, 8.0, 0.05);
  EXPECT_NEAR(BuildZooModel("llama3_70b")->TotalParams() / 1e9, 70.6, 0.05);
  EXPECT_NEAR(BuildZooModel("llama3_405b")->TotalParams() / 1e9, 405.0, 0.9);
}

// One Llama 3 8B block at its 8,192-token context, by hand: per token 2 x 4096^2 (Q, O) +
// 2 x 4096 x 1024 (K, V) + 3 x 4096 x 14336 (MLP) = 218,103,808 multiply-adds, x 2 x 8192 =
// 3,573,412,790,272; attention 4 x 8192^2 x 4096 = 1,099,511,627,776; in all 4,672,924,418,048.
// The LM head: 2 x 8192 x 4096 x 128,256 = 8,607,114,461,184.
// The published sizes: Mixtral 8x7B 46.7B parameters, 12.9B active per token (Jiang et al.
// 2024); DeepSeek-V3 671B, 37B activated (its technical report). Active: every parameter but
// the routed experts a token does not use.
TEST(ZooTotalsTest, MixtureOfExpertsMatchTheirPapers) {
  auto active = [](const Model& model) {
    double total = 0.0;
    for (const Layer& layer : model.layers) {
      total += static_cast<double>(layer.params);
      if (layer.routed) {
        // All experts but the top-k a token uses.
        total -= static_cast<double>(layer.RoutedParams()) -
                 static_cast<double>(layer.routed->top_k) *
                     static_cast<double>(layer.routed->params_per_expert);
      }
    }
    return total;
  };
  const Model mixtral = *BuildZooModel("mixtral_8x7b");
  EXPECT_NEAR(mixtral.TotalParams() / 1e9, 46.7, 0.05);
  EXPECT_NEAR(active(mixtral) / 1e9, 12.9, 0.05);
  const Model deepseek = *BuildZooModel("deepseek_v3");
  EXPECT_NEAR(deepseek.TotalParams() / 1e9, 671.0, 0.5);
  EXPECT_NEAR(active(deepseek) / 1e9, 37.0, 0.6);
  // 3 dense layers, then 58 with 256 routed experts, top-8; Mixtral's 32 all routed, top-2.
  EXPECT_FALSE(deepseek.layers[3].routed.has_value());
  ASSERT_TRUE(deepseek.layers[4].routed.has_value());
  EXPECT_EQ(deepseek.layers[4].routed->experts, 256u);
  EXPECT_EQ(deepseek.layers[4].routed->top_k, 8u);
  EXPECT_EQ(deepseek.layers.size(), 1u + 61 + 2);
  ASSERT_TRUE(mixtral.layers[1].routed.has_value());
  EXPECT_EQ(mixtral.layers[1].routed->top_k, 2u);
  // One Mixtral expert for one token: 2 x 3 x 4096 x 14336 FLOPs.
  EXPECT_EQ(mixtral.layers[1].routed->forward_flops_per_token, 2.0 * 3 * 4096 * 14336);
}

TEST(ZooTotalsTest, LlamaFlopsByHand) {
  const Model model = *BuildZooModel("llama3_8b");
  EXPECT_EQ(model.layers[1].forward_flops_per_sample, 4'672'924'418'048.0);
  EXPECT_EQ(model.layers.back().name, "output");
  EXPECT_EQ(model.layers.back().forward_flops_per_sample, 8'607'114'461'184.0);
  EXPECT_EQ(model.layers[1].output_elements_per_sample, 8192u * 4096u);
}

TEST(ZooTotalsTest, LayerCounts) {
  EXPECT_EQ(BuildZooModel("resnet50")->layers.size(), 54u);  // 49 convs + 4 downsamples + fc
  EXPECT_EQ(BuildZooModel("vgg16")->layers.size(), 16u);
  EXPECT_EQ(BuildZooModel("bert_large")->layers.size(), 26u);  // embeddings + 24 + pooler
  EXPECT_EQ(BuildZooModel("gpt3_175b")->layers.size(), 98u);   // wte+wpe + 96 + ln_f
  // tok_embeddings + blocks + norm + output
  EXPECT_EQ(BuildZooModel("llama3_8b")->layers.size(), 35u);
  EXPECT_EQ(BuildZooModel("llama3_405b")->layers.size(), 129u);
}

TEST(ZooTotalsTest, NamesAllBuildUnderTheirOwnName) {
  const std::vector<std::string> expected = {"resnet50",   "vgg16",      "bert_base",
                                             "bert_large", "gpt2_small", "gpt2_medium",
                                             "gpt2_large", "gpt2_xl",    "gpt3_175b",
                                             "llama3_8b",  "llama3_70b", "llama3_405b",
                                             "mixtral_8x7b", "deepseek_v3"};
  EXPECT_EQ(ModelZooNames(), expected);
  for (const std::string& name : ModelZooNames()) {
    const std::optional<Model> model = BuildZooModel(name);
    ASSERT_TRUE(model.has_value()) << name;
    EXPECT_EQ(model->name, name);
  }
}

TEST(ZooTotalsTest, DefaultSequenceLengths) {
  EXPECT_EQ(ZooDefaultSequenceLength("bert_base"), 512u);
  EXPECT_EQ(ZooDefaultSequenceLength("bert_large"), 512u);
  for (const char* gpt2 : {"gpt2_small", "gpt2_medium", "gpt2_large", "gpt2_xl"}) {
    EXPECT_EQ(ZooDefaultSequenceLength(gpt2), 1024u) << gpt2;
  }
  EXPECT_EQ(ZooDefaultSequenceLength("gpt3_175b"), 2048u);
  EXPECT_EQ(ZooDefaultSequenceLength("llama3_70b"), 8192u);
  EXPECT_EQ(ZooDefaultSequenceLength("resnet50"), 0u);
  EXPECT_EQ(ZooDefaultSequenceLength("vgg16"), 0u);
  EXPECT_EQ(ZooDefaultSequenceLength("no_such_model"), 0u);
}

// Sequence length 0 means the default, so it must produce the very same layers.
TEST(ZooTotalsTest, ZeroSequenceLengthMeansDefault) {
  EXPECT_EQ(BuildZooModel("gpt2_small", 0)->layers, BuildZooModel("gpt2_small", 1024)->layers);
  EXPECT_EQ(BuildZooModel("bert_base", 0)->layers, BuildZooModel("bert_base", 512)->layers);
  EXPECT_EQ(BuildZooModel("gpt3_175b")->layers, BuildZooModel("gpt3_175b", 2048)->layers);
  EXPECT_NE(BuildZooModel("gpt2_small", 0)->layers, BuildZooModel("gpt2_small", 512)->layers);
}

TEST(ZooTotalsTest, UnknownNameIsNullopt) {
  EXPECT_FALSE(BuildZooModel("resnet51").has_value());
  EXPECT_FALSE(BuildZooModel("").has_value());
  EXPECT_FALSE(BuildZooModel("GPT2_SMALL").has_value());
  EXPECT_FALSE(BuildZooModel("gpt2", 1024).has_value());
}

}  // namespace
}  // namespace hfsim
