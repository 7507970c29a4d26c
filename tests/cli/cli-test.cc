// End-to-end: the hfsim binary as a user runs it. Exit codes, files written, determinism.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/scratch-directory.h"

namespace {

namespace fs = std::filesystem;

using Result = hfsim::test::CliResult;
using hfsim::test::Slurp;

Result Hfsim(const std::string& arguments) { return hfsim::test::RunHfsim(HFSIM_BINARY, arguments); }

class CliTest : public hfsim::test::ScratchDirectoryTest {
 protected:
  CliTest() : ScratchDirectoryTest("hfsim-cli-") {}
};

const std::string kQuickstart = HFSIM_SOURCE_DIR "/configs/quickstart.json";

TEST_F(CliTest, RunPrintsTheSummaryAndWritesTheReport) {
  const Result result = Hfsim("run " + kQuickstart + " -o " + m_dir.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("exposed communication"), std::string::npos) << result.output;
  const nlohmann::json report = nlohmann::json::parse(Slurp(m_dir / "report.json"));
  EXPECT_EQ(report["engine"], "analytical");
  EXPECT_EQ(report["npus"], 32);
  EXPECT_GT(report["iteration"]["time_ns"].get<double>(), 0.0);
  EXPECT_EQ(report["scenario"]["name"], "quickstart");
  EXPECT_FALSE(fs::exists(m_dir / "summary.csv"));  // json only by default
}

TEST_F(CliTest, CsvFormatWritesTheThreeTables) {
  const Result result = Hfsim("run " + kQuickstart + " --out " + m_dir.string() + " --format csv -q");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(result.output.empty()) << result.output;  // --quiet
  const std::string summary = Slurp(m_dir / "summary.csv");
  EXPECT_EQ(summary.rfind("scenario,engine,npus,iteration_time_ns", 0), 0u) << summary;
  EXPECT_NE(Slurp(m_dir / "dimensions.csv").find("\n1,Switch,4,25,"), std::string::npos);
  EXPECT_NE(Slurp(m_dir / "collectives.csv").find("forward,tensor,all_reduce"), std::string::npos);
  EXPECT_FALSE(fs::exists(m_dir / "report.json"));
}

TEST_F(CliTest, SameScenarioGivesByteIdenticalFiles) {
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -f all -o " + (m_dir / "a").string()).exit_code, 0);
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -f all -o " + (m_dir / "b").string()).exit_code, 0);
  for (const char* name : {"report.json", "summary.csv", "dimensions.csv", "collectives.csv"}) {
    EXPECT_EQ(Slurp(m_dir / "a" / name), Slurp(m_dir / "b" / name)) << name;
  }
}

TEST_F(CliTest, TheReportReproducesItsRun) {
  // The echoed scenario, run again, gives the same report.
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -o " + (m_dir / "a").string()).exit_code, 0);
  const nlohmann::json first = nlohmann::json::parse(Slurp(m_dir / "a" / "report.json"));
  std::ofstream(m_dir / "echo.json") << first["scenario"].dump(2);
  ASSERT_EQ(Hfsim("run " + (m_dir / "echo.json").string() + " -q -o " + (m_dir / "b").string()).exit_code, 0);
  EXPECT_EQ(Slurp(m_dir / "a" / "report.json"), Slurp(m_dir / "b" / "report.json"));
}

TEST_F(CliTest, BadScenarioExitsTwoNamingThePathAndKeepsEarlierOutput) {
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -o " + m_dir.string()).exit_code, 0);
  const std::string before = Slurp(m_dir / "report.json");
  nlohmann::json bad = nlohmann::json::parse(Slurp(kQuickstart));
  bad["topology"]["dimensions"][1]["bandwidth_GBps"] = -25;
  std::ofstream(m_dir / "bad.json") << bad.dump();
  const Result result = Hfsim("run " + (m_dir / "bad.json").string() + " -o " + m_dir.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("topology.dimensions[1].bandwidth_GBps: got -25"), std::string::npos)
      << result.output;
  EXPECT_EQ(Slurp(m_dir / "report.json"), before);  // nothing already written is touched
}

// An algorithm that cannot run the reduce-scatter ZeRO runs over the data group is the input's
// fault, found at load: exit 2 naming the algorithm's key, before anything runs (it used to pass
// the loader and fail in the engine with exit 1: issue 33, point 10).
TEST_F(CliTest, AnAlgorithmThatCannotRunZerosReduceScatterExitsTwo) {
  nlohmann::json scenario = nlohmann::json::parse(Slurp(kQuickstart));
  scenario["workload"]["training"]["parallelism"]["zero_stage"] = 1;
  scenario["communication"]["algorithms"]["reduce_scatter"] = "double_binary_tree";
  std::ofstream(m_dir / "zero.json") << scenario.dump();
  const Result result = Hfsim("run " + (m_dir / "zero.json").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("communication.algorithms.reduce_scatter: \"double_binary_tree\" "
                               "cannot run the reduce_scatter stage"),
            std::string::npos)
      << result.output;
}

TEST_F(CliTest, BadCommandLineExitsTwo) {
  EXPECT_EQ(Hfsim("run " + kQuickstart + " --format xml").exit_code, 2);
  EXPECT_EQ(Hfsim("run /nonexistent.json").exit_code, 2);
  EXPECT_EQ(Hfsim("fly").exit_code, 2);
  EXPECT_EQ(Hfsim("run " + kQuickstart + " --seed -3").exit_code, 2);
}

TEST_F(CliTest, HelpExplainsEveryOptionWithAnExample) {
  const Result top = Hfsim("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.output.find("Examples:"), std::string::npos);
  const Result run = Hfsim("run --help");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* option : {"--out", "--format", "--engine", "--seed", "--quiet", "Example:"}) {
    EXPECT_NE(run.output.find(option), std::string::npos) << option;
  }
}

TEST_F(CliTest, PlotWritesThePictureAndItsScript) {
  const Result result = Hfsim("run " + kQuickstart + " -q --plot -o " + m_dir.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(Slurp(m_dir / "breakdown.gp").find("dimension utilisation"), std::string::npos);
  const std::string png = Slurp(m_dir / "breakdown.png");
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(Hfsim("run " + kQuickstart + " -q --plot").exit_code, 2);  // no --out
}

// One rule for the commands that draw: with --out, run draws as optimize and sweep do, and
// --no-plot skips it. Options that only shape --out's files, or that silence the only other
// output, are refused without --out instead of exiting 0 having done nothing.
TEST_F(CliTest, RunDrawsByDefaultAndRefusesOptionsThatNeedOut) {
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -o " + (m_dir / "a").string()).exit_code, 0);
  EXPECT_TRUE(fs::exists(m_dir / "a" / "breakdown.png"));
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q --no-plot -o " + (m_dir / "b").string()).exit_code,
            0);
  EXPECT_TRUE(fs::exists(m_dir / "b" / "report.json"));
  EXPECT_FALSE(fs::exists(m_dir / "b" / "breakdown.png"));
  EXPECT_FALSE(fs::exists(m_dir / "b" / "breakdown.gp"));
  EXPECT_EQ(Hfsim("run " + kQuickstart + " --plot --no-plot -o " + (m_dir / "c").string()).exit_code,
            2);
  for (const char* alone : {"-q", "-f csv", "--format all", "--plot"}) {
    const Result result = Hfsim("run " + kQuickstart + " " + alone);
    EXPECT_EQ(result.exit_code, 2) << alone;
    EXPECT_NE(result.output.find("needs --out DIR"), std::string::npos) << result.output;
  }
  EXPECT_EQ(Hfsim("run " + kQuickstart).exit_code, 0);  // the table alone is a use
}

TEST_F(CliTest, AnUnknownCommandGetsTheNearestOne) {
  for (const auto& [typed, meant] :
       {std::pair{"simulate", "run"}, std::pair{"optimise", "optimize"}, std::pair{"swep", "sweep"},
        std::pair{"topo", "topology"}, std::pair{"covnert", "convert"}}) {
    const Result result = Hfsim(std::string(typed) + " " + kQuickstart);
    EXPECT_EQ(result.exit_code, 2) << typed;
    EXPECT_NE(result.output.find(std::string("did you mean 'hfsim ") + meant), std::string::npos)
        << typed << ": " << result.output;
  }
  const Result unknown = Hfsim("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("run, topology, optimize, sweep, convert, p4"), std::string::npos)
      << unknown.output;
}

TEST_F(CliTest, PacketEngineRunWritesLinkStatistics) {
  // The lossy example: the summary says what was lost and retransmitted, links.csv has a row per
  // directed link (4 x 4 NPUs: ring links 2 per NPU + switch links 2 per NPU = 64).
  const Result result = Hfsim(std::string("run ") + HFSIM_SOURCE_DIR +
                              "/configs/lossy-allreduce.json -f all -o " + m_dir.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("injected losses"), std::string::npos) << result.output;
  const nlohmann::json report = nlohmann::json::parse(Slurp(m_dir / "report.json"));
  EXPECT_EQ(report["engine"], "packet");
  EXPECT_GT(report["packet"]["fabric"]["drops_injected"].get<uint64_t>(), 0u);
  EXPECT_GT(report["packet"]["transport"]["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(report["packet"]["conservation"]["bytes_delivered"],
            report["packet"]["conservation"]["bytes_scheduled"]);
  EXPECT_FALSE(report["packet"].contains("wall_seconds"));  // files stay reproducible
  const std::string links = Slurp(m_dir / "links.csv");
  EXPECT_EQ(std::count(links.begin(), links.end(), '\n'), 64 + 1);
  // --engine overrides the scenario's choice.
  const Result analytical = Hfsim(std::string("run ") + HFSIM_SOURCE_DIR +
                                  "/configs/lossy-allreduce.json -q -e analytical -o " +
                                  (m_dir / "a").string());
  ASSERT_EQ(analytical.exit_code, 0) << analytical.output;
  EXPECT_EQ(nlohmann::json::parse(Slurp(m_dir / "a" / "report.json"))["engine"], "analytical");
}

TEST_F(CliTest, TopologyChecksReachabilityAndPrintsRoutes) {
  const Result result = Hfsim(std::string("topology ") + HFSIM_SOURCE_DIR +
                              "/configs/gpt3-4d-4096.json --route 0 4095 -o " + m_dir.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // 4096 NPUs, 128 switches (one per Switch-32 group), 13 directed links per NPU, and a
  // diameter of 2 + 1 + 2 + 2 hops (Ring 4, FullyConnected, Ring 4, Switch).
  EXPECT_NE(result.output.find("4096 NPUs, 128 switches, 53248 directed links, diameter 7 hops"),
            std::string::npos) << result.output;
  EXPECT_NE(result.output.find("every NPU reaches every other NPU"), std::string::npos);
  EXPECT_NE(result.output.find("route 0 -> 4095: 5 hops"), std::string::npos) << result.output;
  const std::string links = Slurp(m_dir / "links.csv");
  EXPECT_EQ(std::count(links.begin(), links.end(), '\n'), 53248 + 1);
  EXPECT_EQ(Hfsim("topology " + kQuickstart + " --route 0 32").exit_code, 2);  // NPU 32 of 32
}

// Plain IDX files (gzread reads them as they are) whose headers are fine, so the loader accepts
// them, but whose first test label is 12: the run fails when it reads them, with exit code 1 and
// a message naming the file, instead of terminating.
void WriteIdx(const fs::path& path, uint32_t magic, std::vector<uint32_t> dims,
              const std::vector<uint8_t>& body) {
  std::ofstream out(path, std::ios::binary);
  auto word = [&out](uint32_t v) {
    const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                           static_cast<char>(v >> 8), static_cast<char>(v)};
    out.write(bytes, 4);
  };
  word(magic);
  for (uint32_t d : dims) word(d);
  out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
}

TEST_F(CliTest, AFailureWhileRunningExitsOneNamingIt) {
  const fs::path data = m_dir / "idx";
  fs::create_directories(data);
  const std::vector<uint8_t> pixels(16 * 28 * 28, 7);
  std::vector<uint8_t> labels(16, 3);
  WriteIdx(data / "train-images-idx3-ubyte.gz", 0x803, {16, 28, 28}, pixels);
  WriteIdx(data / "train-labels-idx1-ubyte.gz", 0x801, {16}, labels);
  WriteIdx(data / "t10k-images-idx3-ubyte.gz", 0x803, {16, 28, 28}, pixels);
  labels[0] = 12;
  WriteIdx(data / "t10k-labels-idx1-ubyte.gz", 0x801, {16}, labels);
  nlohmann::json scenario = nlohmann::json::parse(Slurp(HFSIM_SOURCE_DIR "/configs/s3-gossip-adaptive.json"));
  auto& gossip = scenario["workload"]["gossip"];
  gossip["task"] = {{"kind", "fashion_mnist"}, {"train_samples", 16}, {"test_samples", 16},
                    {"directory", data.string()}};
  gossip["steps"] = 10;
  const fs::path path = m_dir / "bad-labels.json";
  std::ofstream(path) << scenario.dump();
  const Result result = Hfsim("run " + path.string() + " -o " + (m_dir / "out").string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("t10k-labels-idx1-ubyte.gz"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(m_dir / "out" / "report.json"));
}

TEST_F(CliTest, GossipRunReportsLearningTrafficAndTimeToAccuracy) {
  const std::string s3 = HFSIM_SOURCE_DIR "/configs/s3-gossip-adaptive.json";
  const Result result = Hfsim("run " + s3 + " -o " + m_dir.string() + " --format all --plot");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("gossip: push_sum rule, adaptive trigger"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("reached 80.0%"), std::string::npos) << result.output;
  const auto report = nlohmann::json::parse(Slurp(m_dir / "report.json"));
  EXPECT_GT(report["gossip"]["messages"].get<int>(), 0);
  EXPECT_EQ(report["gossip"]["evaluations"].size(), 40u);
  EXPECT_TRUE(std::filesystem::exists(m_dir / "breakdown.png"));
  // The same scenario at packet level, with 1 MB exchanges and 40 steps to keep it short.
  nlohmann::json small = nlohmann::json::parse(Slurp(s3));
  auto& gossip = small["workload"]["gossip"];
  gossip.erase("model");
  gossip["model_bytes"] = 1000000;
  gossip["steps"] = 40;
  const fs::path small_path = m_dir / "s3-small.json";
  std::ofstream(small_path) << small.dump();
  const Result packet =
      Hfsim("run " + small_path.string() + " --engine packet -o " + (m_dir / "packet").string());
  ASSERT_EQ(packet.exit_code, 0) << packet.output;
  EXPECT_NE(packet.output.find("gossip: push_sum rule, adaptive trigger"), std::string::npos)
      << packet.output;
  const auto packet_report = nlohmann::json::parse(Slurp(m_dir / "packet" / "report.json"));
  EXPECT_EQ(packet_report["engine"], "packet");
  EXPECT_EQ(packet_report["packet"]["conservation"]["bytes_delivered"],
            packet_report["packet"]["conservation"]["bytes_scheduled"]);
}

}  // namespace
