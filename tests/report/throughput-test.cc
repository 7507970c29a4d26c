// The report's throughput section (sim/report/throughput.h): tokens/s per GPU, model TFLOP/s per
// GPU and MFU worked out by hand, Korthikanti et al.'s published MFU reproduced, the section in
// report.json, summary.csv and the summary table, and workload.training.flop_convention read,
// echoed and refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/report/report-csv.h"
#include "sim/report/report-json.h"
#include "sim/report/summary-table.h"
#include "sim/report/throughput.h"
#include "sim/scenario/scenario-parser.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

Scenario Load(const std::string& config) {
  auto scenario = LoadScenarioFile((fs::path(HFSIM_SOURCE_DIR) / "configs" / config).string());
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  return std::move(scenario).Value();
}

// Korthikanti et al. 2022 report 51.4 % MFU for GPT-3 175B with selective recomputation and
// sequence parallelism: 13.75 s per iteration of 64 sequences of 2,048 tokens on 64 A100 (peak
// 312 TFLOP/s), counting 72 B s l h^2 (1 + s/6h + V/12lh) with V = 51,200 (the whole square).
// With the zoo's GPT-3 and its head widened to 51,200: 1,076,442,955,776 FLOPs per token,
// x 131,072 tokens = 141,091,531,099,471,872 per iteration; / 13.75 s / 64 = 160.33 TFLOP/s per
// GPU, 51.39 % of 312.
TEST(ThroughputTest, ReproducesKorthikantiMfu) {
  TrainingWorkload training;
  training.model = *BuildZooModel("gpt3_175b", 2048);
  training.model.layers.back().forward_flops_per_sample = 2.0 * 2048 * 12288 * 51200;
  training.sequence_length_tokens = 2048;
  training.config.global_batch_samples = 64;
  const Throughput t =
      TrainingThroughput(training, 13.75e9, 64, 312.0, FlopConvention::kMegatronFull);
  EXPECT_EQ(t.model_flops_per_iteration, 141'091'531'099'471'872.0);
  EXPECT_NEAR(t.model_tflops_per_gpu, 160.331285, 1e-6);
  EXPECT_NEAR(t.mfu, 0.513882, 1e-6);
  EXPECT_NEAR(100 * t.mfu, 51.4, 0.05);  // the README's figure, as printed
  ASSERT_TRUE(t.tokens_per_s_per_gpu.has_value());
  EXPECT_NEAR(*t.tokens_per_s_per_gpu, 131072.0 / 13.75 / 64, 1e-9);  // 148.95
  EXPECT_EQ(t.samples_per_s_per_gpu, 64.0 / 13.75 / 64);
  EXPECT_EQ(t.peak_TFLOPS_used, 312.0);
  EXPECT_EQ(t.convention, FlopConvention::kMegatronFull);
  // The causal count leaves out 6 l h s = 14,495,514,624 FLOPs per token (1.35 %).
  const Throughput causal =
      TrainingThroughput(training, 13.75e9, 64, 312.0, FlopConvention::kMegatronCausal);
  EXPECT_EQ(causal.model_flops_per_iteration, (1'076'442'955'776.0 - 14'495'514'624.0) * 131072);
  // The peak is the caller's: MFU against another peak scales, the rest does not move.
  const Throughput other =
      TrainingThroughput(training, 13.75e9, 64, 624.0, FlopConvention::kMegatronFull);
  EXPECT_EQ(other.model_tflops_per_gpu, t.model_tflops_per_gpu);
  EXPECT_NEAR(other.mfu, t.mfu / 2, 1e-15);
}

// configs/quickstart.json: GPT-2 medium (24 blocks, d = 1,024, MLP 4,096, vocabulary 50,257) at
// 1,024 tokens, 64 samples per iteration on 32 NPUs of 312 TFLOP/s. Per sample, causal:
//   block: 3 x (2 x 1024 x (4 x 1024^2 + 2 x 1024 x 4096) + 4 x 1024^2 x 1024 / 2)
//        = 3 x (25,769,803,776 + 2,147,483,648)       = 83,751,862,272, x 24 = 2,010,044,694,528
//   logits: 3 x 2 x 1024 x 1024 x 50,257                                   =   316,189,704,192
//   = 2,326,234,398,720, x 64 = 148,879,001,518,080 per iteration.
// Tokens per second per GPU: 64 x 1,024 / T / 32 = 2,048 / T (T the report's iteration, s).
TEST(ThroughputTest, ShippedConfigByHand) {
  const Scenario scenario = Load("quickstart.json");
  const Report report = AnalyticalEngine().Run(scenario);
  const double seconds = report.iteration.total_ns * 1e-9;
  ASSERT_GT(seconds, 0.0);
  const nlohmann::json json = ReportToJson(report, scenario);
  ASSERT_TRUE(json.contains("throughput"));
  const nlohmann::json& t = json["throughput"];
  EXPECT_EQ(t["model_flops_per_iteration"].get<double>(), 148'879'001'518'080.0);
  EXPECT_GT(2048.0 / seconds, 1e4);  // printed whole in the table below
  EXPECT_NEAR(t["tokens_per_s_per_gpu"].get<double>(), 2048.0 / seconds, 1e-9 * 2048.0 / seconds);
  EXPECT_NEAR(t["samples_per_s_per_gpu"].get<double>(), 2.0 / seconds, 1e-12 / seconds);
  const double tflops = 148'879'001'518'080.0 / seconds / 32 / 1e12;
  EXPECT_NEAR(t["model_tflops_per_gpu"].get<double>(), tflops, 1e-9 * tflops);
  EXPECT_NEAR(t["mfu"].get<double>(), tflops / 312, 1e-9 * tflops / 312);
  EXPECT_EQ(t["flop_convention"], "megatron-causal");
  EXPECT_EQ(t["peak_TFLOPS_used"].get<double>(), 312.0);
  // The same figures in summary.csv (a training run's row goes on past the traffic) and in the
  // table.
  const std::string csv = SummaryCsv(report, scenario);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "scenario,engine,npus,iteration_time_ns,compute_ns,exposed_communication_ns,"
            "communication_ns,total_traffic_bytes,tokens_per_s_per_gpu,model_tflops_per_gpu,mfu,"
            "flop_convention");
  EXPECT_NE(csv.find(",megatron-causal\n"), std::string::npos) << csv;
  const std::string table = SummaryTable(report, scenario);
  // Rates above 10,000 print whole, others with 4 significant digits.
  EXPECT_NE(table.find(fmt::format("throughput: {:.0f} tokens/s per GPU, {:.4g} model TFLOP/s "
                                   "per GPU, MFU {:.1f} % of 312 TFLOP/s (megatron-causal FLOPs, "
                                   "no recomputation)",
                                   2048.0 / seconds, tflops, 100 * tflops / 312)),
            std::string::npos)
      << table;
}

// A CNN has samples, not tokens: no tokens field (empty in summary.csv); a collective has no
// throughput at all, and its summary.csv keeps its eight columns.
TEST(ThroughputTest, CnnHasNoTokensAndCollectiveNoSection) {
  const Scenario resnet = Load("resnet50-data-parallel.json");
  const Report report = AnalyticalEngine().Run(resnet);
  const nlohmann::json json = ReportToJson(report, resnet);
  ASSERT_TRUE(json.contains("throughput"));
  EXPECT_FALSE(json["throughput"].contains("tokens_per_s_per_gpu"));
  EXPECT_GT(json["throughput"]["samples_per_s_per_gpu"].get<double>(), 0.0);
  // Without attention both conventions count the same: 3 x the forward FLOPs.
  EXPECT_EQ(json["throughput"]["model_flops_per_iteration"].get<double>(),
            3 * resnet.training.model.TotalForwardFlopsPerSample() *
                static_cast<double>(resnet.training.config.global_batch_samples));
  const std::string csv = SummaryCsv(report, resnet);
  const std::string row = csv.substr(csv.find('\n') + 1);
  EXPECT_NE(row.find(",,"), std::string::npos) << row;  // the empty tokens field
  const Scenario collective = Load("allreduce-rdma.json");
  const Report collective_report = AnalyticalEngine().Run(collective);
  EXPECT_FALSE(ReportToJson(collective_report, collective).contains("throughput"));
  const std::string collective_csv = SummaryCsv(collective_report, collective);
  EXPECT_EQ(collective_csv.substr(0, collective_csv.find('\n')),
            "scenario,engine,npus,iteration_time_ns,compute_ns,exposed_communication_ns,"
            "communication_ns,total_traffic_bytes");
  EXPECT_EQ(SummaryTable(collective_report, collective).find("throughput:"), std::string::npos);
}

TEST(ThroughputTest, NoTimeNoRates) {
  TrainingWorkload training;
  training.model = *BuildZooModel("gpt2_small", 1024);
  training.sequence_length_tokens = 1024;
  training.config.global_batch_samples = 8;
  const Throughput t = TrainingThroughput(training, 0.0, 8, 100.0, FlopConvention::kMegatronCausal);
  EXPECT_GT(t.model_flops_per_iteration, 0.0);
  EXPECT_EQ(t.model_tflops_per_gpu, 0.0);
  EXPECT_EQ(t.mfu, 0.0);
  EXPECT_EQ(t.tokens_per_s_per_gpu, 0.0);
}

nlohmann::json Quickstart() {
  auto document =
      LoadScenarioDocument((fs::path(HFSIM_SOURCE_DIR) / "configs/quickstart.json").string());
  EXPECT_TRUE(document);
  return document.Value();
}

TEST(ThroughputTest, FlopConventionReadEchoedAndRefused) {
  nlohmann::json document = Quickstart();
  // The default is causal and is not echoed (earlier reports' echoes stay as they were).
  auto plain = ParseScenario(document);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain.Value().training.flop_convention, FlopConvention::kMegatronCausal);
  EXPECT_FALSE(ScenarioToJson(plain.Value())["workload"]["training"].contains("flop_convention"));
  document["workload"]["training"]["flop_convention"] = "megatron-full";
  auto full = ParseScenario(document);
  ASSERT_TRUE(full) << full.Error().ToString();
  EXPECT_EQ(full.Value().training.flop_convention, FlopConvention::kMegatronFull);
  const nlohmann::json echo = ScenarioToJson(full.Value());
  EXPECT_EQ(echo["workload"]["training"]["flop_convention"], "megatron-full");
  auto again = ParseScenario(echo);
  ASSERT_TRUE(again);
  EXPECT_EQ(again.Value().training.flop_convention, FlopConvention::kMegatronFull);
  // The report counts in the scenario's convention: the whole square is more.
  const Report report = AnalyticalEngine().Run(full.Value());
  const nlohmann::json t = ReportToJson(report, full.Value())["throughput"];
  EXPECT_EQ(t["flop_convention"], "megatron-full");
  EXPECT_EQ(t["model_flops_per_iteration"].get<double>(),
            3 * full.Value().training.model.TotalForwardFlopsPerSample() * 64);
  document["workload"]["training"]["flop_convention"] = "causal";
  auto bad = ParseScenario(document);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.Error().where, "workload.training.flop_convention");
  EXPECT_NE(bad.Error().message.find("\"megatron-causal\""), std::string::npos)
      << bad.Error().message;
  EXPECT_NE(bad.Error().message.find("\"megatron-full\""), std::string::npos);
}

}  // namespace
}  // namespace hfsim
