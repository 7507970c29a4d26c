// End-to-end `hfsim p4` as a user runs it: the files it writes, exit codes on bad input, and
// byte-identical output across runs.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/scratch-directory.h"

namespace {

namespace fs = std::filesystem;

using hfsim::test::CliResult;
using hfsim::test::Slurp;

CliResult Hfsim(const std::string& arguments) { return hfsim::test::RunHfsim(HFSIM_BINARY, arguments); }

const fs::path kConfigs = fs::path(HFSIM_SOURCE_DIR) / "configs";
const std::vector<std::string> kFiles = {
    "aggregation.p4",     "control-plane.py",      "control-plane.json",
    "resources.txt",      "resources.json",        "vectors.json",
    "vectors-input.pcap", "vectors-expected.pcap", "ptf/test_aggregation.py"};

class P4Cli : public hfsim::test::ScratchDirectoryTest {
 protected:
  P4Cli() : ScratchDirectoryTest("hfsim-p4-cli-") {}

  // A scenario file in the test directory: the Tofino-1 example with `edit` applied.
  fs::path Scenario(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json json = nlohmann::json::parse(Slurp(kConfigs / "p4-switchml-tofino1.json"));
    edit(json);
    const fs::path path = m_dir / "scenario.json";
    std::ofstream(path) << json.dump(2);
    return path;
  }
};

TEST_F(P4Cli, WritesProgramControlPlaneReportVectorsAndPtfTest) {
  for (const std::string config :
       {"p4-switchml-tofino1.json", "p4-libra-tofino2.json", "p4-thc-tofino1.json"}) {
    const fs::path out = m_dir / config;
    const CliResult result = Hfsim("p4 " + (kConfigs / config).string() + " -o " + out.string());
    ASSERT_EQ(result.exit_code, 0) << result.output;
    for (const std::string& file : kFiles) {
      EXPECT_TRUE(fs::exists(out / file)) << file;
      EXPECT_GT(fs::file_size(out / file), 100u) << file;
    }
    EXPECT_NE(result.output.find("fits"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("p4c --target tofino"), std::string::npos) << result.output;
    const nlohmann::json vectors = nlohmann::json::parse(Slurp(out / "vectors.json"));
    EXPECT_GT(vectors["steps"].size(), 10u);
    const std::string program = Slurp(out / "aggregation.p4");
    const bool tofino2 = config == std::string("p4-libra-tofino2.json");
    EXPECT_NE(program.find(tofino2 ? "#include <t2na.p4>" : "#include <tna.p4>"), std::string::npos);
  }
}

TEST_F(P4Cli, SameScenarioGivesByteIdenticalFiles) {
  const std::string scenario = (kConfigs / "p4-libra-tofino2.json").string();
  ASSERT_EQ(Hfsim("p4 " + scenario + " -o " + (m_dir / "a").string()).exit_code, 0);
  ASSERT_EQ(Hfsim("p4 " + scenario + " -o " + (m_dir / "b").string()).exit_code, 0);
  for (const std::string& file : kFiles) {
    EXPECT_EQ(Slurp(m_dir / "a" / file), Slurp(m_dir / "b" / file)) << file;
  }
}

TEST_F(P4Cli, ScenarioWithoutAggregationSectionExitsTwo) {
  const fs::path scenario = Scenario([](nlohmann::json& json) {
    json.erase("aggregation");
    json["communication"].erase("algorithms");
  });
  const CliResult result = Hfsim("p4 " + scenario.string() + " -o " + (m_dir / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("aggregation: missing"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(m_dir / "out" / "aggregation.p4"));
}

TEST_F(P4Cli, OverLimitSpecExitsTwoNamingTheLimit) {
  const fs::path scenario = Scenario([](nlohmann::json& json) {
    json["aggregation"]["values_per_packet"] = 72;  // nine value stages: Tofino-1 has eight
  });
  const CliResult result = Hfsim("p4 " + scenario.string() + " -o " + (m_dir / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("aggregation.values_per_packet"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("value_stages"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(m_dir / "out"));
}

TEST_F(P4Cli, SpecTheGeneratorCannotExpressExitsTwoNamingTheKey) {
  const fs::path scenario = Scenario([](nlohmann::json& json) {
    json["aggregation"]["shadow_copies"] = false;
  });
  const CliResult result = Hfsim("p4 " + scenario.string() + " -o " + (m_dir / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("aggregation.shadow_copies"), std::string::npos) << result.output;
}

// THC with 1-bit indices simulates, but the generator writes one lane word per index byte and a
// byte of eight 1-bit indices spans two: refused at the key, nothing written.
TEST_F(P4Cli, ThcSpecTheGeneratorCannotExpressExitsTwoNamingTheKey) {
  const fs::path scenario = Scenario([](nlohmann::json& json) {
    auto& aggregation = json["aggregation"];
    aggregation.erase("fixed_point");
    aggregation.erase("overflow");
    aggregation["value_format"] = "thc";
    aggregation["thc"] = {{"bits", 1}, {"granularity", 30}};
    json["communication"]["compression"] = {{"scheme", "thc"},
                                            {"thc", {{"bits", 1}, {"granularity", 30}}}};
  });
  const CliResult result = Hfsim("p4 " + scenario.string() + " -o " + (m_dir / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("aggregation.thc.bits"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(m_dir / "out" / "aggregation.p4"));
  // The same scenario simulates.
  EXPECT_EQ(Hfsim("run " + scenario.string()).exit_code, 0);
}

TEST_F(P4Cli, BadVectorOptionsExitTwo) {
  const std::string scenario = (kConfigs / "p4-switchml-tofino1.json").string();
  const CliResult pool = Hfsim("p4 " + scenario + " -o " + (m_dir / "out").string() +
                            " --pool-slots 513");
  EXPECT_EQ(pool.exit_code, 2) << pool.output;
  EXPECT_NE(pool.output.find("--pool-slots 513"), std::string::npos) << pool.output;
  const CliResult values = Hfsim("p4 " + scenario + " -o " + (m_dir / "out").string() +
                              " --vector-values 0");
  EXPECT_EQ(values.exit_code, 2) << values.output;
}

}  // namespace
