// `hfsim convert` and `hfsim optimize --libra-*` end to end: the converted file gives the same
// optimum.json as the LIBRA inputs, and bad input on the command line or in a file exits 2.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include "tests/temp-path.h"
#include <nlohmann/json.hpp>

namespace {

const std::string kDir = std::string(HFSIM_SOURCE_DIR) + "/configs/libra-inputs/";
const std::string kInputs = "--libra-network " + kDir + "4d-network.yml --libra-workload " + kDir +
                            "gpt-small-4d.txt --libra-comm " + kDir + "gpt-small-4d-comm.yml " +
                            "--libra-cost " + kDir + "4d-cost-model.yml";

int RunHfsim(const std::string& arguments) {
  const int status = std::system((std::string(HFSIM_BINARY) + " " + arguments).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(LibraCli, ConvertedScenarioGivesTheSameOptimumAsLibraInputs) {
  const auto dir = hfsim::test::TempPath("hfsim-libra-cli-test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string scenario = (dir / "gpt.json").string();
  ASSERT_EQ(RunHfsim("convert " + kInputs + " --total 500 -o " + scenario + " 2>/dev/null"), 0);
  ASSERT_EQ(RunHfsim("optimize -q --no-plot " + kInputs + " --total 500 -o " + (dir / "a").string()), 0);
  ASSERT_EQ(RunHfsim("optimize -q --no-plot " + scenario + " -o " + (dir / "b").string()), 0);
  nlohmann::json a = nlohmann::json::parse(ReadText(dir / "a" / "optimum.json"));
  nlohmann::json b = nlohmann::json::parse(ReadText(dir / "b" / "optimum.json"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["optimum"]["bandwidth_GBps"].size(), 4u);
  // Converting twice gives the same bytes.
  ASSERT_EQ(RunHfsim("convert " + kInputs + " --total 500 -o " + (dir / "again.json").string() +
                     " 2>/dev/null"), 0);
  EXPECT_EQ(ReadText(scenario), ReadText(dir / "again.json"));
  std::filesystem::remove_all(dir);
}

TEST(LibraCli, BadInputExitsTwo) {
  EXPECT_EQ(RunHfsim("optimize " + kInputs + " 2>/dev/null"), 2);  // no --total
  EXPECT_EQ(RunHfsim("optimize " + kInputs + " --total -1 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("optimize " + kInputs + " --total 500 --objective fast 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("convert --libra-workload " + kDir + "gpt-small-4d.txt 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("convert " + kInputs + " --total 500 --libra-comm " + kDir +
                     "4d-network.yml 2>/dev/null"), 2);  // not a communicator file
  EXPECT_EQ(RunHfsim("convert --libra-network " + kDir + "gpt-small-4d.txt --libra-workload " +
                     kDir + "gpt-small-4d.txt --libra-comm " + kDir + "gpt-small-4d-comm.yml 2>/dev/null"),
            2);  // text where YAML belongs
  // --objective and --total-mode shape the "optimize" section --total adds: without --total
  // convert ignored them.
  EXPECT_EQ(RunHfsim("convert " + kInputs + " --objective time_x_cost 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("convert " + kInputs + " --total-mode at_most 2>/dev/null"), 2);
}

}  // namespace
