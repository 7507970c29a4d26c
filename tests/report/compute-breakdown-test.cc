// The report's compute_breakdown (sim/report/compute-breakdown.h): present only under the
// kernel-level compute model, its classes adding up to the compute the engine ran, under a
// pipeline the mean over the stages, and with micro-batches on one stage all of them.
#include "sim/report/compute-breakdown.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/analytical/analytical-engine.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-parser.h"
#include "workloads/kernel-pricing.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

nlohmann::json Quickstart() {
  auto document =
      LoadScenarioDocument((fs::path(HFSIM_SOURCE_DIR) / "configs/quickstart.json").string());
  EXPECT_TRUE(document);
  return document.Value();
}

Scenario Parse(const nlohmann::json& document) {
  auto scenario = ParseScenario(document);
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  return std::move(scenario).Value();
}

// Quickstart's GPT-2 medium (tensor 8, data 4, 16 samples per replica) on an H100: every row has
// shapes, so everything is under a kernel class and the total is the compute the analytical
// engine's iteration adds up (forward, input and weight gradients; no recomputation here).
TEST(ComputeBreakdownTest, ClassesAddUpToTheIterationsCompute) {
  nlohmann::json document = Quickstart();
  document["npu"] = {{"device", "H100-SXM"}};
  const Scenario scenario = Parse(document);
  const Report report = AnalyticalEngine().Run(scenario);
  const nlohmann::json json = ReportToJson(report, scenario);
  ASSERT_TRUE(json.contains("compute_breakdown"));
  const nlohmann::json& b = json["compute_breakdown"];
  const double gemm = b["gemm_ns"].get<double>();
  const double attention = b["attention_ns"].get<double>();
  const double elementwise = b["elementwise_ns"].get<double>();
  EXPECT_GT(gemm, attention);
  EXPECT_GT(attention, 0.0);
  EXPECT_GT(elementwise, 0.0);
  EXPECT_EQ(b["comm_kernel_overhead_ns"].get<double>(), 0.0);
  EXPECT_EQ(b["roofline_ns"].get<double>(), 0.0);
  const double total = b["total_ns"].get<double>();
  EXPECT_NEAR(total, gemm + attention + elementwise, 1e-9 * total);
  const IterationTimeline& it = report.iteration;
  const double compute =
      it.forward_compute_ns + it.input_grad_compute_ns + it.weight_grad_compute_ns;
  EXPECT_NEAR(total, compute, 1e-9 * compute);
  // Selective recomputation adds the attention core's forward, under attention only.
  nlohmann::json selective = document;
  selective["workload"]["training"]["recompute"] = "selective";
  const auto again = ReportComputeBreakdown(Parse(selective));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->kernels[OpClass::kGemm], gemm);
  EXPECT_GT(again->kernels[OpClass::kAttention], attention);
  EXPECT_LT(again->kernels[OpClass::kAttention], 2 * attention);
}

// Gradient accumulation without a pipeline: each rank runs every layer once per micro-batch, so
// the classes add up to the compute the engine ran over the 4 micro-batches of 4 samples.
TEST(ComputeBreakdownTest, MicroBatchesWithoutAPipelineAddUpToTheIterationsCompute) {
  nlohmann::json document = Quickstart();
  document["npu"] = {{"device", "H100-SXM"}};
  document["workload"]["training"]["parallelism"] = {{"data", 4}, {"tensor", 8},
                                                     {"micro_batches", 4}};
  const Scenario scenario = Parse(document);
  const Report report = AnalyticalEngine().Run(scenario);
  const auto b = ReportComputeBreakdown(scenario);
  ASSERT_TRUE(b.has_value());
  const IterationTimeline& it = report.iteration;
  const double compute =
      it.forward_compute_ns + it.input_grad_compute_ns + it.weight_grad_compute_ns;
  EXPECT_NEAR(b->TotalNs(), compute, 1e-9 * compute);
}

// Transformer Engine's userbuffers take SMs from the GEMMs they overlap only where the graph
// overlaps a tensor-parallel collective with sequence parallelism on (docs/compute-model.md §5):
// then the report's comm_kernel_overhead_ns is positive, and the classes still add up to the
// compute the engine ran (the slowed GEMMs are what it ran). Without tensor-parallel overlap,
// or without sequence parallelism (no userbuffers in TE), it is 0.
TEST(ComputeBreakdownTest, CommKernelOverheadExactlyWithUserbuffers) {
  nlohmann::json document = Quickstart();
  document["npu"] = {{"device", "H100-SXM"}};
  nlohmann::json& training = document["workload"]["training"];
  training["parallelism"]["sequence_parallel"] = true;
  training["overlap"] = {{"gradients", true}, {"tensor_parallel", true}};
  auto overhead = [](const Scenario& scenario, const Report& report) {
    const nlohmann::json json = ReportToJson(report, scenario);
    const nlohmann::json& b = json["compute_breakdown"];
    const IterationTimeline& it = report.iteration;
    const double compute =
        it.forward_compute_ns + it.input_grad_compute_ns + it.weight_grad_compute_ns;
    EXPECT_NEAR(b["total_ns"].get<double>(), compute, 1e-9 * compute);
    return b["comm_kernel_overhead_ns"].get<double>();
  };
  const Scenario overlapped = Parse(document);
  const Report with = AnalyticalEngine().Run(overlapped);
  const double charged = overhead(overlapped, with);
  EXPECT_GT(charged, 0.0);

  nlohmann::json blocking = document;
  blocking["workload"]["training"]["overlap"]["tensor_parallel"] = false;
  const Scenario plain = Parse(blocking);
  const Report without = AnalyticalEngine().Run(plain);
  EXPECT_EQ(overhead(plain, without), 0.0);
  // The same GEMMs otherwise: the overhead is all the compute adds.
  const auto a = ReportComputeBreakdown(overlapped);
  const auto b = ReportComputeBreakdown(plain);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->kernels[OpClass::kGemm], b->kernels[OpClass::kGemm]);
  EXPECT_NEAR(a->TotalNs() - b->TotalNs(), charged, 1e-9 * a->TotalNs());

  nlohmann::json no_sequence = document;
  no_sequence["workload"]["training"]["parallelism"].erase("sequence_parallel");
  const Scenario chunked_all_reduces = Parse(no_sequence);
  EXPECT_EQ(overhead(chunked_all_reduces, AnalyticalEngine().Run(chunked_all_reduces)), 0.0);
}

// Without the kernel-level model (no device, or a device with compute_efficiency) there is no
// section, so shipped reports are unchanged.
TEST(ComputeBreakdownTest, AbsentWithoutTheKernelModel) {
  const Scenario plain = Parse(Quickstart());
  EXPECT_FALSE(ReportToJson(AnalyticalEngine().Run(plain), plain).contains("compute_breakdown"));
  nlohmann::json document = Quickstart();
  document["npu"] = {{"device", "H100-SXM"}, {"compute_efficiency", 0.5}};
  const Scenario efficiency = Parse(document);
  EXPECT_FALSE(ReportComputeBreakdown(efficiency).has_value());
}

// Llama 3 405B on 16,384 H100s as Meta ran it (configs/validation/llama3-405b-16k-16384-h100.json:
// tensor 8, pipeline 16, data 128, 16 micro-batches of one sample, sequence parallelism, no
// recomputation), kernel-priced. Evaluated twice in one process (cold, then warm), the report's
// bytes are the same; and its compute breakdown, whose training loop prices the 126 identical
// blocks once (KernelLayerMemo), equals to the bit every layer priced on its own
// (PriceLayerByKernels, no memo) summed in the report's order: forward + input gradients +
// weight gradients per layer, added layer by layer, for one micro-batch (2048 / 16 / 128 = 1
// sample), times micro-batches over stages (16 / 16 = 1).
TEST(ComputeBreakdownTest, ReportBytesColdWarmAndPricedLayerByLayer) {
  auto loaded = LoadScenarioFile(
      (fs::path(HFSIM_SOURCE_DIR) / "configs/validation/llama3-405b-16k-16384-h100.json").string());
  ASSERT_TRUE(loaded) << loaded.Error().ToString();
  const Scenario& scenario = loaded.Value();
  const AnalyticalEngine engine;
  const std::string cold = ReportToJson(engine.Run(scenario), scenario).dump();
  const std::string warm = ReportToJson(engine.Run(scenario), scenario).dump();
  EXPECT_EQ(cold, warm);

  const TrainingWorkload& t = scenario.training;
  ASSERT_TRUE(t.config.kernel_model);
  ASSERT_EQ(t.pipeline.micro_batches, 16u);
  ASSERT_EQ(t.pipeline.pipeline, 16u);
  TrainingConfig micro = t.config;
  micro.global_batch_samples = t.config.global_batch_samples / t.pipeline.micro_batches;
  const uint64_t samples = micro.global_batch_samples / micro.data_parallel;
  ASSERT_EQ(samples, 1u);
  ASSERT_EQ(micro.recompute, Recompute::kNone);
  ComputeTally sum;
  for (const Layer& layer : t.model.layers) {
    const auto alone = PriceLayerByKernels(layer, *micro.kernel_model, micro, samples);
    ASSERT_TRUE(alone.has_value()) << layer.name;
    KernelPassTimes all = alone->forward;
    all += alone->input_grad;
    all += alone->weight_grad;
    sum += all.kernels;
  }
  const nlohmann::json b = nlohmann::json::parse(cold)["compute_breakdown"];
  for (const OpClass c : kAllOpClasses) {
    // 16 / 16: the scale is exactly 1.
    EXPECT_EQ(b[std::string(ToString(c)) + "_ns"].get<double>(), sum[c]) << ToString(c);
  }
  EXPECT_GT(sum[OpClass::kGemm], 0.0);
}

}  // namespace
}  // namespace hfsim
