// LIBRA's inputs imported into a scenario: the shipped example gives the same scenario and the
// same optimum as its hand-written hfsim equivalent, sizes follow docs/libra-import.md, and bad
// files are refused with the file, the line or key, the value and what is accepted.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/temp-path.h"
#include "sim/import/libra-formats.h"
#include "sim/import/libra-inputs.h"
#include "sim/optimize/optimizer.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

const std::string kDir = std::string(HFSIM_SOURCE_DIR) + "/configs/libra-inputs/";

LibraFiles ShippedFiles() {
  return {kDir + "4d-network.yml", kDir + "gpt-small-4d.txt", kDir + "gpt-small-4d-comm.yml",
          kDir + "4d-cost-model.yml"};
}

Scenario Imported(const LibraProblem& problem) {
  auto document = ImportLibra(ShippedFiles(), problem);
  EXPECT_TRUE(document) << document.Error().ToString();
  auto scenario = ParseScenario(document.Value());
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  return scenario.Value();
}

nlohmann::json WithoutLabels(const Scenario& scenario) {
  nlohmann::json echo = ScenarioToJson(scenario);
  echo.erase("name");
  echo.erase("description");
  echo.erase("cost");  // classes versus explicit prices: compared through the unit prices
  return echo;
}

TEST(LibraImport, ShippedExampleIsTheHandWrittenScenario) {
  const Scenario imported = Imported({"time", 500.0, "equal"});
  auto written = LoadScenarioFile(kDir + "gpt-small-4d-equivalent.json");
  ASSERT_TRUE(written) << written.Error().ToString();
  EXPECT_EQ(WithoutLabels(imported), WithoutLabels(written.Value()));
  EXPECT_EQ(imported.optimize.cost.unit_usd_per_GBps, written.Value().optimize.cost.unit_usd_per_GBps);
  // u = (2, 4, 4, 7.8 + 18 + 31.6) $ per GB/s: LIBRA's table, as hfsim's classes give it.
  EXPECT_EQ(imported.optimize.cost.unit_usd_per_GBps,
            (std::vector<double>{2.0, 4.0, 4.0, 7.8 + 18.0 + 31.6}));
}

void ExpectSameOptimum(const Scenario& a, const Scenario& b) {
  auto x = Optimize(a);
  auto y = Optimize(b);
  ASSERT_TRUE(x) << x.Error().ToString();
  ASSERT_TRUE(y) << y.Error().ToString();
  EXPECT_EQ(x.Value().best.bandwidth_GBps, y.Value().best.bandwidth_GBps);
  EXPECT_EQ(x.Value().best.time_ns, y.Value().best.time_ns);
  EXPECT_EQ(x.Value().best.cost_usd, y.Value().best.cost_usd);
  EXPECT_EQ(x.Value().lower_bound_ns, y.Value().lower_bound_ns);
  EXPECT_TRUE(x.Value().converged);
}

TEST(LibraImport, SameOptimumAsHandWrittenScenarioForTime) {
  auto written = LoadScenarioFile(kDir + "gpt-small-4d-equivalent.json");
  ASSERT_TRUE(written);
  ExpectSameOptimum(Imported({"time", 500.0, "equal"}), written.Value());
}

TEST(LibraImport, SameOptimumAsHandWrittenScenarioForTimeXCost) {
  auto document = LoadScenarioDocument(kDir + "gpt-small-4d-equivalent.json");
  ASSERT_TRUE(document);
  document.Value()["optimize"] = {
      {"objective", "time_x_cost"}, {"total_bandwidth_GBps_per_npu", 500}, {"total", "at_most"}};
  auto written = ParseScenario(document.Value());
  ASSERT_TRUE(written) << written.Error().ToString();
  ExpectSameOptimum(Imported({"time_x_cost", 500.0, "at_most"}), written.Value());
}

TEST(LibraImport, SizesAndGroupsFollowTheDocumentedConventions) {
  auto document = ImportLibra(ShippedFiles(), {"time", 500.0, "equal"});
  ASSERT_TRUE(document);
  const nlohmann::json& training = document.Value()["workload"]["training"];
  // LIBRA's all-gather size is the 1 MiB shard per NPU; hfsim's is the gathered buffer over the
  // tensor group of 4 x 4 = 16 NPUs: 16 MiB.
  EXPECT_EQ(training["model"]["layers"][5]["input_grad_comm"]["size_bytes"], 16777216);
  EXPECT_EQ(training["model"]["layers"][5]["input_grad_comm"]["kind"], "all_gather");
  EXPECT_EQ(training["parallelism"]["tensor_dimensions"], nlohmann::json({0, 2}));
  EXPECT_EQ(training["parallelism"]["data_dimensions"], nlohmann::json({1, 3}));
  EXPECT_EQ(document.Value()["communication"]["chunks"], 4096);
  EXPECT_EQ(document.Value()["topology"]["dimensions"][3]["bandwidth_GBps"], 125.0);
  // Deterministic: the same files give the same text.
  EXPECT_EQ(document.Value().dump(2), ImportLibra(ShippedFiles(), {"time", 500.0, "equal"}).Value().dump(2));
}

// The test process's scratch directory, removed when the process ends.
struct ScratchDir {
  std::filesystem::path path = test::TempPath("hfsim-libra-import-test");
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// Writes `text` to a fresh file in the test's temporary directory.
std::string Write(const std::string& name, const std::string& text) {
  static const ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string ErrorOf(LibraFiles files) {
  auto document = ImportLibra(files, {"time", 500.0, "equal"});
  EXPECT_FALSE(document);
  return document ? std::string() : document.Error().ToString();
}

// A byte that is not UTF-8 in a LIBRA file (a layer name) or in its file name would reach the
// scenario's JSON, whose writer throws on it: `convert` and `optimize` used to abort
// (nlohmann type_error.316). They are refused where they are read.
TEST(LibraImport, TextThatIsNotUtf8IsRefusedNamingTheLineOrTheFileName) {
  LibraFiles files = ShippedFiles();
  files.workload = Write("latin1.txt", "1\nDATA\ncaf\xe9 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 10\n");
  EXPECT_NE(ErrorOf(files).find("latin1.txt: line 3: byte 10 is not UTF-8"), std::string::npos)
      << ErrorOf(files);
  files = ShippedFiles();
  files.communicator = Write("comm-\xfe.yml", "Forward: [-1, -1, -1, -1]\n");
  EXPECT_NE(ErrorOf(files).find("the file name has a byte that is not UTF-8"), std::string::npos)
      << ErrorOf(files);
  files = ShippedFiles();
  files.network = Write("dup.yml", "Topology: [Ring]\nNpusCount: [4]\nNpusCount: [8]\n"
                                   "CostDimension: [1]\n");
  EXPECT_NE(ErrorOf(files).find("dup.yml:3: the key 'NpusCount' appears twice"), std::string::npos)
      << ErrorOf(files);
}

TEST(LibraImport, BadInputsNameFileLineValueAndWhatIsAccepted) {
  LibraFiles files = ShippedFiles();
  files.communicator = Write("partial.yml", "Forward: [4, 3, -1, -1]\nInputGrad: [4, 3, -1, -1]\n"
                                            "WeightGrad: [-1, 2, 4, 32]\n");
  {
    const std::string error = ErrorOf(files);
    EXPECT_NE(error.find("partial.yml:1: Forward[1]: got 3, which does not divide the dimension's "
                         "8 NPUs; accepted: -1 (not used) or a divisor of 8"), std::string::npos)
        << error;
  }
  files.communicator = Write("overlap.yml", "Forward: [4, 4, -1, -1]\nInputGrad: [4, 4, -1, -1]\n"
                                            "WeightGrad: [-1, 4, 4, 32]\n");
  {
    const std::string error = ErrorOf(files);
    EXPECT_NE(error.find("dimension 1 (FullyConnected of 8 NPUs): Forward/InputGrad hold 4 of them "
                         "and WeightGrad 4; accepted: tensor x data = 8"), std::string::npos)
        << error;
  }
  files = ShippedFiles();
  files.workload = Write("bad-type.txt", "a -1 10 NONE 0 10 ALL_REDUCE 64 10 NONE 0 0\n");
  EXPECT_NE(ErrorOf(files).find("bad-type.txt:1: input-gradient communication type (field 7): got "
                                "\"ALL_REDUCE\"; accepted: NONE, ALLREDUCE"), std::string::npos)
      << ErrorOf(files);
  files.workload = Write("short.txt", "a -1 10 NONE 0 10 NONE 0\n");
  EXPECT_NE(ErrorOf(files).find("short.txt:1: got 8 fields; accepted: a layer line of 12 fields"),
            std::string::npos) << ErrorOf(files);
  files.workload = Write("count.txt", "DATA\n3\na -1 10 NONE 0 10 NONE 0 10 NONE 0 0\n");
  EXPECT_NE(ErrorOf(files).find("count.txt:2: layer count: got 3, but the file has 1 layer lines"),
            std::string::npos) << ErrorOf(files);
  files.workload = Write("size.txt", "a -1 10 ALLREDUCE -5 10 NONE 0 10 NONE 0 0\n");
  EXPECT_NE(ErrorOf(files).find("size.txt:1: forward communication size (field 5): got \"-5\""),
            std::string::npos) << ErrorOf(files);
  files.workload = Write("time.txt", "a -1 nan NONE 0 10 NONE 0 10 NONE 0 0\n");
  EXPECT_NE(ErrorOf(files).find("time.txt:1: forward compute time (field 3): got \"nan\""),
            std::string::npos) << ErrorOf(files);
  files = ShippedFiles();
  files.network = Write("net.yml", "Topology: [Ring, Torus]\nNpusCount: [4, 4]\n");
  EXPECT_NE(ErrorOf(files).find("net.yml:1: Topology[1]: got \"Torus\"; accepted: Ring, "
                                "FullyConnected, Switch"), std::string::npos) << ErrorOf(files);
  files.network = Write("big.yml", "Topology: [Ring]\nNpusCount: [100000000000]\n");
  EXPECT_NE(ErrorOf(files).find("big.yml:2: NpusCount[0]: got \"100000000000\"; accepted: an "
                                "integer from 2 to 65536"), std::string::npos) << ErrorOf(files);
  // 65536^8 NPUs: refused before any product overflows.
  files.network = Write("huge.yml", "Topology: [Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring]\n"
                                    "NpusCount: [65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536]\n");
  EXPECT_NE(ErrorOf(files).find("huge.yml: NpusCount: 65536 x 65536"), std::string::npos) << ErrorOf(files);
  files.network = Write("typo.yml", "Topology: [Ring]\nNpuCount: [4]\n");
  EXPECT_NE(ErrorOf(files).find("typo.yml:2: NpuCount: unknown key; accepted: CostDimension, "
                                "NpusCount, Topology"), std::string::npos) << ErrorOf(files);
  files.network = Write("syntax.yml", "Topology: [Ring\n");
  EXPECT_NE(ErrorOf(files).find("syntax.yml:"), std::string::npos) << ErrorOf(files);
  EXPECT_NE(ErrorOf(files).find("not valid YAML"), std::string::npos) << ErrorOf(files);
  files = ShippedFiles();
  files.cost = Write("cost.yml", "InterChiplet:\n  Link: 2\nInterPackage:\n  Link: 4\n"
                                 "InterNode:\n  Link: 4\nInterPod:\n  Link: 7.8\n  Nic: 31.6\n");
  EXPECT_NE(ErrorOf(files).find("cost.yml: InterPod: no Switch price, but dimension 3 is a Switch"),
            std::string::npos) << ErrorOf(files);
  files.cost = Write("price.yml", "InterChiplet:\n  Link: -2\n");
  EXPECT_NE(ErrorOf(files).find("price.yml:2: InterChiplet.Link: got \"-2\"; accepted: a price"),
            std::string::npos) << ErrorOf(files);
  files = ShippedFiles();
  files.workload = kDir + "missing.txt";
  EXPECT_NE(ErrorOf(files).find("missing.txt: cannot open the LIBRA input file: No such file"), std::string::npos) << ErrorOf(files);
}

TEST(LibraImport, DataParallelWorkloadUsesEveryDimension) {
  LibraFiles files = ShippedFiles();
  files.workload = Write("dp.txt", "conv -1 1000 NONE 0 1000 NONE 0 2000 ALLREDUCE 1000000 0\n"
                                   "fc -1 500 NONE 0 500 NONE 0 500 NONE 0 0\n");
  files.communicator = Write("dp.yml", "Forward: [-1, -1, -1, -1]\nInputGrad: [-1, -1, -1, -1]\n"
                                       "WeightGrad: [4, 8, 4, 32]\n");
  auto document = ImportLibra(files, {"time", 500.0, "equal"});
  ASSERT_TRUE(document) << document.Error().ToString();
  auto scenario = ParseScenario(document.Value());
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  EXPECT_EQ(scenario.Value().training.config.data_parallel, 4096u);
  EXPECT_EQ(scenario.Value().training.config.tensor_parallel, 1u);
  auto outcome = Optimize(scenario.Value());
  ASSERT_TRUE(outcome) << outcome.Error().ToString();
  // One all-reduce: bandwidth in proportion to each dimension's traffic (libra-results.md §4.1).
  const auto& b = outcome.Value().best.bandwidth_GBps;
  EXPECT_NEAR(b[0] / b[1], 1.5 / 0.4375, 1e-3);
}

// LIBRA's GPT-3 4-D mapping: tensor 4 x 4 on [Ring 4, 4 of the FullyConnected 8], data on the
// other 2 of the FullyConnected dimension x Ring 4 x Switch 32. It shares dimension 1 between the
// groups, which comes over as tensor_per_dimension, and optimises.
TEST(LibraImport, GroupsSharingADimensionComeOverAsATensorSplit) {
  LibraFiles files = ShippedFiles();
  files.communicator = Write("split.yml", "Forward: [4, 4, -1, -1]\nInputGrad: [4, 4, -1, -1]\n"
                                          "WeightGrad: [-1, 2, 4, 32]\n");
  auto document = ImportLibra(files, {"time", 500.0, "equal"});
  ASSERT_TRUE(document) << document.Error().ToString();
  EXPECT_EQ(document.Value()["workload"]["training"]["parallelism"],
            (nlohmann::json{{"tensor_per_dimension", {4, 4, 1, 1}}}));
  auto scenario = ParseScenario(document.Value());
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  EXPECT_EQ(scenario.Value().training.config.tensor_parallel, 16u);
  EXPECT_EQ(scenario.Value().training.config.data_parallel, 256u);
  auto outcome = Optimize(scenario.Value());
  ASSERT_TRUE(outcome) << outcome.Error().ToString();
  EXPECT_EQ(outcome.Value().status, SolveStatus::kConverged);
}

}  // namespace
}  // namespace hfsim

namespace {

// A LIBRA input path that is a directory, or that does not exist, is said to be one ("not found
// (or not a regular file)" left it to be guessed).
TEST(LibraImport, AnInputThatIsADirectoryIsNamedAsOne) {
  const auto dir = hfsim::test::TempPath("hfsim-libra-directory-input");
  std::filesystem::create_directories(dir);
  auto directory = hfsim::ReadLibraFile(dir.string());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.Error().message.find("is a directory"), std::string::npos)
      << directory.Error().ToString();
  auto missing = hfsim::ReadLibraFile((dir / "nothing.yml").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.Error().message.find("No such file"), std::string::npos)
      << missing.Error().ToString();
  std::filesystem::remove_all(dir);
}

}  // namespace
