// `hfsim validate` run as a user runs it: a directory of two validation scenarios whose
// predictions are worked out by hand, a scenario without a block (skipped, and said so), broken
// ones (a row with the error, exit 2), the CSV and the plot under --out, and bad options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/temp-path.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;
using test::RunHfsim;
using test::Slurp;

// An all-reduce of 1e9 bytes over a Switch of 8 NPUs at 100 GB/s, no latency: ring time
// 2 x 7/8 x 1e9 B / 100 GB/s = 17.5 ms, algorithm bandwidth 57.14 GB/s, bus bandwidth x 2 x 7/8 =
// 100 GB/s. Measured 80: +25 %.
const char* kAllReduce = R"({
  "name": "ar",
  "topology": {"dimensions": [{"kind": "Switch", "size": 8, "bandwidth_GBps": 100,
                               "latency_ns": 0}]},
  "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1000000000}},
  "validation": {"measured": {"busbw_GBps": 80, "size_bytes": 1000000000},
                 "source": "by hand"}
})";

// GPT-2 small (124,439,808 parameters, 291,648,307,200 forward FLOPs per 1,024-token sample), 4
// samples on 2 NPUs of 100 TFLOP/s at the default efficiency 0.5, no overlap, no roofline:
//   compute: 3 x 2 samples x 291,648,307,200 / 50e12 FLOP/s      = 34.997796864 ms
//   gradients: 124,439,808 x 2 bytes, all-reduced over 2 NPUs at 100 GB/s (2 x 1/2 of the
//              buffer through each NPU's link)                       =  2.48879616 ms
//   iteration                                                        = 37.486593024 ms
// Measured as exactly that: error 0.
const char* kTraining = R"({
  "name": "train",
  "topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 100,
                               "latency_ns": 0}]},
  "npu": {"peak_TFLOPS": 100},
  "workload": {"training": {"model": "gpt2_small", "global_batch_samples": 4,
                            "parallelism": {"data": 2}, "overlap": "none"}},
  "validation": {"measured": {"iteration_s": 0.037486593024}, "source": "by hand"}
})";

// A validation scenario the loader refuses (an unknown model).
const char* kBroken = R"({
  "topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 100,
                               "latency_ns": 0}]},
  "workload": {"training": {"model": "gpt5", "global_batch_samples": 4}},
  "validation": {"measured": {"iteration_s": 1.5}, "source": "nowhere"}
})";

class ValidateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = test::TempPath("hfsim-validate-cli");
    fs::remove_all(m_root);
    fs::create_directories(Dir());
    Write("ar.json", kAllReduce);
    Write("train.json", kTraining);
    nlohmann::json plain = nlohmann::json::parse(kAllReduce);
    plain.erase("validation");
    Write("plain.json", plain.dump());
    Write("notes.txt", "not a scenario");
  }
  void TearDown() override { fs::remove_all(m_root); }

  fs::path Dir() const { return m_root / "scenarios"; }
  fs::path Out() const { return m_root / "out"; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Dir() / name) << text;
  }
  test::CliResult Validate(const std::string& arguments) const {
    return RunHfsim(HFSIM_BINARY, "validate " + arguments);
  }

  fs::path m_root;
};

// The rows of validation.csv, split at commas (no field here holds one).
std::vector<std::vector<std::string>> CsvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.push_back("");
    rows.push_back(fields);
  }
  return rows;
}

TEST_F(ValidateCli, RowsByHandCsvAndPlot) {
  const auto result = Validate(Dir().string() + " -o " + Out().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("2 scenarios of"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("skipped (no \"validation\" block): plain.json"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("2 rows predicted: mean |error| 12.5 %, worst +25.0 % (ar, "
                               "busbw_GBps), 1 within 5 %"),
            std::string::npos)
      << result.output;
  const auto rows = CsvRows(Slurp(Out() / "validation.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"scenario", "quantity", "measured", "predicted",
                                               "error_percent"}));
  // Files in name order: ar, then train.
  EXPECT_EQ(rows[1][0], "ar");
  EXPECT_EQ(rows[1][1], "busbw_GBps");
  EXPECT_EQ(std::stod(rows[1][2]), 80.0);
  EXPECT_NEAR(std::stod(rows[1][3]), 100.0, 1e-9);
  EXPECT_NEAR(std::stod(rows[1][4]), 25.0, 1e-9);
  EXPECT_EQ(rows[2][0], "train");
  EXPECT_EQ(rows[2][1], "iteration_s");
  EXPECT_NEAR(std::stod(rows[2][3]), 0.037486593024, 1e-15);
  EXPECT_NEAR(std::stod(rows[2][4]), 0.0, 1e-9);
  EXPECT_TRUE(fs::exists(Out() / "validation.png"));
  const std::string script = Slurp(Out() / "validation.gp");
  EXPECT_NE(script.find("set output 'validation.png'"), std::string::npos);
  // The same directory gives the same files, byte for byte.
  const std::string csv = Slurp(Out() / "validation.csv");
  const auto again = Validate(Dir().string() + " -o " + (m_root / "again").string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(Slurp(m_root / "again" / "validation.csv"), csv);
  EXPECT_EQ(Slurp(m_root / "again" / "validation.gp"), script);
  // --no-plot writes the table alone; -q prints nothing.
  const auto quiet = Validate(Dir().string() + " -q --no-plot -o " + (m_root / "q").string());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output, "");
  EXPECT_TRUE(fs::exists(m_root / "q" / "validation.csv"));
  EXPECT_FALSE(fs::exists(m_root / "q" / "validation.png"));
  EXPECT_FALSE(fs::exists(m_root / "q" / "validation.gp"));
}

TEST_F(ValidateCli, BrokenScenariosAreRowsAndExitTwo) {
  Write("broken.json", kBroken);
  Write("junk.json", "{ not json");
  const auto result = Validate(Dir().string() + " -o " + Out().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  // The loader's message, naming the file and the JSON path, on stderr and in the table.
  EXPECT_NE(result.output.find("hfsim: error: " + (Dir() / "broken.json").string() +
                               ": workload.training.model: unknown model \"gpt5\""),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("2 rows failed:"), std::string::npos) << result.output;
  // The others are still predicted, and every row is in the CSV.
  const auto rows = CsvRows(Slurp(Out() / "validation.csv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[2], (std::vector<std::string>{"broken", "iteration_s", "1.5", "", ""}));
  EXPECT_EQ(rows[3], (std::vector<std::string>{"junk", "", "", "", ""}));
  EXPECT_EQ(rows[4][0], "train");
  EXPECT_FALSE(rows[4][3].empty());
}

TEST_F(ValidateCli, RunIgnoresTheBlockAndEchoesIt) {
  nlohmann::json plain = nlohmann::json::parse(kTraining);
  plain.erase("validation");
  Write("train-plain.json", plain.dump());
  const auto with = RunHfsim(HFSIM_BINARY, "run " + (Dir() / "train.json").string() + " -o " +
                                               (m_root / "with").string() + " --no-plot");
  const auto without =
      RunHfsim(HFSIM_BINARY, "run " + (Dir() / "train-plain.json").string() + " -o " +
                                 (m_root / "without").string() + " --no-plot");
  ASSERT_EQ(with.exit_code, 0) << with.output;
  ASSERT_EQ(without.exit_code, 0) << without.output;
  nlohmann::json a = nlohmann::json::parse(Slurp(m_root / "with" / "report.json"));
  const nlohmann::json b = nlohmann::json::parse(Slurp(m_root / "without" / "report.json"));
  EXPECT_EQ(a["scenario"]["validation"], nlohmann::json::parse(kTraining)["validation"]);
  a["scenario"].erase("validation");
  EXPECT_EQ(a, b);
  // The run's own throughput section is there, in the default convention.
  EXPECT_EQ(b["throughput"]["flop_convention"], "megatron-causal");
}

TEST_F(ValidateCli, OptionsAndDirectoriesRefused) {
  const auto help = Validate("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("validation.csv"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("configs/validation/"), std::string::npos);
  EXPECT_EQ(Validate(Dir().string() + " --bogus").exit_code, 2);
  EXPECT_EQ(Validate(Dir().string() + " extra-argument").exit_code, 2);
  const auto quiet = Validate(Dir().string() + " -q");
  EXPECT_EQ(quiet.exit_code, 2);
  EXPECT_NE(quiet.output.find("--quiet needs --out DIR"), std::string::npos) << quiet.output;
  EXPECT_EQ(Validate(Dir().string() + " --no-plot").exit_code, 2);
  const auto missing = Validate((m_root / "nowhere").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("is not a directory"), std::string::npos) << missing.output;
  const auto file = Validate((Dir() / "ar.json").string());
  EXPECT_EQ(file.exit_code, 2) << file.output;
  fs::create_directories(m_root / "empty");
  std::ofstream(m_root / "empty" / "plain.json") << Slurp(Dir() / "plain.json");
  const auto empty = Validate((m_root / "empty").string());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.output.find("no scenario in"), std::string::npos) << empty.output;
  EXPECT_FALSE(fs::exists(Out()));
  // A typo of the command is pointed at it.
  const auto typo = RunHfsim(HFSIM_BINARY, "validation " + Dir().string());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.output.find("did you mean 'hfsim validate'?"), std::string::npos) << typo.output;
}

// The shipped set: every scenario of configs/validation/ with a "validation" block loads and is
// predicted (a key renamed or a model changed so that one is refused shows here, not in a
// user's hands), and the summary counts every row. What the errors are is docs/validation.md's,
// not this test's: it asserts no accuracy.
TEST(ShippedValidationSet, EveryScenarioIsPredicted) {
  const fs::path shipped = fs::path(HFSIM_SOURCE_DIR) / "configs" / "validation";
  int with_block = 0;
  for (const auto& entry : fs::directory_iterator(shipped)) {
    if (entry.path().extension() != ".json") continue;
    if (Slurp(entry.path()).find("\"validation\"") != std::string::npos) ++with_block;
  }
  ASSERT_GE(with_block, 20);
  const auto result = RunHfsim(HFSIM_BINARY, "validate " + shipped.string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(std::to_string(with_block) + " rows predicted"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("failed"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace hfsim
