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

TEST(ZooTotalsTest, LayerCounts) {
  EXPECT_EQ(BuildZooModel("resnet50")->layers.size(), 54u);  // 49 convs + 4 downsamples + fc
  EXPECT_EQ(BuildZooModel("vgg16")->layers.size(), 16u);
  EXPECT_EQ(BuildZooModel("bert_large")->layers.size(), 26u);  // embeddings + 24 + pooler
  EXPECT_EQ(BuildZooModel("gpt3_175b")->layers.size(), 98u);   // wte+wpe + 96 + ln_f
}

TEST(ZooTotalsTest, NamesAllBuildUnderTheirOwnName) {
  const std::vector<std::string> expected = {"resnet50",   "vgg16",      "bert_base",
                                             "bert_large", "gpt2_small", "gpt2_medium",
                                             "gpt2_large", "gpt2_xl",    "gpt3_175b"};
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
