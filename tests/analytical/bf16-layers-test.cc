// workload.training.bf16_layers (Megatron-LM's first_last_layers_bf16): the first and last
// transformer layers of an FP8 job keep their linear GEMMs in BF16, hold no FP8 weight copies,
// and save their inputs in 16 bits. Checked against the same blocks priced as a BF16 job, and
// the weight bytes by hand.
//
// Llama 3 8B (h 4096, 32 query and 8 key/value heads of 128, SwiGLU FFN 14,336, no biases): the
// linear layers of one block hold 4096 x 6144 (QKV) + 4096 x 4096 (projection) + 4096 x 28672
// (fc1) + 14336 x 4096 (fc2) = 218,103,808 parameters, each with a 1-byte FP8 copy and its
// 1-byte transpose under FP8 (docs/memory.md).
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/kernel-pricing.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

nlohmann::json Fp8Llama() {
  return nlohmann::json::parse(R"({
    "name": "fp8",
    "topology": {"dimensions": [
      {"kind": "Switch", "size": 8, "bandwidth_GBps": 450, "latency_ns": 1000}]},
    "npu": {"device": "H100-SXM", "allow_memory_overflow": true},
    "workload": {"training": {
      "model": "llama3_8b", "sequence_length_tokens": 8192, "global_batch_samples": 8,
      "precision": "fp8", "parallelism": {"data": 8, "tensor": 1}}}
  })");
}

nlohmann::json& Training(nlohmann::json& doc) { return doc["workload"]["training"]; }

constexpr double kBlockLinearParams = 218'103'808.0;

TEST(Bf16Layers, MarksTheFirstAndLastBlocksOnly) {
  nlohmann::json doc = Fp8Llama();
  Training(doc)["bf16_layers"] = {{"first", 2}, {"last", 1}};
  const Scenario s = ParseOrDie(doc);
  const std::vector<Layer>& layers = s.training.model.layers;
  ASSERT_EQ(layers.size(), 35u);  // embedding, 32 blocks, norm, output
  for (size_t i = 0; i < layers.size(); ++i) {
    const bool kept = i == 1 || i == 2 || i == 32;
    EXPECT_EQ(layers[i].high_precision, kept) << layers[i].name;
  }
  // Megatron's defaults: one at each end.
  Training(doc)["bf16_layers"] = nlohmann::json::object();
  const Scenario defaults = ParseOrDie(doc);
  EXPECT_TRUE(defaults.training.model.layers[1].high_precision);
  EXPECT_FALSE(defaults.training.model.layers[2].high_precision);
  EXPECT_TRUE(defaults.training.model.layers[32].high_precision);
  const nlohmann::json echo = ScenarioToJson(defaults);
  EXPECT_EQ(echo["workload"]["training"]["bf16_layers"],
            (nlohmann::json{{"first", 1}, {"last", 1}}));
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
}

// Two blocks in BF16: 2 x 218,103,808 parameters x 2 bytes fewer FP8 copies, and their saved
// activations in 16 bits (more bytes).
TEST(Bf16Layers, KeptBlocksHoldNoFp8Copies) {
  nlohmann::json doc = Fp8Llama();
  const RankMemory fp8 = ParseOrDie(doc).training.memory;
  Training(doc)["bf16_layers"] = {{"first", 1}, {"last", 1}};
  const RankMemory kept = ParseOrDie(doc).training.memory;
  EXPECT_DOUBLE_EQ(fp8.weights_bytes - kept.weights_bytes, 2 * kBlockLinearParams * 2.0);
  EXPECT_GT(kept.activations_bytes, fp8.activations_bytes);
  EXPECT_DOUBLE_EQ(kept.gradients_bytes, fp8.gradients_bytes);
  EXPECT_DOUBLE_EQ(kept.optimizer_bytes, fp8.optimizer_bytes);
}

// A kept block prices exactly as the same block of a BF16 job; the job's compute grows by
// two blocks' BF16 - FP8 difference.
TEST(Bf16Layers, KeptBlocksArePricedAsInBf16) {
  nlohmann::json doc = Fp8Llama();
  const Scenario fp8 = ParseOrDie(doc);
  Training(doc)["bf16_layers"] = {{"first", 1}, {"last", 1}};
  const Scenario kept = ParseOrDie(doc);
  Training(doc)["precision"] = "bf16";
  Training(doc).erase("bf16_layers");
  const Scenario bf16 = ParseOrDie(doc);
  ASSERT_TRUE(fp8.training.config.kernel_model && bf16.training.config.kernel_model);
  const uint64_t samples = 1;
  const Layer& block = kept.training.model.layers[1];
  const auto as_kept =
      PriceLayerByKernels(block, *fp8.training.config.kernel_model, kept.training.config, samples);
  const auto in_bf16 = PriceLayerByKernels(bf16.training.model.layers[1],
                                           *bf16.training.config.kernel_model,
                                           bf16.training.config, samples);
  const auto in_fp8 = PriceLayerByKernels(fp8.training.model.layers[1],
                                          *fp8.training.config.kernel_model, fp8.training.config,
                                          samples);
  ASSERT_TRUE(as_kept && in_bf16 && in_fp8);
  auto total = [](const KernelLayerTimes& t) {
    return t.forward.TotalNs() + t.input_grad.TotalNs() + t.weight_grad.TotalNs();
  };
  EXPECT_EQ(total(*as_kept), total(*in_bf16));
  EXPECT_GT(total(*in_bf16), total(*in_fp8));
  const Report with = AnalyticalEngine().Run(kept);
  const Report without = AnalyticalEngine().Run(fp8);
  EXPECT_NEAR(with.iteration.ComputeNs() - without.iteration.ComputeNs(),
              2 * (total(*in_bf16) - total(*in_fp8)), 1e-6 * without.iteration.ComputeNs());
}

TEST(Bf16Layers, RefusedWhereItMeansNothing) {
  nlohmann::json doc = Fp8Llama();
  Training(doc)["bf16_layers"] = {{"first", 1}};
  Training(doc)["precision"] = "bf16";
  ExpectLoadError(doc, "workload.training.bf16_layers", "only with \"precision\": \"fp8\"");
  doc = Fp8Llama();
  Training(doc)["bf16_layers"] = {{"first", 33}};
  ExpectLoadError(doc, "workload.training.bf16_layers.first", "0 to 32");
  doc = Fp8Llama();
  Training(doc)["bf16_layers"] = {{"middle", 1}};
  ExpectLoadError(doc, "workload.training.bf16_layers.middle", "accepted keys here");
  doc = Fp8Llama();
  Training(doc)["model"] = nlohmann::json::parse(
      R"({"name": "custom", "layers": [{"name": "a", "params": 10,
          "forward_flops_per_sample": 1e6}]})");
  Training(doc).erase("sequence_length_tokens");
  Training(doc)["bf16_layers"] = {{"first", 1}};
  ExpectLoadError(doc, "workload.training.bf16_layers", "not a transformer hfsim builds");
  // The single efficiency prices every layer at one rate: nothing to keep in BF16.
  doc = Fp8Llama();
  doc["npu"]["compute_efficiency"] = 0.5;
  Training(doc)["bf16_layers"] = {{"first", 1}};
  ExpectLoadError(doc, "workload.training.bf16_layers", "kernel-level compute model");
  // 32 blocks over 33 stages leave a stage no block: the default of 1 is over the limit too.
  doc = Fp8Llama();
  doc["topology"]["dimensions"][0]["size"] = 33;
  Training(doc)["global_batch_samples"] = 33;
  Training(doc)["parallelism"] = {{"data", 1}, {"pipeline", 33}, {"micro_batches", 33}};
  Training(doc)["bf16_layers"] = nlohmann::json::object();
  ExpectLoadError(doc, "workload.training.bf16_layers", "defaults to 1");
  Training(doc)["bf16_layers"] = {{"first", 0}, {"last", 0}};
  EXPECT_TRUE(ParseScenario(doc));
}

}  // namespace
}  // namespace hfsim
