// Transformer FLOPs and activation sizes worked out by hand, and how they scale with the
// sequence length: matrices and activations linearly, attention quadratically.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

const Layer& Row(const Model& model, const std::string& name) {
  for (const Layer& layer : model.layers) {
    if (layer.name == name) return layer;
  }
  ADD_FAILURE() << model.name << " has no row " << name;
  static const Layer kMissing;
  return kMissing;
}

Model Build(const std::string& name, uint32_t sequence_length) {
  std::optional<Model> model = BuildZooModel(name, sequence_length);
  EXPECT_TRUE(model.has_value()) << name;
  return model.value_or(Model{});
}

// GPT-2 small block, d = 768, ffn = 3072, L = 1024 tokens; a multiply-add is 2 FLOPs.
//   Q, K, V, O projections: 4 * 768 * 768   = 2,359,296 MACs per token
//   MLP up and down:        2 * 768 * 3072  = 4,718,592 MACs per token
//   matrices: 2 * 1024 * (2,359,296 + 4,718,592) = 2 * 1024 * 7,077,888  = 14,495,514,624
//   scores Q K^T and the weighted sum of V: 2 * 2 * 1024^2 * 768           =  3,221,225,472
//   block total                                                             = 17,716,740,096
TEST(ZooFlopsTest, Gpt2SmallBlockAt1024) {
  const Model gpt2 = Build("gpt2_small", 1024);
  const Layer& block = Row(gpt2, "h.0");
  EXPECT_EQ(block.forward_flops_per_sample, 17'716'740'096.0);
  EXPECT_EQ(block.output_elements_per_sample, 1024u * 768u);
  EXPECT_EQ(block.tensor_parallel_all_reduces, 2u);
  // Every block is the same but for its name.
  Layer last = Row(gpt2, "h.11");
  last.name = block.name;
  EXPECT_EQ(last, block);
}

// BERT-base block, d = 768, ffn = 3072, L = 512:
//   matrices: 2 * 512 * 7,077,888            = 7,247,757,312
//   attention: 2 * 2 * 512^2 * 768 = 4 * 262,144 * 768 = 805,306,368
//   block total                              = 8,053,063,680
TEST(ZooFlopsTest, BertBaseBlockAt512) {
  const Model bert = Build("bert_base", 512);
  const Layer& block = Row(bert, "encoder.layer.0");
  EXPECT_EQ(block.forward_flops_per_sample, 8'053'063'680.0);
  EXPECT_EQ(block.output_elements_per_sample, 512u * 768u);
  EXPECT_EQ(block.tensor_parallel_all_reduces, 2u);
}

// Embeddings are lookups; the tied LM head's logits matmul sits on ln_f:
// 2 * 1024 * 768 * 50,257 = 79,047,426,048. Whole model: 12 * 17,716,740,096 + 79,047,426,048
// = 291,648,307,200.
TEST(ZooFlopsTest, Gpt2SmallEmbeddingAndHead) {
  const Model gpt2 = Build("gpt2_small", 1024);
  const Layer& embedding = Row(gpt2, "wte+wpe");
  EXPECT_EQ(embedding.forward_flops_per_sample, 0.0);
  EXPECT_EQ(embedding.output_elements_per_sample, 1024u * 768u);
  EXPECT_EQ(embedding.tensor_parallel_all_reduces, 1u);
  const Layer& ln_f = Row(gpt2, "ln_f");
  EXPECT_EQ(ln_f.forward_flops_per_sample, 79'047'426'048.0);
  EXPECT_EQ(ln_f.output_elements_per_sample, 1024u * 768u);
  EXPECT_EQ(ln_f.tensor_parallel_all_reduces, 0u);
  EXPECT_EQ(gpt2.TotalForwardFlopsPerSample(), 291'648'307'200.0);
}

// The pooler is one d x d dense layer on the [CLS] token: 2 * 768 * 768 = 1,179,648 FLOPs,
// 768 outputs, whatever the sequence length. BERT-base total at 512:
// 12 * 8,053,063,680 + 1,179,648 = 96,637,943,808.
TEST(ZooFlopsTest, BertBasePoolerAndTotal) {
  const Model bert = Build("bert_base", 512);
  const Layer& pooler = Row(bert, "pooler");
  EXPECT_EQ(pooler.forward_flops_per_sample, 1'179'648.0);
  EXPECT_EQ(pooler.output_elements_per_sample, 768u);
  EXPECT_EQ(pooler.tensor_parallel_all_reduces, 0u);
  EXPECT_EQ(Row(bert, "embeddings(word+pos+type+LN)").forward_flops_per_sample, 0.0);
  EXPECT_EQ(bert.TotalForwardFlopsPerSample(), 96'637'943'808.0);
}

// GPT-3 175B block, d = 12288, L = 2048 (exact in a double: < 2^53):
//   matrices: 2 * 2048 * 12 * 12288^2 = 4096 * 1,811,939,328 = 7,421,703,487,488
//   attention: 4 * 2048^2 * 12288                              =   206,158,430,208
//   block                                                      = 7,627,861,917,696
//   model: 96 blocks + LM head 2 * 2048 * 12288 * 50,257 (2,529,517,633,536)
//        = 734,804,261,732,352, i.e. ~2 * 175e9 * 2048 = 7.2e14 plus attention.
TEST(ZooFlopsTest, Gpt3BlockAndTotalAt2048) {
  const Model gpt3 = Build("gpt3_175b", 0);
  EXPECT_EQ(Row(gpt3, "h.95").forward_flops_per_sample, 7'627'861'917'696.0);
  EXPECT_EQ(Row(gpt3, "ln_f").forward_flops_per_sample, 2'529'517'633'536.0);
  EXPECT_EQ(gpt3.TotalForwardFlopsPerSample(), 734'804'261'732'352.0);
}

// A block's FLOPs are f(L) = a L + b L^2. From three lengths, finite differences separate the
// two terms without assuming the formula: f(2L) - 2 f(L) = 2 b L^2 and f(4L) - 4 f(L) = 12 b L^2.
// The linear part must be the matrices (2 * 12 d^2 per token), the quadratic one the attention
// (4 d per token pair).
void ExpectLinearAndQuadraticParts(const std::string& name, const std::string& block_name,
                                   double d) {
  constexpr uint32_t kL = 256;
  const double f1 = Row(Build(name, kL), block_name).forward_flops_per_sample;
  const double f2 = Row(Build(name, 2 * kL), block_name).forward_flops_per_sample;
  const double f4 = Row(Build(name, 4 * kL), block_name).forward_flops_per_sample;
  const double quadratic = (f2 - 2 * f1) / 2;  // b L^2
  EXPECT_EQ(f4 - 4 * f1, 12 * quadratic);
  EXPECT_EQ(quadratic, 4.0 * kL * kL * d);
  EXPECT_EQ(f1 - quadratic, 2.0 * kL * 12 * d * d);
}

TEST(ZooFlopsTest, AttentionScalesQuadraticallyMatricesLinearly) {
  ExpectLinearAndQuadraticParts("gpt2_small", "h.0", 768);
  ExpectLinearAndQuadraticParts("gpt2_xl", "h.0", 1600);
  ExpectLinearAndQuadraticParts("bert_large", "encoder.layer.0", 1024);
}

// Doubling L doubles every per-token activation and the LM head, and leaves parameters alone.
TEST(ZooFlopsTest, ActivationsScaleLinearly) {
  for (const std::string name : {"gpt2_medium", "bert_base"}) {
    const Model shorter = Build(name, 128);
    const Model longer = Build(name, 256);
    ASSERT_EQ(shorter.layers.size(), longer.layers.size());
    for (size_t i = 0; i < shorter.layers.size(); ++i) {
      const Layer& a = shorter.layers[i];
      const Layer& b = longer.layers[i];
      EXPECT_EQ(a.params, b.params) << a.name;
      // The pooler sees only [CLS]; everything else holds one vector per token.
      const uint64_t ratio = a.name == "pooler" ? 1 : 2;
      EXPECT_EQ(b.output_elements_per_sample, ratio * a.output_elements_per_sample) << a.name;
      EXPECT_GT(a.output_elements_per_sample, 0u) << a.name;
    }
    EXPECT_EQ(shorter.TotalParams(), longer.TotalParams());
  }
  const Model gpt2_128 = Build("gpt2_medium", 128);
  const Model gpt2_256 = Build("gpt2_medium", 256);
  EXPECT_EQ(Row(gpt2_256, "ln_f").forward_flops_per_sample,
            2 * Row(gpt2_128, "ln_f").forward_flops_per_sample);
  EXPECT_EQ(Row(gpt2_128, "h.0").output_elements_per_sample, 128u * 1024u);
}

TEST(ZooFlopsTest, CnnsIgnoreSequenceLength) {
  for (const std::string name : {"resnet50", "vgg16"}) {
    EXPECT_EQ(Build(name, 4096).layers, Build(name, 0).layers) << name;
  }
}

}  // namespace
}  // namespace hfsim
