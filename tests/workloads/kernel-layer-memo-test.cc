// The kernel-priced layer memo (KernelLayerMemo, workloads/kernel-pricing.h): the training loop
// that prices each distinct layer once gives every layer exactly (to the bit) the times that
// PriceLayerByKernels gives it alone; Llama 3 405B's 126 identical blocks are priced once; a
// layer that differs from one already priced in a GEMM's shape, an attention shape, whether its
// experts are routed or its tensor-parallel all-reduces is priced anew; and the same model
// under another device or precision gets that device's or precision's times.
#include "workloads/kernel-pricing.h"

#include <gtest/gtest.h>

#include <memory>
#include <variant>

#include "models/compute/compute-model.h"
#include "tests/models/compute-test-device.h"
#include "workloads/model-zoo.h"
#include "workloads/training-loop.h"

namespace hfsim {
namespace {

std::shared_ptr<const ComputeModel> Make(const DeviceSpec& device, Precision precision) {
  auto made = ComputeModel::Create(device, precision, AttentionImpl::kFused);
  EXPECT_TRUE(std::holds_alternative<ComputeModel>(made));
  return std::make_shared<const ComputeModel>(std::get<ComputeModel>(made));
}

// Llama 3 405B as Meta trained it (tensor 8, sequence parallelism, data 128; 16 samples per
// replica), on `device` in `precision`.
TrainingConfig Llama405B(const DeviceSpec& device, Precision precision) {
  TrainingConfig config;
  config.global_batch_samples = 2048;
  config.data_parallel = 128;
  config.tensor_parallel = 8;
  config.sequence_parallel = true;
  config.peak_flops_per_ns = device.PeakFlopsPerNs(precision);
  config.memory_bytes_per_ns = device.hbm_GBps;
  config.kernel_model = Make(device, precision);
  return config;
}

void ExpectSamePass(const KernelPassTimes& a, const KernelPassTimes& b) {
  for (const OpClass c : kAllOpClasses) EXPECT_EQ(a.kernels[c], b.kernels[c]) << ToString(c);
  EXPECT_EQ(a.roofline_ns, b.roofline_ns);
}

void ExpectSameTimes(const std::optional<KernelLayerTimes>& a,
                     const std::optional<KernelLayerTimes>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  ExpectSamePass(a->forward, b->forward);
  ExpectSamePass(a->input_grad, b->input_grad);
  ExpectSamePass(a->weight_grad, b->weight_grad);
  EXPECT_EQ(a->attention_forward_ns, b->attention_forward_ns);
  EXPECT_EQ(a->attention_backward_ns, b->attention_backward_ns);
}

// Every layer through the memo against the same layer priced alone, exact equality of every
// number, in BF16 and FP8 and with context parallelism (which divides the attention and the
// tokens). The zoo's Llama 3 405B is the embedding, 126 blocks alike, the final norm and the
// output head: 4 distinct layers, so the memo prices 4 of the 129.
TEST(KernelLayerMemo, GivesEachLayerItsOwnTimesAndPricesIdenticalBlocksOnce) {
  const Model model = *BuildZooModel("llama3_405b", 8192);
  ASSERT_EQ(model.layers.size(), 129u);
  for (const Precision precision : {Precision::kBf16, Precision::kFp8}) {
    for (const uint32_t context : {1u, 2u}) {
      TrainingConfig config = Llama405B(*FindDevice("H100-SXM"), precision);
      config.context_parallel = context;
      config.data_parallel = 128 / context;
      const uint64_t samples = config.global_batch_samples / config.data_parallel;
      KernelLayerMemo memo(*config.kernel_model, config, samples);
      for (const Layer& layer : model.layers) {
        ExpectSameTimes(memo.Price(layer),
                        PriceLayerByKernels(layer, *config.kernel_model, config, samples));
      }
      EXPECT_EQ(memo.PricedCount(), 4u);
    }
  }
}

// The training loop (which prices through the memo) against the loop's own formulas applied to
// each layer priced alone: forward, input gradients with the attention core's forward again
// (selective recomputation), weight gradients.
TEST(KernelLayerMemo, TrainingLoopUnchanged) {
  const Model model = *BuildZooModel("llama3_405b", 8192);
  TrainingConfig config = Llama405B(*FindDevice("H100-SXM"), Precision::kFp8);
  config.recompute = Recompute::kSelective;
  const uint64_t samples = config.global_batch_samples / config.data_parallel;
  const TrainingIteration iteration = BuildTrainingIteration(model, config);
  ASSERT_EQ(iteration.layers.size(), model.layers.size());
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const auto alone = PriceLayerByKernels(model.layers[i], *config.kernel_model, config, samples);
    ASSERT_TRUE(alone.has_value());
    const LayerWork& work = iteration.layers[i];
    EXPECT_EQ(work.forward_ns, alone->forward.TotalNs());
    EXPECT_EQ(work.input_grad_ns, alone->input_grad.TotalNs() + alone->attention_forward_ns);
    EXPECT_EQ(work.weight_grad_ns, alone->weight_grad.TotalNs());
  }
}

// A layer of a linear operation (1280 tokens, 1280 -> 1280, column split) and an elementwise
// one, and its variants, each differing from it in one field the pricing reads. The memo,
// having priced the first, must price each variant anew (PricedCount grows by one) and give it
// the times it has alone.
TEST(KernelLayerMemo, KeyDistinguishesEveryPricedField) {
  Layer base;
  base.name = "base";
  Operation linear;
  linear.name = "linear";
  linear.kind = OperationKind::kLinear;
  linear.tokens_per_sample = 1280;
  linear.gemm = {1280, 1280, TensorSplit::kColumn, 1};
  base.operations.push_back(linear);
  Operation elementwise;
  elementwise.name = "elementwise";
  elementwise.kind = OperationKind::kElementwise;
  elementwise.tokens_per_sample = 1280;
  elementwise.elements_per_token = 10;
  base.operations.push_back(elementwise);

  TrainingConfig config;
  config.global_batch_samples = 1;
  config.tensor_parallel = 2;
  config.peak_flops_per_ns = RoundNumberDevice().PeakFlopsPerNs(Precision::kBf16);
  config.memory_bytes_per_ns = RoundNumberDevice().hbm_GBps;
  config.kernel_model = Make(RoundNumberDevice(), Precision::kBf16);
  KernelLayerMemo memo(*config.kernel_model, config, 1);
  const auto base_times = memo.Price(base);
  ASSERT_TRUE(base_times.has_value());
  // On the round-number device (tests/models/compute-test-device.h: 10 SMs, BF16 at 50,000
  // FLOP/ns achievable, Hopper's tile list), tensor 2 splits the column-parallel output: fprop
  // m 1280, n 640, k 1280 fills 128 x 160 tiles exactly (8 x 5 = 40 tiles, 4 full waves), so it
  // runs at the full rate: 2 x 1280 x 640 x 1280 = 2,097,152,000 FLOPs / 50,000 = 41,943.04 ns
  // (its memory, (1280 x 1280 + 1280 x 640 + 1280 x 640) x 2 B = 6,553,600 B, takes 6,553.6 ns).
  EXPECT_NEAR(base_times->forward.kernels[OpClass::kGemm], 41'943.04, 1e-6);
  EXPECT_EQ(memo.PricedCount(), 1u);

  // The same layer under another name is the same pricing: looked up, not priced.
  Layer renamed = base;
  renamed.name = "renamed";
  ExpectSameTimes(memo.Price(renamed), base_times);
  EXPECT_EQ(memo.PricedCount(), 1u);

  size_t priced = 1;
  auto expect_new = [&](const Layer& variant, const char* what) {
    SCOPED_TRACE(what);
    const auto times = memo.Price(variant);
    EXPECT_EQ(memo.PricedCount(), ++priced);
    ExpectSameTimes(times, PriceLayerByKernels(variant, *config.kernel_model, config, 1));
  };
  Layer wider = base;
  wider.operations[0].gemm.out_features = 2560;
  expect_new(wider, "GEMM n");
  EXPECT_GT(memo.Price(wider)->forward.kernels[OpClass::kGemm],
            base_times->forward.kernels[OpClass::kGemm]);
  Layer deeper = base;
  deeper.operations[0].gemm.in_features = 2560;
  expect_new(deeper, "GEMM k");
  Layer longer = base;
  longer.operations[0].tokens_per_sample = 2560;
  expect_new(longer, "GEMM m (tokens)");
  Layer row = base;
  row.operations[0].gemm.split = TensorSplit::kRow;
  expect_new(row, "tensor split");
  Layer head = base;
  head.operations[0].kind = OperationKind::kLmHead;
  expect_new(head, "operation kind");
  Layer blocky = base;
  blocky.tensor_parallel_all_reduces = 2;  // the elementwise bytes split over the tensor group
  expect_new(blocky, "tensor-parallel all-reduces");
  EXPECT_NE(memo.Price(blocky)->forward.kernels[OpClass::kElementwise],
            base_times->forward.kernels[OpClass::kElementwise]);
  Layer routed = blocky;
  routed.routed = RoutedExperts{};
  expect_new(routed, "routed experts");
  // Whether a pass has a given collective decides where Transformer Engine's userbuffers run.
  Layer forward_given = base;
  forward_given.forward_comm = LayerComm{CollectiveKind::kAllReduce, 1024};
  expect_new(forward_given, "forward collective given");
  Layer backward_given = base;
  backward_given.input_grad_comm = LayerComm{CollectiveKind::kAllReduce, 1024};
  expect_new(backward_given, "input-gradient collective given");
  Layer attention = base;
  Operation core;
  core.name = "attention";
  core.kind = OperationKind::kAttention;
  core.tokens_per_sample = 1280;
  core.attention = {2, 2, 128, 128, 1280, true};
  attention.operations.push_back(core);
  expect_new(attention, "attention added");
  Layer full = attention;
  full.operations.back().attention.causal = false;
  expect_new(full, "attention causal");
  Layer wide_heads = attention;
  wide_heads.operations.back().attention.qk_head_dim = 256;
  wide_heads.operations.back().attention.v_head_dim = 256;
  expect_new(wide_heads, "attention head dimension");
}

// The same model priced by two loops in turn, on two devices and in two precisions: each
// loop's times are its own device's and precision's, equal to the layers priced alone (a memo
// carried from one loop to the next, not keyed by them, would hand the second the first's).
TEST(KernelLayerMemo, DeviceAndPrecisionAreTheLoops) {
  const Model model = *BuildZooModel("llama3_405b", 8192);
  const TrainingConfig h100_bf16 = Llama405B(*FindDevice("H100-SXM"), Precision::kBf16);
  const TrainingConfig h100_fp8 = Llama405B(*FindDevice("H100-SXM"), Precision::kFp8);
  const TrainingConfig a100_bf16 = Llama405B(*FindDevice("A100-SXM-80GB"), Precision::kBf16);
  const uint64_t samples = 16;
  double block_ns[3] = {};
  int i = 0;
  for (const TrainingConfig* config : {&h100_bf16, &h100_fp8, &a100_bf16}) {
    const TrainingIteration iteration = BuildTrainingIteration(model, *config);
    const auto alone =
        PriceLayerByKernels(model.layers[1], *config->kernel_model, *config, samples);
    EXPECT_EQ(iteration.layers[1].forward_ns, alone->forward.TotalNs());
    block_ns[i++] = iteration.layers[1].forward_ns;
  }
  EXPECT_LT(block_ns[1], block_ns[0]);  // FP8's GEMMs are faster on an H100
  EXPECT_GT(block_ns[2], block_ns[0]);  // an A100 is slower
}

}  // namespace
}  // namespace hfsim
