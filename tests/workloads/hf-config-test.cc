// Hugging Face config.json files (tests/workloads/data/hf/, written by hand from the published
// configs) read as TransformerSpecs: parameter counts against the published totals (the
// checkpoints' safetensors metadata, or worked out below from the config), the zoo's models
// read back from their configs, FLOPs against Megatron-LM's own formula, and refusals naming
// the key.
#include "workloads/hf-config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "workloads/model-zoo.h"
#include "workloads/transformer-model.h"

namespace hfsim {
namespace {

nlohmann::json Fixture(const std::string& name) {
  const std::string path = std::string(HFSIM_SOURCE_DIR) + "/tests/workloads/data/hf/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file.is_open()) << path;
  return nlohmann::json::parse(file);
}

TransformerSpec Spec(const std::string& fixture) {
  const HfConfigRead read = ReadHfConfig(Fixture(fixture), fixture);
  EXPECT_TRUE(read.spec.has_value())
      << fixture << ": " << read.problem.field << ": " << read.problem.message;
  return read.spec.value_or(TransformerSpec{});
}

uint64_t Params(const std::string& fixture) {
  return BuildTransformer(Spec(fixture), 4096).TotalParams();
}

// The safetensors totals of the released checkpoints (tied weights counted once).
TEST(HfConfig, DenseModelsMatchTheirPublishedParameterCounts) {
  EXPECT_EQ(Params("llama1-7b.json"), 6'738'415'616u);  // no num_key_value_heads: 32 of them
  EXPECT_EQ(Params("llama2-7b.json"), 6'738'415'616u);
  EXPECT_EQ(Params("llama3-8b.json"), 8'030'261'248u);
  EXPECT_EQ(Params("llama3.1-8b.json"), 8'030'261'248u);  // rope scaling changes no count
  EXPECT_EQ(Params("llama3-70b.json"), 70'553'706'496u);
  // Mistral 7B: Llama 3 8B's block (218,112,000) x 32 + 2 x 32,000 x 4,096 + 4,096.
  EXPECT_EQ(Params("mistral-7b-v0.1.json"), 7'241'732'096u);
  // Qwen2.5-7B: biases on Q, K and V only. Block: Q 3,584^2 + 3,584, K and V 3,584 x 512 + 512
  // each, O 3,584^2, SwiGLU 3 x 3,584 x 18,944, two norms 7,168: 12,848,640 + 3,671,040 +
  // 12,845,056 + 203,685,888 + 7,168 = 233,057,792; x 28 = 6,525,618,176; embedding and head
  // 2 x 152,064 x 3,584 = 1,089,994,752; final norm 3,584: 7,615,616,512.
  EXPECT_EQ(Params("qwen2.5-7b.json"), 7'615'616'512u);
  // Qwen2.5-0.5B: head tied to the embedding (151,936 x 896 counted once), heads of 896 / 14 = 64.
  EXPECT_EQ(Params("qwen2.5-0.5b.json"), 494'032'768u);
  // Qwen3-8B: q/k norms of head_dim 128 in each block.
  EXPECT_EQ(Params("qwen3-8b.json"), 8'190'735'360u);
}

// Qwen3-235B-A22B: 64 query heads of 128 on a hidden of 4,096 (Q is 4,096 x 8,192), 4 key/value
// heads, q/k norms of 128, a router of 128 x 4,096 and 128 SwiGLU experts of 1,536. Block:
// 33,554,432 (Q) + 4,194,304 (K, V) + 33,554,432 (O) + 256 + 524,288 + 128 x 18,874,368 +
// 8,192 = 2,487,755,008; x 94 = 233,848,970,752; + 2 x 151,936 x 4,096 + 4,096 =
// 235,093,634,560 (the checkpoint's safetensors total). Active: 8 experts instead of 128, i.e.
// 120 x 18,874,368 x 94 fewer: 22,190,763,520 (the model card's "22B activated").
TEST(HfConfig, MixtureOfExpertsMatchTheirPublishedCounts) {
  const Model qwen3 = BuildTransformer(Spec("qwen3-235b-a22b.json"), 4096);
  EXPECT_EQ(qwen3.TotalParams(), 235'093'634'560u);
  EXPECT_EQ(ActiveParams(qwen3), 22'190'763'520u);
  // Qwen3-30B-A3B, the same way with hidden 2,048, 48 layers and experts of 768.
  const Model small = BuildTransformer(Spec("qwen3-30b-a3b.json"), 4096);
  EXPECT_EQ(small.TotalParams(), 30'532'122'624u);
  EXPECT_EQ(ActiveParams(small), 3'353'032'704u);  // the card's "3.3B activated"
  const Model mixtral = BuildTransformer(Spec("mixtral-8x7b-v0.1.json"), 4096);
  EXPECT_EQ(mixtral.TotalParams(), 46'702'792'704u);
  EXPECT_NEAR(ActiveParams(mixtral) / 1e9, 12.9, 0.05);  // the paper's 12.9B active
}

// DeepSeek-V3 with its multi-token-prediction module (num_nextn_predict_layers 1). The main
// model is the zoo's 671,026,419,200 (the report's 671B); the module adds a MoE block
// (11,507,286,272), its 2d x d projection (102,760,448) and three norms (21,504):
// 11,610,068,224, sharing the embedding and the head. The checkpoint stores the module with
// its own copies of both (2 x 129,280 x 7,168 = 1,853,358,080) and, for every FP8 weight
// matrix (the blocks' linear layers and experts; the module's projection is BF16), one FP32
// scale per 128 x 128 block: its safetensors total is 684,531,386,000.
TEST(HfConfig, DeepSeekV3MatchesItsCheckpoint) {
  const Model model = BuildTransformer(Spec("deepseek-v3.json"), 4096);
  uint64_t main = 0, scales = 0;
  auto blocks = [](uint64_t n) { return (n + 127) / 128; };
  for (const Layer& layer : model.layers) {
    if (layer.name.rfind("mtp.", 0) != 0) main += layer.params;
    for (const Operation& op : layer.operations) {
      if (RunsInFp8UnderTransformerEngine(op.kind) && op.name != "eh_proj") {
        scales += op.gemm.groups * blocks(op.gemm.in_features) * blocks(op.gemm.out_features);
      }
    }
  }
  EXPECT_EQ(main, 671'026'419'200u);
  EXPECT_EQ(model.TotalParams(), 682'636'487'424u);
  EXPECT_EQ(scales, 41'540'496u);
  EXPECT_EQ(model.TotalParams() + 2 * 129'280ull * 7'168 + scales, 684'531'386'000u);
  // Active in the main model: the report's "37B activated".
  uint64_t active_main = 0;
  for (const Layer& layer : model.layers) {
    if (layer.name.rfind("mtp.", 0) == 0) continue;
    active_main += layer.params;
    if (layer.routed)
      active_main -=
          (layer.routed->experts - layer.routed->top_k) * layer.routed->params_per_expert;
  }
  EXPECT_EQ(active_main, 37'552'297'472u);
}

// The zoo's Llama 3, Mixtral and DeepSeek-V3, read from their configs: the same rows, number for
// number (DeepSeek-V3's config adds the multi-token-prediction rows after them).
TEST(HfConfig, ZooModelsReadBackFromTheirConfigs) {
  for (const auto& [fixture, zoo] :
       std::vector<std::pair<std::string, std::string>>{{"llama3-8b.json", "llama3_8b"},
                                                        {"llama3-70b.json", "llama3_70b"},
                                                        {"mixtral-8x7b-v0.1.json", "mixtral_8x7b"},
                                                        {"deepseek-v3.json", "deepseek_v3"}}) {
    const uint32_t seq = ZooDefaultSequenceLength(zoo);
    const Model read = BuildTransformer(Spec(fixture), seq);
    const Model built = *BuildZooModel(zoo);
    ASSERT_GE(read.layers.size(), built.layers.size()) << fixture;
    for (size_t i = 0; i < built.layers.size(); ++i) {
      EXPECT_EQ(read.layers[i], built.layers[i]) << fixture << " row " << i;
    }
    EXPECT_EQ(read.layers.size() - built.layers.size(), zoo == "deepseek_v3" ? 2u : 0u);
    EXPECT_EQ(read.attention_heads, built.attention_heads);
    EXPECT_EQ(read.kv_heads, built.kv_heads);
  }
}

// Megatron-LM's reported FLOPs (megatron/training/training.py, num_floating_point_operations,
// transformer_flops), transcribed for one sequence of s tokens (T = s, sum of L_i^2 = s^2) with
// the vocabulary unpadded:
//   T [ 6 h (F c n_dense + (F_moe k c + F_shared c) n_moe) + L attn + mtp 6 (3h + 2h^2)
//       + 6 h V (1 + mtp) ] + s^2 L core
// c = 3 with SwiGLU; attn = 6 (h (q + 2 kv) + q h) for GQA; core = 6 q / 2 x 2 (causal); for
// latent attention attn = 6 (q_rank (h + H (qk + rope) + 1) + kv_rank (h + H (qk + v) + 1) +
// h rope + H v h) and core = 6 (H (qk + rope) / 2 + H v / 2); MTP modules count as extra
// layers of the last layer's kind.
struct MegatronModel {
  double h, layers, heads, kv_channels, groups, ffn, vocab;
  double dense_layers = 0, moe_layers = 0, moe_ffn = 0, topk = 0, shared_ffn = 0, mtp = 0;
  bool mla = false;
  double q_rank = 0, kv_rank = 0, qk = 0, rope = 0, v = 0;
};

double MegatronFlops(const MegatronModel& m, double s) {
  double attn, core;
  if (m.mla) {
    attn =
        6 * (m.q_rank * (m.h + m.heads * (m.qk + m.rope) + 1) +
             m.kv_rank * (m.h + m.heads * (m.qk + m.v) + 1) + m.h * m.rope + m.heads * m.v * m.h);
    core = 6 * (m.heads * (m.qk + m.rope) / 2 + m.heads * m.v / 2);
  } else {
    const double q = m.kv_channels * m.heads, kv = m.kv_channels * m.groups;
    attn = 6 * (m.h * (q + 2 * kv) + q * m.h);
    core = 6 * q / 2 * 2;
  }
  const double layers = m.layers + m.mtp;
  const double mlp = 6 * m.h *
                     (m.ffn * 3 * m.dense_layers + m.moe_ffn * m.topk * 3 * m.moe_layers +
                      m.shared_ffn * 3 * m.moe_layers);
  return s * (mlp + attn * layers + 6 * m.mtp * (3 * m.h + 2 * m.h * m.h) +
              6 * m.h * m.vocab * (1 + m.mtp)) +
         s * s * core * layers;
}

// Ours, in Megatron's convention: forward + input gradients + weight gradients (3 x forward),
// every routed token's expert work, the causal mask's half of the attention core left out, and
// what Megatron does not count (the router's GEMM) taken away.
double OursCausal(const Model& model) {
  double flops = 0;
  for (const Layer& layer : model.layers) {
    flops += 3 * layer.forward_flops_per_sample - 1.5 * layer.attention_flops_per_sample;
    if (layer.routed) {
      flops += 3 * layer.routed->top_k * layer.routed->forward_flops_per_token *
               static_cast<double>(layer.routed->tokens_per_sample);
    }
    for (const Operation& op : layer.operations) {
      if (op.kind == OperationKind::kRouter) flops -= 3 * op.flops_per_sample;
    }
  }
  return flops;
}

TEST(HfConfig, FlopsMatchMegatronForDenseGqaSwiGlu) {
  // Llama 3 8B at 8,192 tokens, causal: both give 3 x 4,672,924,418,048 - 1.5 x
  // 1,099,511,627,776 per block, x 32, plus 3 x 8,607,114,461,184 for the logits.
  const double s = 8192;
  const Model llama = BuildTransformer(Spec("llama3-8b.json"), 8192);
  const MegatronModel m{.h = 4096,
                        .layers = 32,
                        .heads = 32,
                        .kv_channels = 128,
                        .groups = 8,
                        .ffn = 14336,
                        .vocab = 128256,
                        .dense_layers = 32};
  EXPECT_EQ(OursCausal(llama), MegatronFlops(m, s));
  EXPECT_EQ(OursCausal(llama),
            32 * (3 * 4'672'924'418'048.0 - 1.5 * 1'099'511'627'776.0) + 3 * 8'607'114'461'184.0);
  // Our forward FLOPs count the whole square: Megatron's estimate before core_v0.12 (commit
  // 8873b55d6a added the causal halving), 3 x forward exactly.
  EXPECT_EQ(3 * llama.TotalForwardFlopsPerSample(), MegatronFlops(m, s) + s * s * 6 * 4096 * 32);
}

TEST(HfConfig, FlopsMatchMegatronForMixtureOfExperts) {
  // Qwen3-235B-A22B at 4,096 tokens: 94 MoE layers, top-8 of 1,536, no shared expert.
  const Model qwen3 = BuildTransformer(Spec("qwen3-235b-a22b.json"), 4096);
  const MegatronModel q{.h = 4096,
                        .layers = 94,
                        .heads = 64,
                        .kv_channels = 128,
                        .groups = 4,
                        .ffn = 12288,
                        .vocab = 151936,
                        .moe_layers = 94,
                        .moe_ffn = 1536,
                        .topk = 8};
  EXPECT_DOUBLE_EQ(OursCausal(qwen3), MegatronFlops(q, 4096));
  // DeepSeek-V3 with its MTP module at 4,096 tokens: 3 dense layers, 58 + 1 MoE layers with a
  // shared expert. Megatron also counts each latent norm as one FLOP pair per element
  // (q_rank + kv_rank per layer, the "+ 1") and the module's three norms (3h): ours counts no
  // norm, so those are added to ours.
  const Model deepseek = BuildTransformer(Spec("deepseek-v3.json"), 4096);
  const MegatronModel d{.h = 7168,
                        .layers = 61,
                        .heads = 128,
                        .kv_channels = 0,
                        .groups = 0,
                        .ffn = 18432,
                        .vocab = 129280,
                        .dense_layers = 3,
                        .moe_layers = 59,
                        .moe_ffn = 2048,
                        .topk = 8,
                        .shared_ffn = 2048,
                        .mtp = 1,
                        .mla = true,
                        .q_rank = 1536,
                        .kv_rank = 512,
                        .qk = 128,
                        .rope = 64,
                        .v = 128};
  const double norms = 6.0 * 4096 * (62 * (1536 + 512) + 3 * 7168);
  EXPECT_DOUBLE_EQ(OursCausal(deepseek) + norms, MegatronFlops(d, 4096));
}

std::string Problem(nlohmann::json config) {
  const HfConfigRead read = ReadHfConfig(config, "x");
  EXPECT_FALSE(read.spec.has_value());
  return read.problem.field + ": " + read.problem.message;
}

TEST(HfConfig, RefusesWhatItCannotCountNamingTheKey) {
  const nlohmann::json llama = Fixture("llama3-8b.json");
  nlohmann::json c = llama;
  c["model_type"] = "gpt2";
  EXPECT_EQ(Problem(c),
            "model_type: got \"gpt2\", which hfsim does not read; accepted: "
            "\"llama\", \"mistral\", \"mixtral\", \"qwen2\", \"qwen3\", "
            "\"qwen3_moe\", \"deepseek_v3\"");
  c = llama;
  c["architectures"] = {"LlamaForSequenceClassification"};
  EXPECT_EQ(Problem(c),
            "architectures: got \"LlamaForSequenceClassification\"; accepted for "
            "model_type \"llama\": \"LlamaForCausalLM\" (the causal language "
            "model, whose LM head hfsim counts)");
  c = llama;
  c.erase("hidden_size");
  EXPECT_EQ(Problem(c), "hidden_size: missing; accepted: a non-negative integer");
  c = llama;
  c["hidden_size"] = 4096.0;
  EXPECT_EQ(Problem(c), "hidden_size: got 4096.0; accepted: an integer from 0 to 4294967295");
  c = llama;
  c["num_key_value_heads"] = 7;
  EXPECT_EQ(Problem(c),
            "num_key_value_heads: got 7, which does not divide the 32 attention "
            "heads; accepted: a divisor of 32");
  c = llama;
  c["num_attention_heads"] = 0;
  EXPECT_EQ(Problem(c), "num_attention_heads: got 0; accepted: 1 to 4096");
  c = llama;
  c["hidden_act"] = "tanh";
  EXPECT_NE(Problem(c).find("hidden_act: got \"tanh\""), std::string::npos);
  c = Fixture("qwen2.5-7b.json");
  c["use_sliding_window"] = true;
  EXPECT_NE(Problem(c).find("use_sliding_window: true: sliding-window attention"),
            std::string::npos);
  c = Fixture("mixtral-8x7b-v0.1.json");
  c["num_experts_per_tok"] = 9;
  EXPECT_EQ(Problem(c), "num_experts_per_tok: got 9; accepted: 1 to 8");
  c = Fixture("qwen3-30b-a3b.json");
  c["decoder_sparse_step"] = 49;  // no layer i with (i + 1) % 49 == 0 among 48
  EXPECT_NE(Problem(c).find("mlp_only_layers: leaves no layer with experts"), std::string::npos);
  c = Fixture("deepseek-v3.json");
  c["attention_bias"] = true;
  EXPECT_NE(Problem(c).find("attention_bias: true: biases in latent attention"), std::string::npos);
  c = Fixture("deepseek-v3.json");
  c["num_key_value_heads"] = 1;
  EXPECT_NE(Problem(c).find("num_key_value_heads: got 1; latent attention"), std::string::npos);
  EXPECT_EQ(Problem(nlohmann::json::array()), ": is not a JSON object; accepted: a config.json");
  c = llama;
  c.erase("model_type");
  c.erase("architectures");
  EXPECT_NE(Problem(c).find("model_type: missing (and no \"architectures\")"), std::string::npos);
}

// What the type does not say is taken from "architectures", and a model-wide sliding window is
// kept: Mistral 7B is built for sequences within its 4,096-token window, refused beyond it.
TEST(HfConfig, InfersTheTypeAndKeepsTheWindow) {
  nlohmann::json c = Fixture("qwen3-8b.json");
  c.erase("model_type");
  const HfConfigRead read = ReadHfConfig(c, "qwen3");
  ASSERT_TRUE(read.spec.has_value()) << read.problem.message;
  EXPECT_TRUE(read.spec->qk_norm);
  const TransformerSpec mistral = Spec("mistral-7b-v0.1.json");
  EXPECT_EQ(mistral.sliding_window, 4096u);
  EXPECT_FALSE(CheckSequenceLength(mistral, 4096).has_value());
  EXPECT_EQ(CheckSequenceLength(mistral, 4097).value_or(""),
            "4097 tokens is more than model \"mistral-7b-v0.1.json\"'s sliding window of 4096: "
            "windowed attention is not modelled (it would change the attention's FLOPs); "
            "accepted: at most 4096 tokens");
  EXPECT_EQ(Spec("mixtral-8x7b-v0.1.json").sliding_window, 0u);  // "sliding_window": null
}

}  // namespace
}  // namespace hfsim
