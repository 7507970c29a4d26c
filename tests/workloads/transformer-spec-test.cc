// TransformerSpec and BuildTransformer: the operations' shapes against hand-written ones, their
// sums against the rows they split, features the zoo does not use (head widths of their own,
// tied heads, learned positions, dense-layer patterns, multi-token prediction), and the specs
// that are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "workloads/model-zoo.h"
#include "workloads/transformer-model.h"

namespace hfsim {
namespace {

const Operation& Op(const Layer& layer, const std::string& name) {
  for (const Operation& op : layer.operations) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << layer.name << " has no operation " << name;
  static const Operation none;
  return none;
}

// Llama 3 8B at 8,192 tokens: Q, K, V fused into 4,096 -> 4,096 + 2 x 1,024 (column-parallel),
// the attention core of 32 heads over 8 key/value heads of 128 (causal), the output projection
// 4,096 -> 4,096 (row-parallel), gate and up 4,096 -> 2 x 14,336, down 14,336 -> 4,096; the
// elementwise rest reads and writes 10 x 4,096 + 3 x 14,336 elements per token; the LM head
// 4,096 -> 128,256, which Transformer Engine leaves in BF16.
TEST(TransformerSpec, LlamaBlockShapes) {
  const Model llama = *BuildZooModel("llama3_8b");
  const Layer& block = llama.layers[1];
  const Operation& qkv = Op(block, "qkv");
  EXPECT_EQ(qkv.kind, OperationKind::kLinear);
  EXPECT_EQ(qkv.tokens_per_sample, 8192.0);
  EXPECT_EQ(qkv.gemm, (OperationGemmShape{4096, 6144, TensorSplit::kColumn, 1}));
  const Operation& attention = Op(block, "attention");
  EXPECT_EQ(attention.kind, OperationKind::kAttention);
  EXPECT_EQ(attention.attention, (OperationAttentionShape{32, 8, 128, 128, 8192, true}));
  EXPECT_EQ(Op(block, "projection").gemm, (OperationGemmShape{4096, 4096, TensorSplit::kRow, 1}));
  EXPECT_EQ(Op(block, "mlp_in").gemm, (OperationGemmShape{4096, 28672, TensorSplit::kColumn, 1}));
  EXPECT_EQ(Op(block, "mlp_out").gemm, (OperationGemmShape{14336, 4096, TensorSplit::kRow, 1}));
  const Operation& rest = Op(block, "elementwise");
  EXPECT_EQ(rest.kind, OperationKind::kElementwise);
  EXPECT_EQ(rest.elements_per_token, 10.0 * 4096 + 3.0 * 14336);
  EXPECT_EQ(rest.elements_per_token * 8192, rest.activation_elements_per_sample);
  const Operation& head = Op(llama.layers.back(), "lm_head");
  EXPECT_EQ(head.kind, OperationKind::kLmHead);
  EXPECT_EQ(head.gemm, (OperationGemmShape{4096, 128256, TensorSplit::kColumn, 1}));
  EXPECT_FALSE(RunsInFp8UnderTransformerEngine(head.kind));
  EXPECT_TRUE(RunsInFp8UnderTransformerEngine(qkv.kind));
  EXPECT_EQ(Op(llama.layers[0], "embedding").kind, OperationKind::kEmbedding);
  // BERT attends both ways; GPT-2's tied head holds no parameters on ln_f.
  EXPECT_FALSE(Op(BuildZooModel("bert_base")->layers[1], "attention").attention.causal);
  const Model gpt2 = *BuildZooModel("gpt2_small");
  EXPECT_EQ(Op(gpt2.layers.back(), "lm_head").params, 0u);
  EXPECT_EQ(Op(gpt2.layers.back(), "norm").params, 2 * 768u);
}

// Mixtral's block at 4,096 tokens: a replicated router 4,096 -> 8, and the routed experts'
// grouped GEMMs over 8 experts with 2 x 4,096 rows per sample. DeepSeek-V3's latent attention:
// replicated down projections (7,168 -> 1,536 and 7,168 -> 512 + 64), column-parallel up
// projections, heads of 128 + 64 for queries and keys and 128 for values.
TEST(TransformerSpec, MixtureOfExpertsAndLatentAttentionShapes) {
  const Model mixtral = *BuildZooModel("mixtral_8x7b", 4096);
  const Layer& block = mixtral.layers[1];
  EXPECT_EQ(Op(block, "router").kind, OperationKind::kRouter);
  EXPECT_EQ(Op(block, "router").gemm, (OperationGemmShape{4096, 8, TensorSplit::kReplicated, 1}));
  const Operation& in = Op(block, "experts_in");
  EXPECT_EQ(in.kind, OperationKind::kExpertLinear);
  EXPECT_EQ(in.tokens_per_sample, 2.0 * 4096);
  EXPECT_EQ(in.gemm, (OperationGemmShape{4096, 2 * 14336, TensorSplit::kColumn, 8}));
  EXPECT_EQ(Op(block, "experts_out").gemm, (OperationGemmShape{14336, 4096, TensorSplit::kRow, 8}));
  const Model deepseek = *BuildZooModel("deepseek_v3", 4096);
  const Layer& moe = deepseek.layers[4];
  EXPECT_EQ(Op(moe, "q_down").gemm, (OperationGemmShape{7168, 1536, TensorSplit::kReplicated, 1}));
  EXPECT_EQ(Op(moe, "q_up").gemm, (OperationGemmShape{1536, 128 * 192, TensorSplit::kColumn, 1}));
  EXPECT_EQ(Op(moe, "kv_down").gemm, (OperationGemmShape{7168, 576, TensorSplit::kReplicated, 1}));
  EXPECT_EQ(Op(moe, "kv_up").gemm, (OperationGemmShape{512, 128 * 256, TensorSplit::kColumn, 1}));
  EXPECT_EQ(Op(moe, "attention").attention,
            (OperationAttentionShape{128, 128, 192, 128, 4096, true}));
  EXPECT_EQ(Op(moe, "shared_in").gemm, (OperationGemmShape{7168, 4096, TensorSplit::kColumn, 1}));
  EXPECT_EQ(Op(moe, "experts_in").gemm.groups, 256u);
  EXPECT_EQ(Op(deepseek.layers[1], "mlp_in").gemm.out_features, 2 * 18432u);
}

// In every row of every zoo transformer each operation has a kind, their parameters add up to
// the row's, their FLOPs to its forward FLOPs (the routed experts' to the routed work: top_k x
// per-token FLOPs x tokens).
TEST(TransformerSpec, OperationsAccountForEveryRow) {
  for (const std::string& name : ModelZooNames()) {
    if (!ZooTransformerSpec(name)) continue;
    const Model model = *BuildZooModel(name);
    for (const Layer& layer : model.layers) {
      ASSERT_FALSE(layer.operations.empty()) << name << " " << layer.name;
      double flops = 0, routed = 0;
      uint64_t params = 0;
      for (const Operation& op : layer.operations) {
        EXPECT_NE(op.kind, OperationKind::kUnknown) << name << " " << op.name;
        EXPECT_GT(op.tokens_per_sample, 0.0) << name << " " << op.name;
        (op.kind == OperationKind::kExpertLinear ? routed : flops) += op.flops_per_sample;
        params += op.params;
      }
      EXPECT_EQ(params, layer.params) << name << " " << layer.name;
      EXPECT_DOUBLE_EQ(flops, layer.forward_flops_per_sample) << name << " " << layer.name;
      const double expected = layer.routed
                                  ? layer.routed->top_k * layer.routed->forward_flops_per_token *
                                        static_cast<double>(layer.routed->tokens_per_sample)
                                  : 0.0;
      EXPECT_DOUBLE_EQ(routed, expected) << name << " " << layer.name;
    }
  }
}

TransformerSpec Small() {
  TransformerSpec spec;
  spec.name = "small";
  spec.layers = 4;
  spec.hidden = 64;
  spec.ffn = 256;
  spec.heads = 4;
  spec.vocab = 1000;
  return spec;
}

// A head width of its own (4 heads of 32 on a hidden of 64: Q is 64 x 128), a tied head on the
// llama rows, a learned table of 512 positions, a LayerNorm: by hand, a block holds Q 64 x 128,
// K and V 64 x 128 each, O 128 x 64 (32,768), q/k norms 2 x 2 x 32, SwiGLU 3 x 64 x 256
// (49,152) and two norms 2 x 128: 82,304. The embedding 1,000 x 64 + 512 x 64; "output" holds
// nothing; "norm" 128.
TEST(TransformerSpec, FeaturesTheZooDoesNotUse) {
  TransformerSpec spec = Small();
  spec.head_dim = 32;
  spec.qk_norm = true;
  spec.norm = NormKind::kLayerNorm;
  spec.tied_embeddings = true;
  spec.positions = PositionKind::kLearned;
  spec.max_positions = 512;
  ASSERT_FALSE(CheckTransformerSpec(spec).has_value());
  const Model model = BuildTransformer(spec, 16);
  ASSERT_EQ(model.layers.size(), 1u + 4 + 2);
  EXPECT_EQ(model.layers[1].params, 32'768u + 128 + 49'152 + 256);
  EXPECT_EQ(model.layers[0].params, 1512u * 64);
  EXPECT_EQ(model.layers[5].params, 128u);
  EXPECT_EQ(model.layers[6].name, "output");
  EXPECT_EQ(model.layers[6].params, 0u);
  EXPECT_EQ(model.layers[6].forward_flops_per_sample, 2.0 * 16 * 64 * 1000);
  // FLOPs: 2 x 16 x (32,768 + 49,152) matrices, and the core 2 x 16^2 x 4 x (32 + 32).
  EXPECT_EQ(model.layers[1].forward_flops_per_sample, 2.0 * 16 * 81'920 + 2.0 * 256 * 4 * 64);
  EXPECT_EQ(model.layers[1].kv_elements_per_sample, 16u * 4 * 64);
}

// Which layers have experts: DeepSeek's first_k_dense_replace and frequency, Qwen's list.
TEST(TransformerSpec, DenseLayerPatterns) {
  TransformerSpec spec = Small();
  spec.layers = 8;
  spec.moe = MoeSpec{.experts = 4,
                     .top_k = 2,
                     .expert_ffn = 32,
                     .first_dense_layers = 1,
                     .layer_frequency = 2,
                     .dense_layers = {4}};
  ASSERT_FALSE(CheckTransformerSpec(spec).has_value());
  std::string pattern;
  for (uint32_t i = 0; i < spec.layers; ++i) pattern += spec.IsMoeLayer(i) ? 'E' : 'd';
  EXPECT_EQ(pattern, "ddEdddEd");
  const Model model = BuildTransformer(spec, 8);
  EXPECT_TRUE(model.layers[3].routed.has_value());   // layer 2
  EXPECT_FALSE(model.layers[5].routed.has_value());  // layer 4, listed dense
  EXPECT_EQ(model.layers[5].params, model.layers[1].params);
}

// One multi-token-prediction module after the head: its block (of the last layer's kind) with
// its norms and 2d x d projection, then its norm and the shared head's logits.
TEST(TransformerSpec, MultiTokenPrediction) {
  TransformerSpec spec = Small();
  spec.mtp_layers = 1;
  const Model model = BuildTransformer(spec, 16);
  ASSERT_EQ(model.layers.size(), 1u + 4 + 2 + 2);
  const Layer& mtp = model.layers[7];
  const Layer& block = model.layers[4];
  EXPECT_EQ(mtp.name, "mtp.0");
  EXPECT_EQ(mtp.params, block.params + 2 * 64 + 2 * 64 * 64);
  EXPECT_EQ(mtp.forward_flops_per_sample, block.forward_flops_per_sample + 2.0 * 16 * 2 * 64 * 64);
  EXPECT_EQ(Op(mtp, "eh_proj").gemm, (OperationGemmShape{128, 64, TensorSplit::kColumn, 1}));
  EXPECT_EQ(model.layers[8].name, "mtp.0.output");
  EXPECT_EQ(model.layers[8].params, 64u);
  EXPECT_EQ(model.layers[8].forward_flops_per_sample, 2.0 * 16 * 64 * 1000);
}

std::string Refusal(const TransformerSpec& spec) {
  const auto problem = CheckTransformerSpec(spec);
  return problem ? problem->field + ": " + problem->message : "accepted";
}

TEST(TransformerSpec, RefusesSpecsThatMeanNothing) {
  TransformerSpec spec = Small();
  EXPECT_EQ(Refusal(spec), "accepted");
  spec.kv_heads = 3;
  EXPECT_EQ(Refusal(spec),
            "kv_heads: got 3, which does not divide the 4 attention heads; "
            "accepted: a divisor of 4");
  spec = Small();
  spec.heads = 3;
  EXPECT_EQ(Refusal(spec),
            "head_dim: missing, and the hidden size 64 is not a multiple of the 3 "
            "heads; accepted: each head's width");
  spec = Small();
  spec.rows = RowLayout::kGpt2;
  EXPECT_NE(Refusal(spec).find("tied_embeddings: rows \"gpt2\""), std::string::npos);
  spec = Small();
  spec.max_positions = 10;
  EXPECT_NE(Refusal(spec).find("max_positions: applies to learned positions only"),
            std::string::npos);
  spec = Small();
  spec.moe = MoeSpec{.experts = 4, .top_k = 2, .expert_ffn = 32, .dense_layers = {0, 1, 2, 3}};
  EXPECT_NE(Refusal(spec).find("moe: leaves no layer with experts"), std::string::npos);
  spec.moe->dense_layers = {9};
  EXPECT_EQ(Refusal(spec), "moe.dense_layers: lists layer 9; accepted: layer indices 0 to 3");
  spec = Small();
  spec.mla =
      MlaSpec{.kv_lora_rank = 16, .qk_nope_head_dim = 16, .qk_rope_head_dim = 8, .v_head_dim = 16};
  EXPECT_EQ(Refusal(spec), "accepted");
  spec.head_dim = 16;
  EXPECT_NE(Refusal(spec).find("head_dim: does not apply with mla"), std::string::npos);
  spec = Small();
  spec.hidden = TransformerLimits::kMaxHidden;
  spec.heads = 4096;
  spec.ffn = TransformerLimits::kMaxFfn;
  spec.layers = 65536;
  spec.moe = MoeSpec{.experts = 65536, .top_k = 1, .expert_ffn = TransformerLimits::kMaxFfn};
  EXPECT_NE(Refusal(spec).find("layers: the model would hold"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
