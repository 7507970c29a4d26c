// The training loop under the kernel-level compute model (workloads/kernel-pricing.h): a layer's
// three passes by hand on a round-number device, FP8 speeding up only the linear layers' GEMMs,
// causal attention at half the score FLOPs, the roofline kept for layers without shapes, and
// nothing changed without the model.
#include "workloads/kernel-pricing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <variant>

#include "models/compute/compute-model.h"
#include "tests/models/compute-test-device.h"
#include "workloads/model-zoo.h"
#include "workloads/training-loop.h"
#include "workloads/transformer-model.h"
#include "workloads/zoo-transformers.h"

namespace hfsim {
namespace {

std::shared_ptr<const ComputeModel> Make(const DeviceSpec& device, Precision precision,
                                         AttentionImpl attention = AttentionImpl::kFused) {
  auto made = ComputeModel::Create(device, precision, attention);
  EXPECT_TRUE(std::holds_alternative<ComputeModel>(made));
  return std::make_shared<const ComputeModel>(std::get<ComputeModel>(made));
}

TrainingConfig OneRank(std::shared_ptr<const ComputeModel> model) {
  TrainingConfig config;
  config.global_batch_samples = 1;
  config.peak_flops_per_ns = model->device().PeakFlopsPerNs(model->training_precision());
  config.memory_bytes_per_ns = model->device().hbm_GBps;
  config.compute_efficiency = 1.0;
  config.kernel_model = std::move(model);
  return config;
}

Operation Linear(uint64_t tokens, uint64_t in, uint64_t out) {
  Operation op;
  op.name = "linear";
  op.kind = OperationKind::kLinear;
  op.tokens_per_sample = static_cast<double>(tokens);
  op.gemm = {in, out, TensorSplit::kColumn, 1};
  return op;
}

// One layer by hand on the round-number device (tests/models/compute-test-device.h: 10 SMs,
// 128 x 256 tiles, BF16 at 100 TFLOP/s x 0.5 = 50,000 FLOP/ns, 1000 B/ns of HBM, no fused
// attention kernel, so attention runs unfused), one sample, no parallelism:
//   a linear layer of 1280 tokens, 1280 -> 1280;
//   an attention core of 1 head of 256, 1280 tokens (causal: the unfused path computes the
//   whole square anyway);
//   an elementwise pass of 10 elements per token.
TEST(KernelPricing, OneLayerByHand) {
  Layer layer;
  layer.name = "by_hand";
  layer.params = 1280 * 1280;
  layer.operations.push_back(Linear(1280, 1280, 1280));
  Operation attention;
  attention.name = "attention";
  attention.kind = OperationKind::kAttention;
  attention.tokens_per_sample = 1280;
  attention.attention = {1, 1, 256, 256, 1280, true};
  layer.operations.push_back(attention);
  Operation rest;
  rest.name = "elementwise";
  rest.kind = OperationKind::kElementwise;
  rest.tokens_per_sample = 1280;
  rest.elements_per_token = 10;
  layer.operations.push_back(rest);
  const TrainingConfig config = OneRank(Make(RoundNumberDevice(), Precision::kBf16));
  const auto t = PriceLayerByKernels(layer, *config.kernel_model, config, 1);
  ASSERT_TRUE(t.has_value());
  // Linear: fprop 1280 x 1280 x 1280, dgrad the same, wgrad 1280 x 1280 x 1280: 10 x 5 = 50
  // tiles of 128 x 256 = 5 full waves of 10 (efficiency 1). 2 x 1280^3 = 4,194,304,000 FLOPs at
  // 50,000 FLOP/ns = 83,886.08 ns each; memory (2 + 2 + 2 bytes, wgrad 2 + 2 + 8) x 1280^2 at
  // most 19,660.8 ns: compute-bound.
  const double gemm = 83'886.08;
  // Attention, unfused, b x heads = 1:
  //   forward  Q K^T (m 1280, n 1280, k 256: 50 tiles) and P V (m 1280, n 256, k 1280: 10
  //            tiles), each 2 x 1280 x 1280 x 256 = 838,860,800 FLOPs in full waves =
  //            16,777.216 ns; softmax 1280^2 scores x 4 B = 6,553,600 B = 6,553.6 ns.
  //   backward four GEMMs of the same FLOPs and full waves (dS K, dS^T Q: m 1280 n 256;
  //            dO V^T: m 1280 n 1280; P^T dO: m 1280 n 256) = 4 x 16,777.216 ns; softmax
  //            backward 6 B per score = 9,830.4 ns.
  const double attention_forward = 2 * 16'777.216 + 6'553.6;
  const double attention_backward = 4 * 16'777.216 + 9'830.4;
  // Elementwise (not a transformer block): 10 x 1280 x 2 B = 25,600 B = 25.6 ns forward, 1.5 x
  // that backward = 38.4 ns.
  EXPECT_NEAR(t->forward.kernels[OpClass::kGemm], gemm, 1e-6);
  EXPECT_NEAR(t->input_grad.kernels[OpClass::kGemm], gemm, 1e-6);
  EXPECT_NEAR(t->weight_grad.kernels[OpClass::kGemm], gemm, 1e-6);
  EXPECT_NEAR(t->forward.kernels[OpClass::kAttention], attention_forward, 1e-6);
  EXPECT_NEAR(t->input_grad.kernels[OpClass::kAttention], attention_backward, 1e-6);
  EXPECT_NEAR(t->forward.kernels[OpClass::kElementwise], 25.6, 1e-9);
  EXPECT_NEAR(t->input_grad.kernels[OpClass::kElementwise], 38.4, 1e-9);
  EXPECT_EQ(t->forward.roofline_ns, 0.0);
  // The training loop takes those sums, and selective recomputation adds the attention core's
  // forward to the input gradients; full recomputation the whole forward.
  Model model;
  model.layers.push_back(layer);
  TrainingConfig selective = config;
  selective.recompute = Recompute::kSelective;
  const LayerWork work = BuildTrainingIteration(model, selective).layers[0];
  EXPECT_NEAR(work.forward_ns, gemm + attention_forward + 25.6, 1e-6);
  EXPECT_NEAR(work.input_grad_ns, gemm + attention_backward + 38.4 + attention_forward, 1e-6);
  EXPECT_NEAR(work.weight_grad_ns, gemm, 1e-6);
  TrainingConfig full = config;
  full.recompute = Recompute::kFull;
  EXPECT_NEAR(BuildTrainingIteration(model, full).layers[0].input_grad_ns,
              gemm + attention_backward + 38.4 + work.forward_ns, 1e-6);
}

// A block's four linear layers beside Transformer Engine's userbuffers (models/compute/
// userbuffers.h) on the round-number device given 20 SMs (so that 16 taken leave 4), tensor 2
// with sequence parallelism, one sample of 2560 tokens. Every GEMM of the block is
// 2560 x 2560 x 2560 on its rank (qkv 2560 -> 2 x 2560 and fc1 2560 -> 2 x 2560 split by
// column, proj and fc2 2 x 2560 -> 2560 by row):
//   alone   128 x 256 tiles: 20 x 10 = 200 tiles, 10 full waves of 20: efficiency 1,
//           2 x 2560^3 = 33,554,432,000 FLOPs / 50,000 FLOP/ns = 671,088.64 ns (memory at most
//           (2 + 2 + 8) x 2560^2 B = 78,643.2 ns: compute-bound);
//   beside  on 4 SMs: 50 waves of 4, efficiency 200 / (50 x 20) = 0.2 (128 x 160 and 128 x 128
//           tie at 0.2 and the larger tile is kept), 5 times as long: 4 x 671,088.64 =
//           2,684,354.56 ns more.
// TE overlaps with 16 SMs proj and fc2 fprop (pipeline), qkv and fc1 dgrad and wgrad (bulk): six
// GEMMs, two per pass. Its ring exchanges (qkv/fc1 fprop, proj/fc2 dgrad) take none, proj and
// fc2 wgrad overlap nothing, and a linear layer TE has no userbuffers name for is not charged.
TEST(KernelPricing, UserbuffersSlowTheGemmsTheyOverlap) {
  DeviceSpec device = RoundNumberDevice();
  device.sm_count = 20;
  auto linear = [](const char* name, uint64_t in, uint64_t out, TensorSplit split) {
    Operation op = Linear(2560, in, out);
    op.name = name;
    op.gemm.split = split;
    return op;
  };
  Layer block;
  block.name = "block";
  block.tensor_parallel_all_reduces = 2;
  block.operations = {linear("qkv", 2560, 5120, TensorSplit::kColumn),
                      linear("projection", 5120, 2560, TensorSplit::kRow),
                      linear("mlp_in", 2560, 5120, TensorSplit::kColumn),
                      linear("mlp_out", 5120, 2560, TensorSplit::kRow),
                      linear("other", 2560, 5120, TensorSplit::kColumn)};
  TrainingConfig config = OneRank(Make(device, Precision::kBf16));
  config.tensor_parallel = 2;
  config.sequence_parallel = true;
  const auto plain = PriceLayerByKernels(block, *config.kernel_model, config, 1);
  TrainingConfig overlapped = config;
  overlapped.overlap_options.tensor_parallel = true;
  const auto beside = PriceLayerByKernels(block, *config.kernel_model, overlapped, 1);
  ASSERT_TRUE(plain && beside);
  const double gemm = 671'088.64;
  const double two_more = 2 * 4 * gemm;
  for (const auto pass : {&KernelLayerTimes::forward, &KernelLayerTimes::input_grad,
                          &KernelLayerTimes::weight_grad}) {
    // Five GEMMs per pass either way; the overhead is its own class.
    EXPECT_NEAR(((*plain).*pass).kernels[OpClass::kGemm], 5 * gemm, 1e-6);
    EXPECT_EQ(((*beside).*pass).kernels[OpClass::kGemm], ((*plain).*pass).kernels[OpClass::kGemm]);
    EXPECT_EQ(((*plain).*pass).kernels[OpClass::kCommKernelOverhead], 0.0);
    EXPECT_NEAR(((*beside).*pass).kernels[OpClass::kCommKernelOverhead], two_more, 1e-6);
    EXPECT_NEAR(((*beside).*pass).TotalNs() - ((*plain).*pass).TotalNs(), two_more, 1e-6);
  }
  // The training loop's passes carry it, and the GEMMs' share that the chunked collectives hide
  // behind counts the slowed GEMMs whole.
  Model model;
  model.layers.push_back(block);
  const LayerWork work = BuildTrainingIteration(model, overlapped).layers[0];
  EXPECT_NEAR(work.forward_ns, 5 * gemm + two_more, 1e-6);
  EXPECT_NEAR(work.input_grad_ns, 5 * gemm + two_more, 1e-6);
  EXPECT_NEAR(work.weight_grad_ns, 5 * gemm + two_more, 1e-6);
  EXPECT_DOUBLE_EQ(work.forward_gemm_share, 1.0);
  // No charge where TE runs no userbuffers or the graph overlaps nothing: without sequence
  // parallelism (TE's ub_* flags need it), at tensor 1, or on a layer without tensor-parallel
  // collectives.
  auto overhead = [&](const Layer& layer, const TrainingConfig& c) {
    const auto t = PriceLayerByKernels(layer, *c.kernel_model, c, 1);
    EXPECT_TRUE(t.has_value());
    return t->forward.kernels[OpClass::kCommKernelOverhead] +
           t->input_grad.kernels[OpClass::kCommKernelOverhead] +
           t->weight_grad.kernels[OpClass::kCommKernelOverhead];
  };
  TrainingConfig no_sp = overlapped;
  no_sp.sequence_parallel = false;
  EXPECT_EQ(overhead(block, no_sp), 0.0);
  TrainingConfig one = overlapped;
  one.tensor_parallel = 1;
  one.sequence_parallel = false;
  EXPECT_EQ(overhead(block, one), 0.0);
  Layer silent = block;
  silent.tensor_parallel_all_reduces = 0;
  EXPECT_EQ(overhead(silent, overlapped), 0.0);
  // A given collective in one pass overlaps that pass only: forward (proj and fc2 fprop).
  Layer forward_only = silent;
  forward_only.forward_comm = LayerComm{CollectiveKind::kAllReduce, 1 << 20};
  EXPECT_NEAR(overhead(forward_only, overlapped), two_more, 1e-6);
}

// Llama 3 70B's block, norm and LM head at tensor 8 with sequence parallelism, sequence 8192,
// one sample: on an H100 whose FP8 matmul ceiling is set to its BF16 one and whose FP8 peak to
// exactly twice its BF16 one (1978 rather than the data sheet's 1979 TFLOP/s), so that FP8's
// rate is exactly twice BF16's, FP8 halves the block's GEMM time; the attention core (BF16 in both)
// and the LM head (Megatron's own ColumnParallelLinear, BF16 in both) are unchanged; the
// elementwise work grows by the FP8 casts.
TEST(KernelPricing, Fp8HalvesOnlyTheLinearLayersGemms) {
  DeviceSpec h100 = *FindDevice("H100-SXM");
  h100.matmul_ceiling[Index(Precision::kFp8)] = h100.matmul_ceiling[Index(Precision::kBf16)];
  h100.peak_TFLOPS[Index(Precision::kFp8)] = 2 * h100.peak_TFLOPS[Index(Precision::kBf16)];
  TransformerSpec spec = Llama3Spec("llama3_70b", 1, 8192, 28672, 64);
  const Model model = BuildTransformer(spec, 8192);
  const Layer* block = nullptr;
  const Layer* head = nullptr;
  for (const Layer& layer : model.layers) {
    if (layer.name == "layers.0") block = &layer;
    if (layer.name == "output") head = &layer;
  }
  ASSERT_TRUE(block && head);
  auto price = [&](Precision precision, const Layer& layer) {
    TrainingConfig config = OneRank(Make(h100, precision));
    config.tensor_parallel = 8;
    config.sequence_parallel = true;
    auto t = PriceLayerByKernels(layer, *config.kernel_model, config, 1);
    EXPECT_TRUE(t.has_value());
    KernelPassTimes all = t->forward;
    all += t->input_grad;
    all += t->weight_grad;
    return all.kernels;
  };
  const ComputeTally bf16 = price(Precision::kBf16, *block);
  const ComputeTally fp8 = price(Precision::kFp8, *block);
  // Every GEMM of this block is compute-bound in both precisions, with the same tiles and waves
  // (docs/compute-model.md §8), so the time is exactly half.
  EXPECT_NEAR(fp8[OpClass::kGemm], 0.5 * bf16[OpClass::kGemm], 1e-9 * bf16[OpClass::kGemm]);
  EXPECT_GT(bf16[OpClass::kGemm], 6e6);  // ~6.9 ms of GEMMs: the shape is large
  EXPECT_EQ(fp8[OpClass::kAttention], bf16[OpClass::kAttention]);
  EXPECT_GT(bf16[OpClass::kAttention], 0.0);
  EXPECT_GT(fp8[OpClass::kElementwise], bf16[OpClass::kElementwise]);
  const ComputeTally head_bf16 = price(Precision::kBf16, *head);
  const ComputeTally head_fp8 = price(Precision::kFp8, *head);
  EXPECT_GT(head_bf16[OpClass::kGemm], 0.0);
  EXPECT_EQ(head_fp8[OpClass::kGemm], head_bf16[OpClass::kGemm]);
}

// The attention core of a causal decoder does half the score FLOPs of the full square: the
// shape the pricing builds is causal, and its FLOPs (what the kernel's rate is applied to) are
// half those of the same shape unmasked.
TEST(KernelPricing, CausalAttentionCountsHalfTheScores) {
  const auto model = Make(*FindDevice("H100-SXM"), Precision::kBf16);
  Layer layer;
  Operation attention;
  attention.name = "attention";
  attention.kind = OperationKind::kAttention;
  attention.tokens_per_sample = 4096;
  attention.attention = {32, 8, 128, 128, 4096, true};
  layer.operations.push_back(attention);
  TrainingConfig config = OneRank(model);
  config.tensor_parallel = 4;
  const auto causal = PriceLayerByKernels(layer, *model, config, 2);
  // Per rank: 2 samples x 8 heads; the full square forward is 4 x 2 x 8 x 4096^2 x 128 FLOPs.
  AttentionShape shape;
  shape.batch = 2;
  shape.heads = 8;
  shape.kv_heads = 2;
  shape.q_len = shape.kv_len = 4096;
  shape.head_dim = 128;
  const double full_flops = 4.0 * 2 * 8 * 4096.0 * 4096.0 * 128;
  EXPECT_EQ(AttentionFlops(shape, Pass::kForward), full_flops);
  shape.causal = true;
  EXPECT_EQ(AttentionFlops(shape, Pass::kForward), 0.5 * full_flops);
  const AttentionEstimate expected = model->Attention(shape, Pass::kForward);
  EXPECT_EQ(expected.flops, 0.5 * full_flops);
  EXPECT_DOUBLE_EQ(causal->forward.kernels[OpClass::kAttention], expected.time_ns);
  EXPECT_DOUBLE_EQ(causal->forward.kernels[OpClass::kAttention],
                   0.5 * full_flops / (expected.rate_TFLOPS * 1000.0));
  // Unmasked, twice the FLOPs (at the non-causal curve's rate).
  layer.operations[0].attention.causal = false;
  const auto unmasked = PriceLayerByKernels(layer, *model, config, 2);
  shape.causal = false;
  const AttentionEstimate square = model->Attention(shape, Pass::kForward);
  EXPECT_DOUBLE_EQ(unmasked->forward.kernels[OpClass::kAttention],
                   full_flops / (square.rate_TFLOPS * 1000.0));
}

// A layer without shapes (a custom row) keeps the roofline, at the device's peak and HBM
// bandwidth: 1e12 FLOPs per sample x 4 samples on an H100 at 989 TFLOP/s = 4,044.49 ns, longer
// than moving its 2 x 1e6 output elements x 4 x 2 B + 1e6 parameters x 2 B at 3,350 B/ns.
TEST(KernelPricing, UnshapedLayerKeepsTheRooflineAtPeak) {
  Model model;
  Layer& custom = model.layers.emplace_back();
  custom.name = "custom";
  custom.params = 1'000'000;
  custom.forward_flops_per_sample = 1e12;
  custom.output_elements_per_sample = 1'000'000;
  TrainingConfig config = OneRank(Make(*FindDevice("H100-SXM"), Precision::kBf16));
  config.global_batch_samples = 4;
  EXPECT_FALSE(PriceLayerByKernels(custom, *config.kernel_model, config, 4).has_value());
  const LayerWork work = BuildTrainingIteration(model, config).layers[0];
  EXPECT_DOUBLE_EQ(work.forward_ns, 4e12 / 989e3);
  EXPECT_DOUBLE_EQ(work.input_grad_ns, 4e12 / 989e3);
  EXPECT_DOUBLE_EQ(work.weight_grad_ns, 4e12 / 989e3);
  // Memory-bound when the FLOPs are few: (2 x 1e6 x 4 x 2 + 1e6 x 2) B / 3,350 B/ns.
  model.layers[0].forward_flops_per_sample = 1e6;
  EXPECT_DOUBLE_EQ(BuildTrainingIteration(model, config).layers[0].forward_ns, 18e6 / 3350.0);
  // The breakdown puts it all under the roofline.
  const ComputeBreakdown breakdown = KernelComputeBreakdown(model, config);
  EXPECT_EQ(breakdown.kernels.TotalNs(), 0.0);
  EXPECT_DOUBLE_EQ(breakdown.roofline_ns, 3 * 18e6 / 3350.0);
}

// Without a kernel model the loop is what it was: the zoo's GPT-2 block at 0.5 of 100 TFLOP/s
// and 1000 GB/s gives the same times as before the model existed (the roofline's own test
// works them out; here the two configs differ only in the unset model).
TEST(KernelPricing, WithoutTheModelNothingChanges) {
  const Model model = *BuildZooModel("gpt2_small");
  TrainingConfig config;
  config.global_batch_samples = 8;
  config.data_parallel = 2;
  config.tensor_parallel = 2;
  config.peak_flops_per_ns = 100e3;
  config.compute_efficiency = 0.5;
  config.memory_bytes_per_ns = 1000;
  const TrainingIteration old_loop = BuildTrainingIteration(model, config);
  TrainingConfig with = config;
  with.kernel_model = Make(RoundNumberDevice(), Precision::kBf16);
  const TrainingIteration kernel_loop = BuildTrainingIteration(model, with);
  const Layer& block = model.layers[1];
  const double share = 4.0 / 2.0;
  double by_hand = 0.0;
  for (const Operation& op : block.operations) {
    const double flops_ns = op.flops_per_sample * share / 50e3;
    const double bytes =
        op.activation_elements_per_sample * share * 2 + static_cast<double>(op.params) / 2 * 2;
    by_hand += std::max(flops_ns, bytes / 500.0);
  }
  EXPECT_DOUBLE_EQ(old_loop.layers[1].forward_ns, by_hand);
  // The kernel model does change it, so the comparison above is not vacuous.
  EXPECT_NE(kernel_loop.layers[1].forward_ns, old_loop.layers[1].forward_ns);
}

}  // namespace
}  // namespace hfsim
