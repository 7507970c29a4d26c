// Model FLOPs as Megatron-LM counts them (workloads/model-flops.h), worked out by hand for a
// small dense model, a mixture of experts with and without shared experts, and GPT-3 175B against
// the published "6N + attention" figure and Korthikanti et al.'s model-FLOPs formula.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "workloads/model-flops.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

Model Build(const std::string& name, uint32_t sequence_length) {
  std::optional<Model> model = BuildZooModel(name, sequence_length);
  EXPECT_TRUE(model.has_value()) << name;
  return model.value_or(Model{});
}

TEST(ModelFlopsTest, ConventionNamesRoundTrip) {
  for (FlopConvention c : {FlopConvention::kMegatronCausal, FlopConvention::kMegatronFull}) {
    EXPECT_EQ(FlopConventionNamed(ToString(c)), c);
  }
  EXPECT_EQ(ToString(FlopConvention::kMegatronCausal), "megatron-causal");
  EXPECT_EQ(ToString(FlopConvention::kMegatronFull), "megatron-full");
  EXPECT_FALSE(FlopConventionNamed("causal").has_value());
  EXPECT_FALSE(FlopConventionNamed("").has_value());
}

// GPT-2 small (h = 768, 12 layers, MHA, GELU MLP of 3,072, vocabulary 50,257) at s = 1,024, in
// Megatron's terms (T = s tokens, q = h, c = 2 without SwiGLU), per sample:
//   projections 6 T (h 3h + h h)  = 6 x 1024 x 2,359,296            =  14,495,514,624 per layer
//   MLP         6 T h F c         = 6 x 1024 x 768 x 3072 x 2        =  28,991,029,248 per layer
//   core, causal 6 q s^2          = 6 x 768 x 1,048,576              =   4,831,838,208 per layer
//   logits      6 T h V           = 6 x 1024 x 768 x 50,257          = 237,142,278,144
// causal: 12 x 48,318,382,080 + 237,142,278,144 = 816,962,863,104; the whole square doubles the
// core (+ 12 x 4,831,838,208 = 57,982,058,496): 874,944,921,600 = 3 x the zoo's forward FLOPs
// (291,648,307,200, zoo-flops-test).
TEST(ModelFlopsTest, DenseModelByHand) {
  const Model gpt2 = Build("gpt2_small", 1024);
  EXPECT_EQ(ModelFlopsPerSample(gpt2, FlopConvention::kMegatronCausal), 816'962'863'104.0);
  EXPECT_EQ(ModelFlopsPerSample(gpt2, FlopConvention::kMegatronFull), 874'944'921'600.0);
  EXPECT_EQ(ModelFlopsPerSample(gpt2, FlopConvention::kMegatronFull),
            3 * gpt2.TotalForwardFlopsPerSample());
  // A sequence model's core grows with s^2 and the rest with s: at 2,048 tokens the causal
  // count is 2 x (816,962,863,104 - 12 x 4,831,838,208) + 4 x 12 x 4,831,838,208.
  const Model longer = Build("gpt2_small", 2048);
  EXPECT_EQ(ModelFlopsPerSample(longer, FlopConvention::kMegatronCausal),
            2 * (816'962'863'104.0 - 12 * 4'831'838'208.0) + 4 * 12 * 4'831'838'208.0);
}

// Mixtral 8x7B (h = 4,096, 32 layers, 32 query heads and 8 key/value heads of 128, 8 SwiGLU
// experts of 14,336, top-2, vocabulary 32,000) at s = 4,096, per sample:
//   projections 6 T (h (q + 2 kv) + q h) = 6 T (4096 x 6144 + 4096 x 4096) = 6 T 41,943,040
//   routed      6 T h F top_k c          = 6 T x 4096 x 14336 x 2 x 3      = 6 T 352,321,536
//   core, causal 6 q s^2 per layer; logits 6 T h V = 6 T 131,072,000
//   = 4096 x (32 x 6 x 394,264,576 + 6 x 131,072,000) + 4096^2 x 32 x 6 x 4096
//   = 4096 x 76,485,672,960 + 16,777,216 x 786,432 = 326,477,644,038,144
// The router (h x 8 per token) is in the zoo row's forward FLOPs and out of Megatron's count.
TEST(ModelFlopsTest, MixtureOfExpertsByHand) {
  const Model mixtral = Build("mixtral_8x7b", 4096);
  EXPECT_EQ(ModelFlopsPerSample(mixtral, FlopConvention::kMegatronCausal),
            326'477'644'038'144.0);
  // The whole square adds 4096^2 x 32 x 6 x 4096 = 13,194,139,533,312.
  EXPECT_EQ(ModelFlopsPerSample(mixtral, FlopConvention::kMegatronFull),
            326'477'644'038'144.0 + 13'194'139'533'312.0);
}

// DeepSeek-V3 (latent attention, 3 dense layers of 18,432, 58 MoE layers with one shared and
// top-8 of 256 routed SwiGLU experts of 2,048, vocabulary 129,280) at s = 4,096, against
// Megatron's formula transcribed (MLA branch; no MTP):
//   attention 6 (q_rank (h + H (qk + rope) + 1) + kv_rank (h + H (qk + v) + 1) + h rope + H v h)
//   core      6 (H (qk + rope) / 2 + H v / 2) per s^2 and layer
//   MLP       6 h (F c x 3 + (F_moe top_k c + F_shared c) x 58)
//   logits    6 h V
// = 1,023,230,173,249,536. Megatron also counts the two latent norms as one multiply-add per
// element (the "+ 1"s: 6 T (1,536 + 512) per layer = 3,070,230,528 in all), which hfsim's rows
// do not: 1,023,227,103,019,008. The shared expert is a row's own GEMM, counted as is.
TEST(ModelFlopsTest, SharedAndRoutedExpertsAgainstMegatronFormula) {
  const Model deepseek = Build("deepseek_v3", 4096);
  EXPECT_EQ(ModelFlopsPerSample(deepseek, FlopConvention::kMegatronCausal),
            1'023'227'103'019'008.0);
}

// A model written row by row: a routed row's router (token_elements x experts per token) comes
// off its forward FLOPs and every routed token's expert work goes on. One row of 10 tokens,
// 4-wide tokens, 8 experts of 96 FLOPs per token, top-2, forward FLOPs 1,000 of which 200 are
// the attention core: router 2 x 10 x 4 x 8 = 640, routed 2 x 96 x 10 = 1,920.
//   causal: 3 x (1,000 - 100 - 640 + 1,920) = 6,540; full: 3 x (1,000 - 640 + 1,920) = 6,840
TEST(ModelFlopsTest, RoutedRowByHand) {
  Model model;
  Layer row;
  row.forward_flops_per_sample = 1000;
  row.attention_flops_per_sample = 200;
  RoutedExperts routed;
  routed.experts = 8;
  routed.top_k = 2;
  routed.params_per_expert = 48;
  routed.forward_flops_per_token = 96;
  routed.tokens_per_sample = 10;
  routed.token_elements = 4;
  row.routed = routed;
  model.layers.push_back(row);
  EXPECT_EQ(ModelFlopsPerSample(model, FlopConvention::kMegatronCausal), 6540.0);
  EXPECT_EQ(ModelFlopsPerSample(model, FlopConvention::kMegatronFull), 6840.0);
  // Rows without FLOPs (measured times only, an embedding) add nothing.
  Layer embedding;
  embedding.name = "embedding";
  embedding.params = 100;
  model.layers.push_back(embedding);
  EXPECT_EQ(ModelFlopsPerSample(model, FlopConvention::kMegatronFull), 6840.0);
}

// GPT-3 175B (96 layers, h = 12,288, s = 2,048, vocabulary 50,257), per token:
//   Korthikanti et al.'s model FLOPs, 72 l h^2 (1 + s/6h + V/12lh) = 72 l h^2 + 12 l h s + 6 h V
//   = 1,043,677,052,928 + 28,991,029,248 + 3,705,348,096 = 1,076,373,430,272 (whole square)
//   the causal count has 6 l h s = 14,495,514,624 less: 1,061,877,915,648.
// Against the usual "6N + attention" (Kaplan et al. 2020, PaLM's appendix B: 6 N + 12 l h s per
// token) with N = the zoo's 174,604,259,328 parameters: 1,076,616,585,216. The two differ by
// 6 x (position table + biases + norm scales) = 243,154,944 (0.023 %), which 6N counts and
// Megatron does not, the tied head's 6 h V being in both.
TEST(ModelFlopsTest, Gpt3PerTokenAgainstSixNPlusAttention) {
  const Model gpt3 = Build("gpt3_175b", 2048);
  const double per_token_full = ModelFlopsPerSample(gpt3, FlopConvention::kMegatronFull) / 2048;
  EXPECT_EQ(per_token_full, 1'076'373'430'272.0);
  EXPECT_EQ(ModelFlopsPerSample(gpt3, FlopConvention::kMegatronCausal) / 2048,
            1'061'877'915'648.0);
  const double n = static_cast<double>(gpt3.TotalParams());
  EXPECT_EQ(n, 174'604'259'328.0);
  const double six_n_plus_attention = 6 * n + 12.0 * 96 * 12288 * 2048;
  EXPECT_NEAR(per_token_full / six_n_plus_attention - 1, -0.000226, 0.000001);
  EXPECT_EQ(six_n_plus_attention - per_token_full, 243'154'944.0);
}

}  // namespace
}  // namespace hfsim
