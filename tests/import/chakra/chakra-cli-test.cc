// `hfsim run --chakra` and `hfsim convert --to chakra` as a user types them: a job written as
// traces and run again gives the same report, and bad input or options exit 2 naming the file
// (and node) or the option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/import/chakra/chakra-test-util.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;
using test::RunHfsim;

test::CliResult Hfsim(const std::string& arguments) { return RunHfsim(HFSIM_BINARY, arguments); }

const std::string kConfigs = HFSIM_SOURCE_DIR "/configs/";

nlohmann::json Iteration(const fs::path& report) {
  return nlohmann::json::parse(test::Slurp(report))["iteration"];
}

TEST(ChakraCli, AJobWrittenAsTracesRunsToTheSameReport) {
  test::TraceDir dir("cli-round-trip");
  const std::string scenario = kConfigs + "graph-pipeline-tensor-data.json";
  auto written = Hfsim("convert " + scenario + " --to chakra -o " + dir.Path("et").string());
  ASSERT_EQ(written.exit_code, 0) << written.output;
  EXPECT_NE(written.output.find("wrote 8 rank traces"), std::string::npos) << written.output;
  for (int r = 0; r < 8; ++r)
    EXPECT_TRUE(fs::exists(dir.Path("et/trace." + std::to_string(r) + ".et")));
  auto original = Hfsim("run " + scenario + " -o " + dir.Path("a").string() + " --no-plot -q");
  ASSERT_EQ(original.exit_code, 0) << original.output;
  auto traced = Hfsim("run --chakra " + dir.Path("et/trace").string() + " --chakra-groups " +
                      dir.Path("et/trace.groups.json").string() + " " + scenario + " -o " +
                      dir.Path("b").string() + " --no-plot");
  ASSERT_EQ(traced.exit_code, 0) << traced.output;
  EXPECT_NE(traced.output.find("chakra: 8 rank files"), std::string::npos) << traced.output;
  EXPECT_NE(traced.output.find("2.881 ms"), std::string::npos) << traced.output;
  EXPECT_EQ(Iteration(dir.Path("b/report.json")), Iteration(dir.Path("a/report.json")));
  // convert --chakra writes the trace as a scenario, which runs the same.
  auto scenario_out = Hfsim("convert --chakra " + dir.Path("et/trace").string() +
                            " --chakra-groups " + dir.Path("et/trace.groups.json").string() + " " +
                            scenario + " -o " + dir.Path("traced.json").string());
  ASSERT_EQ(scenario_out.exit_code, 0) << scenario_out.output;
  auto rerun = Hfsim("run " + dir.Path("traced.json").string() + " -o " + dir.Path("c").string() +
                     " --no-plot -q");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_EQ(Iteration(dir.Path("c/report.json")), Iteration(dir.Path("a/report.json")));
}

TEST(ChakraCli, ABrokenTraceExitsTwoNamingTheFile) {
  test::TraceDir dir("cli-broken");
  const std::string scenario = kConfigs + "graph-pipeline-tensor-data.json";
  ASSERT_EQ(Hfsim("convert " + scenario + " --to chakra -o " + dir.Path("et").string()).exit_code,
            0);
  const fs::path rank3 = dir.Path("et/trace.3.et");
  fs::resize_file(rank3, fs::file_size(rank3) - 5);
  auto run = Hfsim("run --chakra " + dir.Path("et/trace").string() + " --chakra-groups " +
                   dir.Path("et/trace.groups.json").string() + " " + scenario);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("hfsim: error: " + rank3.string() + ": record"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("truncated"), std::string::npos) << run.output;
  fs::remove(rank3);
  run = Hfsim("run --chakra " + dir.Path("et/trace").string() + " " + scenario);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find(rank3.string() + ": no such file: the fabric has 8 NPUs"),
            std::string::npos)
      << run.output;
}

TEST(ChakraCli, BadOptionsExitTwo) {
  test::TraceDir dir("cli-bad-options");
  const std::string never = dir.Path("never-written").string();
  const std::string scenario = kConfigs + "graph-pipeline-tensor-data.json";
  const std::pair<std::string, std::string> cases[] = {
      {"run " + scenario + " --chakra-legacy", "--chakra-legacy needs --chakra"},
      {"run " + scenario + " --chakra-groups " + scenario, "--chakra-groups needs --chakra"},
      {"run " + scenario + " --chakra x/trace --graph " + scenario,
       "--chakra and --graph each give the workload"},
      {"convert " + scenario + " --to chakra", "--to chakra writes a directory of traces"},
      {"convert " + kConfigs + "ps-lite-dense.json --to chakra -o " + never,
       "a parameter-server or gossip workload runs its own protocol"},
      {"run --chakra x/trace --astra-network " + kConfigs +
           "astra-sim/ring-fc-switch.yml "
           "--astra-system " +
           kConfigs + "astra-sim/system.json --collective all_reduce --size 1MiB",
       "with --chakra the trace is the workload"},
  };
  for (const auto& [arguments, expected] : cases) {
    auto result = Hfsim(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << arguments << "\n"
                                                               << result.output;
  }
  EXPECT_FALSE(fs::exists(never));
}

// A custom collective implementation in the system JSON means nothing without a trace.
TEST(ChakraCli, CustomImplementationsNeedATrace) {
  test::TraceDir dir("cli-custom");
  nlohmann::json system = nlohmann::json::parse(test::Slurp(kConfigs + "astra-sim/system.json"));
  system["all-reduce-implementation-custom"] = {"traces/custom_allreduce"};
  std::ofstream(dir.Path("system.json")) << system.dump();
  auto result = Hfsim("run --astra-network " + kConfigs +
                      "astra-sim/ring-fc-switch.yml "
                      "--astra-system " +
                      dir.Path("system.json").string() + " --collective all_reduce --size 1MiB");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("all-reduce-implementation-custom: a custom collective "
                               "implementation (a Chakra trace) runs only in place of a Chakra "
                               "trace's collectives"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace hfsim
