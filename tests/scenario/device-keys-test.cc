// npu.device, workload.training.precision and workload.training.attention: what a preset sets,
// what explicit keys override, when the kernel-level compute model is used, the echo (only what
// was given, and read back to the same job), and the refusals at their JSON paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "models/compute/compute-model.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

nlohmann::json Quickstart() {
  auto document =
      LoadScenarioDocument((fs::path(HFSIM_SOURCE_DIR) / "configs/quickstart.json").string());
  EXPECT_TRUE(document);
  return document.Value();
}

// Quickstart (GPT-2 medium, tensor 8, data 4) on a device preset instead of its figures.
nlohmann::json OnDevice(const std::string& device) {
  nlohmann::json document = Quickstart();
  document["npu"] = {{"device", device}};
  return document;
}

Scenario Parse(const nlohmann::json& document) {
  auto scenario = ParseScenario(document);
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  return std::move(scenario).Value();
}

TEST(DeviceKeysTest, PresetSetsPeakMemoryAndBandwidthAndTheKernelModel) {
  const Scenario s = Parse(OnDevice("H100-SXM"));
  const TrainingWorkload& t = s.training;
  ASSERT_NE(t.device, nullptr);
  EXPECT_EQ(t.device->name, "H100-SXM");
  // docs/devices.md §3: 989 TFLOP/s BF16 (the default precision), 80 GiB, 3,350 GB/s.
  EXPECT_EQ(t.peak_TFLOPS, 989.0);
  EXPECT_EQ(t.config.peak_flops_per_ns, 989e3);
  EXPECT_EQ(t.hbm_GiB, 80.0);
  EXPECT_EQ(t.config.memory_bytes_per_ns, 3350.0);
  ASSERT_NE(t.config.kernel_model, nullptr);
  EXPECT_EQ(t.config.kernel_model->training_precision(), Precision::kBf16);
  EXPECT_EQ(t.config.kernel_model->attention_impl(), AttentionImpl::kFused);
  // Layers without shapes are priced by the roofline at the device's peak.
  EXPECT_EQ(t.config.compute_efficiency, 1.0);
  // The echo names the device, not the efficiency it was not given, and nothing about the
  // precision or attention it was not given either.
  const nlohmann::json echo = ScenarioToJson(s);
  EXPECT_EQ(echo["npu"]["device"], "H100-SXM");
  EXPECT_FALSE(echo["npu"].contains("compute_efficiency"));
  EXPECT_FALSE(echo["workload"]["training"].contains("precision"));
  EXPECT_FALSE(echo["workload"]["training"].contains("attention"));
  // Read back, it is the same job.
  const Scenario again = Parse(echo);
  ASSERT_NE(again.training.config.kernel_model, nullptr);
  EXPECT_EQ(AnalyticalEngine().Run(again).iteration.total_ns,
            AnalyticalEngine().Run(s).iteration.total_ns);
}

TEST(DeviceKeysTest, Fp8SetsThePeakAtItsPrecisionAndExplicitKeysOverride) {
  nlohmann::json document = OnDevice("H100-SXM");
  document["workload"]["training"]["precision"] = "fp8";
  document["workload"]["training"]["attention"] = "unfused";
  const Scenario fp8 = Parse(document);
  EXPECT_EQ(fp8.training.peak_TFLOPS, 1979.0);
  ASSERT_NE(fp8.training.config.kernel_model, nullptr);
  EXPECT_EQ(fp8.training.config.kernel_model->training_precision(), Precision::kFp8);
  EXPECT_EQ(fp8.training.config.kernel_model->attention_impl(), AttentionImpl::kUnfused);
  const nlohmann::json echo = ScenarioToJson(fp8);
  EXPECT_EQ(echo["workload"]["training"]["precision"], "fp8");
  EXPECT_EQ(echo["workload"]["training"]["attention"], "unfused");
  EXPECT_EQ(AnalyticalEngine().Run(Parse(echo)).iteration.total_ns,
            AnalyticalEngine().Run(fp8).iteration.total_ns);
  // Explicit keys override the preset, in the kernel model too.
  document["npu"]["peak_TFLOPS"] = 1000;
  document["npu"]["hbm_GiB"] = 40;
  document["npu"]["hbm_bandwidth_GBps"] = 2000;
  const Scenario given = Parse(document);
  EXPECT_EQ(given.training.peak_TFLOPS, 1000.0);
  EXPECT_EQ(given.training.hbm_GiB, 40.0);
  EXPECT_EQ(given.training.config.memory_bytes_per_ns, 2000.0);
  const DeviceSpec& used = given.training.config.kernel_model->device();
  EXPECT_EQ(used.peak_TFLOPS[Index(Precision::kFp8)], 1000.0);
  EXPECT_EQ(used.peak_TFLOPS[Index(Precision::kBf16)], 989.0);  // the LM head's, unchanged
  EXPECT_EQ(used.hbm_GBps, 2000.0);
}

// With compute_efficiency the device only fills in the figures: the old single-efficiency
// model, the same job as the figures written out.
TEST(DeviceKeysTest, ComputeEfficiencyKeepsTheSingleEfficiencyModel) {
  nlohmann::json document = OnDevice("A100-SXM-80GB");
  document["npu"]["compute_efficiency"] = 0.5;
  const Scenario preset = Parse(document);
  EXPECT_EQ(preset.training.config.kernel_model, nullptr);
  EXPECT_EQ(preset.training.config.compute_efficiency, 0.5);
  nlohmann::json written = Quickstart();
  written["npu"] = {{"peak_TFLOPS", 312},
                    {"compute_efficiency", 0.5},
                    {"hbm_GiB", 80},
                    {"hbm_bandwidth_GBps", 2039}};
  const Scenario figures = Parse(written);
  EXPECT_EQ(AnalyticalEngine().Run(preset).iteration.total_ns,
            AnalyticalEngine().Run(figures).iteration.total_ns);
  EXPECT_EQ(ScenarioToJson(preset)["npu"]["compute_efficiency"], 0.5);
}

TEST(DeviceKeysTest, Refusals) {
  auto error = [](const nlohmann::json& document) {
    auto scenario = ParseScenario(document);
    EXPECT_FALSE(scenario);
    return scenario ? UserError{} : scenario.Error();
  };
  // An unknown preset, with the accepted names.
  UserError e = error(OnDevice("H100"));
  EXPECT_EQ(e.where, "npu.device");
  EXPECT_NE(e.message.find("\"H100\""), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("H100-SXM"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("A100-SXM-80GB"), std::string::npos) << e.message;
  // FP8 on an A100: the compute model's reason, naming what it runs.
  nlohmann::json fp8 = OnDevice("A100-SXM-80GB");
  fp8["workload"]["training"]["precision"] = "fp8";
  e = error(fp8);
  EXPECT_EQ(e.where, "workload.training.precision");
  EXPECT_NE(e.message.find("no fp8"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("bf16"), std::string::npos) << e.message;
  // The default BF16 on a V100 (no BF16 arithmetic): refused at the key to write.
  e = error(OnDevice("V100-SXM2-32GB"));
  EXPECT_EQ(e.where, "workload.training.precision");
  EXPECT_NE(e.message.find("fp16"), std::string::npos) << e.message;
  nlohmann::json v100 = OnDevice("V100-SXM2-32GB");
  v100["workload"]["training"]["precision"] = "fp16";
  EXPECT_TRUE(ParseScenario(v100));
  // Names outside the lists.
  nlohmann::json bad = OnDevice("H100-SXM");
  bad["workload"]["training"]["precision"] = "int8";
  e = error(bad);
  EXPECT_EQ(e.where, "workload.training.precision");
  EXPECT_NE(e.message.find("\"fp8\""), std::string::npos) << e.message;
  bad["workload"]["training"]["precision"] = "bf16";
  bad["workload"]["training"]["attention"] = "fused";
  e = error(bad);
  EXPECT_EQ(e.where, "workload.training.attention");
  EXPECT_NE(e.message.find("\"flash\""), std::string::npos) << e.message;
  nlohmann::json number = Quickstart();
  number["npu"]["device"] = 100;
  EXPECT_EQ(error(number).where, "npu.device");
}

}  // namespace
}  // namespace hfsim
