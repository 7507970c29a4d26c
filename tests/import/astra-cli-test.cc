// End-to-end: `hfsim run` and `hfsim convert` with ASTRA-sim inputs (configs/astra-sim/), exit
// codes and messages.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"

namespace {

namespace fs = std::filesystem;

using Result = hfsim::test::CliResult;

Result Hfsim(const std::string& arguments) { return hfsim::test::RunHfsim(HFSIM_BINARY, arguments); }

const std::string kDir = HFSIM_SOURCE_DIR "/configs/astra-sim/";
const std::string kInputs = "--astra-network " + kDir + "ring-fc-switch.yml --astra-system " + kDir + "system.json";

nlohmann::json Report(const fs::path& dir) {
  std::ifstream file(dir / "report.json");
  return nlohmann::json::parse(file);
}

TEST(AstraCli, CollectiveRunsAndItsEchoReproducesIt) {
  const fs::path out = fs::temp_directory_path() / ("hfsim-astra-cli-out-" + std::to_string(::getpid()));
  const Result result = Hfsim("run " + kInputs + " --collective all_reduce --size 64MiB -q -o " + out.string());
  ASSERT_EQ(0, result.exit_code) << result.output;
  const nlohmann::json report = Report(out);
  EXPECT_EQ("astra_sim", report["scenario"]["communication"]["pricing"]);
  EXPECT_EQ(64u << 20, report["scenario"]["workload"]["collective"]["size_bytes"]);
  const double time = report["collectives"][0]["time_ns"];
  EXPECT_GT(time, 0.0);
  std::ofstream(out / "echo.json") << report["scenario"].dump();
  const fs::path again = out / "again";
  ASSERT_EQ(0, Hfsim("run " + (out / "echo.json").string() + " -q -o " + again.string()).exit_code);
  EXPECT_EQ(time, Report(again)["collectives"][0]["time_ns"]);
  fs::remove_all(out);
}

TEST(AstraCli, WorkloadFileRuns) {
  const Result result = Hfsim("run " + kInputs + " " + kDir + "gpt2-medium-workload.json");
  EXPECT_EQ(0, result.exit_code) << result.output;
}

TEST(AstraCli, PricingOverride) {
  EXPECT_EQ(0, Hfsim("run " + kInputs + " --collective all_to_all --size 1MiB --pricing hfsim").exit_code);
  EXPECT_EQ(0, Hfsim("run " HFSIM_SOURCE_DIR "/configs/allreduce-4d-64MiB.json --pricing astra_sim").exit_code);
}

TEST(AstraCli, BadCombinationsExitTwo) {
  Result result = Hfsim("run --astra-network " + kDir + "ring-fc-switch.yml --collective all_reduce --size 1MiB");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("--astra-network and --astra-system go together"), std::string::npos) << result.output;
  result = Hfsim("run " + kInputs);
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("either a workload scenario file or --collective"), std::string::npos) << result.output;
  result = Hfsim("run " + kInputs + " --collective all_reduce");
  EXPECT_EQ(2, result.exit_code);
  result = Hfsim("run --collective all_reduce --size 1MiB");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("need --astra-network"), std::string::npos) << result.output;
  result = Hfsim("run");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("give a scenario file"), std::string::npos) << result.output;
  result = Hfsim("run " + kInputs + " --collective all_reduce --size 1furlong");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("hfsim: error: --size: got \"1furlong\""), std::string::npos) << result.output;
}

TEST(AstraCli, BadFileNamesTheLine) {
  const fs::path net = fs::temp_directory_path() / ("hfsim-astra-cli-" + std::to_string(::getpid()) + ".yml");
  std::ofstream(net) << "topology: [Ring]\nnpus_count: [1000000000000]\nbandwidth: [1]\nlatency: [1]\n";
  const Result result = Hfsim("run --astra-network " + net.string() + " --astra-system " + kDir +
                              "system.json --collective all_reduce --size 1MiB");
  fs::remove(net);
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find(net.string() + ": npus_count[0] (line 2): got 1000000000000"), std::string::npos)
      << result.output;
}

// A converted file is a plain scenario: running it gives the same report as running the
// ASTRA-sim inputs directly, for a single collective and for a workload file.
TEST(AstraCli, ConvertedScenarioRunsTheSame) {
  const fs::path out = fs::temp_directory_path() / ("hfsim-astra-convert-" + std::to_string(::getpid()));
  fs::create_directories(out);
  const std::vector<std::string> inputs = {"--collective reduce_scatter --size 3MiB",
                                           kDir + "gpt2-medium-workload.json"};
  for (const std::string& input : inputs) {
    const std::string converted = (out / "converted.json").string();
    Result result = Hfsim("convert " + kInputs + " " + input + " -o " + converted);
    ASSERT_EQ(0, result.exit_code) << result.output;
    EXPECT_NE(result.output.find("wrote " + converted), std::string::npos) << result.output;
    ASSERT_EQ(0, Hfsim("run " + kInputs + " " + input + " -q -o " + (out / "direct").string()).exit_code);
    ASSERT_EQ(0, Hfsim("run " + converted + " -q -o " + (out / "converted").string()).exit_code);
    EXPECT_EQ(Report(out / "direct"), Report(out / "converted")) << input;
  }
  // Without -o the scenario goes to stdout.
  const Result stdout_result = Hfsim("convert " + kInputs + " --collective all_gather --size 1MiB");
  ASSERT_EQ(0, stdout_result.exit_code) << stdout_result.output;
  const nlohmann::json document = nlohmann::json::parse(stdout_result.output);
  EXPECT_EQ("astra_sim", document["communication"]["pricing"]);
  EXPECT_EQ("all_gather", document["workload"]["collective"]["kind"]);
  fs::remove_all(out);
}

TEST(AstraCli, ConvertBadCombinationsExitTwo) {
  const std::string libra = " --libra-network " HFSIM_SOURCE_DIR "/configs/libra-inputs/4d-network.yml"
                            " --libra-workload " HFSIM_SOURCE_DIR "/configs/libra-inputs/gpt-small-4d.txt"
                            " --libra-comm " HFSIM_SOURCE_DIR "/configs/libra-inputs/gpt-small-4d-comm.yml";
  Result result = Hfsim("convert");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("give LIBRA's inputs (--libra-network, --libra-workload, --libra-comm), "
                               "ASTRA-sim's (--astra-network, --astra-system), or a scenario file"),
            std::string::npos) << result.output;
  result = Hfsim("convert " + kInputs + " --collective all_reduce --size 1MiB" + libra);
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("give the whole scenario: give no ASTRA-sim inputs, --chakra or "
                               "scenario file with them"),
            std::string::npos) << result.output;
  result = Hfsim("convert " + kInputs);
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("either a workload scenario file or --collective"), std::string::npos)
      << result.output;
  result = Hfsim("convert" + libra + " " + kDir + "gpt2-medium-workload.json");
  EXPECT_EQ(2, result.exit_code);
  EXPECT_NE(result.output.find("give the whole scenario"), std::string::npos) << result.output;
  // Nothing is written when the input is bad.
  const fs::path out = fs::temp_directory_path() / ("hfsim-astra-convert-bad-" + std::to_string(::getpid()) + ".json");
  result = Hfsim("convert " + kInputs + " --collective all_reduce --size 0 -o " + out.string());
  EXPECT_EQ(2, result.exit_code);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
