// `hfsim optimize` end to end: files written, infeasible input exits 2, --verify against
// `hfsim run`, the packet-engine note.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/temp-path.h"

namespace {

int RunHfsim(const std::string& arguments) {
  const int status = std::system((std::string(HFSIM_BINARY) + " " + arguments).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OptimizeCli, WritesOptimumFrontierAndPlot) {
  const auto dir = hfsim::test::TempPath("hfsim-optimize-cli-test");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(RunHfsim(std::string("optimize -q ") + HFSIM_SOURCE_DIR +
                     "/configs/libra-gpt3-4d-time-x-cost.json -o " + dir.string()),
            0);
  std::ifstream file(dir / "optimum.json");
  const nlohmann::json optimum = nlohmann::json::parse(file);
  EXPECT_EQ(optimum["objective"], "time_x_cost");
  EXPECT_LE(optimum["gap"].get<double>(), 1e-6);
  EXPECT_EQ(optimum["scenario"]["optimize"]["objective"], "time_x_cost");
  EXPECT_EQ(optimum["optimum"]["bandwidth_GBps"].size(), 4u);
  EXPECT_GT(optimum["iterations"].get<int>(), 0);
  EXPECT_GT(optimum["frontier"][0]["iterations"].get<int>(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "verify.csv"));  // only with --verify
  std::ifstream csv(dir / "frontier.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "cost_usd,time_ns,time_x_cost_ns_usd,B0_GBps,B1_GBps,B2_GBps,B3_GBps");
  EXPECT_TRUE(std::filesystem::exists(dir / "frontier.gp"));
  EXPECT_GT(std::filesystem::file_size(dir / "frontier.png"), 1000u);
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCli, InfeasibleExitsTwo) {
  const auto path = std::filesystem::path(hfsim::test::TempPath("hfsim-optimize-infeasible")) +=
      ".json";
  std::ifstream in(std::string(HFSIM_SOURCE_DIR) + "/configs/libra-gpt3-4d-optimize.json");
  nlohmann::json scenario = nlohmann::json::parse(in);
  scenario["optimize"]["fixed"] = {{{"dimension", 0}, {"bandwidth_GBps", 600}}};
  std::ofstream(path) << scenario.dump();
  EXPECT_EQ(RunHfsim("optimize " + path.string() + " 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("optimize --help >/dev/null"), 0);
  // -q without --out would do nothing at all: refused, as for run.
  EXPECT_EQ(RunHfsim(std::string("optimize -q ") + HFSIM_SOURCE_DIR +
                     "/configs/libra-gpt3-4d-optimize.json 2>/dev/null"),
            2);
  EXPECT_EQ(RunHfsim(std::string("optimize ") + HFSIM_SOURCE_DIR +
                     "/configs/libra-gpt3-4d-optimize.json >/dev/null"),
            0);
  std::filesystem::remove(path);
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::vector<std::string>> ReadCsv(const std::filesystem::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

// 2-D 4 x 4 fabric, one 4 MiB all-reduce, "engine": "packet" with a packet section, time x cost.
nlohmann::json SmallPacketScenario() {
  return nlohmann::json::parse(R"({
    "name": "verify-cli",
    "engine": "packet",
    "topology": {"dimensions": [
      {"kind": "Ring", "size": 4, "bandwidth_GBps": 100, "latency_ns": 100},
      {"kind": "Switch", "size": 4, "bandwidth_GBps": 100, "latency_ns": 500}]},
    "workload": {"collective": {"kind": "all_reduce", "size_MiB": 4}},
    "communication": {"chunks": 2},
    "packet": {"mtu_bytes": 2048},
    "optimize": {"objective": "time_x_cost", "total_bandwidth_GBps_per_npu": 200,
                 "total": "at_most", "frontier_points": 4,
                 "bounds": [{"dimension": 0, "min_GBps": 10}, {"dimension": 1, "min_GBps": 10}]}
  })");
}

// --verify 2: the optimum, the next frontier point and the equal split, each with times equal
// to what `hfsim run` reports for that allocation with either engine; verify.csv is the same on
// every run.
TEST(OptimizeCli, VerifyTwoMatchesRunWithBothEngines) {
  const auto dir = hfsim::test::TempPath("hfsim-optimize-verify-cli-test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const nlohmann::json scenario = SmallPacketScenario();
  std::ofstream(dir / "scenario.json") << scenario.dump();
  const std::string command =
      "optimize " + (dir / "scenario.json").string() + " --verify 2 --no-plot -o ";
  ASSERT_EQ(RunHfsim(command + (dir / "a").string() + " >" + (dir / "stdout.txt").string() + " 2>" +
                     (dir / "stderr.txt").string()),
            0);
  const std::string out = ReadText(dir / "stdout.txt");
  EXPECT_NE(out.find("verify: 2 allocations with the packet engine, and the equal split for "
                     "reference"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("analytical ms"), std::string::npos) << out;
  EXPECT_NE(out.find("packet ms"), std::string::npos) << out;
  EXPECT_NE(out.find("diff %"), std::string::npos) << out;
  // The scenario says "packet": the note says the optimum is analytical (stderr is not a
  // terminal here, so no progress line).
  const std::string err = ReadText(dir / "stderr.txt");
  EXPECT_NE(err.find("the optimum is computed with the analytical model"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("verify: packet run"), std::string::npos) << err;

  const auto rows = ReadCsv(dir / "a" / "verify.csv");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"rank", "candidate", "cost_usd",
                                               "analytical_time_ns", "packet_time_ns",
                                               "difference_percent", "B0_GBps", "B1_GBps"}));
  EXPECT_EQ(rows[1][0], "1");
  EXPECT_EQ(rows[1][1], "optimum");
  EXPECT_EQ(rows[2][0], "2");
  EXPECT_EQ(rows[2][1], "frontier");
  EXPECT_EQ(rows[3][0], "");
  EXPECT_EQ(rows[3][1], "equal_split");
  // Rank 1 is optimum.json's optimum.
  std::ifstream optimum_file(dir / "a" / "optimum.json");
  const nlohmann::json optimum = nlohmann::json::parse(optimum_file);
  EXPECT_EQ(std::stod(rows[1][6]), optimum["optimum"]["bandwidth_GBps"][0].get<double>());
  EXPECT_EQ(std::stod(rows[1][3]), optimum["optimum"]["time_ns"].get<double>());

  // Each row against `hfsim run` on the scenario file with that allocation.
  for (size_t r = 1; r < rows.size(); ++r) {
    nlohmann::json candidate = scenario;
    candidate["topology"]["dimensions"][0]["bandwidth_GBps"] = std::stod(rows[r][6]);
    candidate["topology"]["dimensions"][1]["bandwidth_GBps"] = std::stod(rows[r][7]);
    std::ofstream(dir / "candidate.json") << candidate.dump();
    for (const auto& [engine, column] : {std::pair{"analytical", 3}, std::pair{"packet", 4}}) {
      const auto report_dir = dir / (std::string("run-") + engine);
      ASSERT_EQ(RunHfsim("run -q -e " + std::string(engine) + " " +
                         (dir / "candidate.json").string() + " -o " + report_dir.string()),
                0);
      std::ifstream report_file(report_dir / "report.json");
      const nlohmann::json report = nlohmann::json::parse(report_file);
      // Both files write 15 significant digits (docs/report.md, "Names and numbers"), and the
      // candidate runs on bandwidths read from them: equal to that precision.
      const double csv_ns = std::stod(rows[r][column]);
      EXPECT_NEAR(report["iteration"]["time_ns"].get<double>(), csv_ns, 1e-12 * csv_ns)
          << "row " << r << ", " << engine;
    }
  }

  // Deterministic: a second run writes the same verify.csv.
  ASSERT_EQ(RunHfsim(command + (dir / "b").string() + " -q 2>/dev/null"), 0);
  EXPECT_EQ(ReadText(dir / "a" / "verify.csv"), ReadText(dir / "b" / "verify.csv"));
  std::filesystem::remove_all(dir);
}

// --verify-engine flow: the table and verify.csv name the flow engine, and each row's time is
// what `hfsim run -e flow` reports for that allocation. An engine flows cannot stand for is
// refused on the command line.
TEST(OptimizeCli, VerifyOnFlowsMatchesRunWithTheFlowEngine) {
  const auto dir = hfsim::test::TempPath("hfsim-optimize-verify-flow-test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const nlohmann::json scenario = SmallPacketScenario();
  std::ofstream(dir / "scenario.json") << scenario.dump();
  ASSERT_EQ(RunHfsim("optimize " + (dir / "scenario.json").string() +
                     " --verify 1 --verify-engine flow --no-plot -o " + (dir / "a").string() +
                     " >" + (dir / "stdout.txt").string() + " 2>/dev/null"),
            0);
  const std::string out = ReadText(dir / "stdout.txt");
  EXPECT_NE(out.find("verify: 1 allocation with the flow engine"), std::string::npos) << out;
  EXPECT_NE(out.find("flow ms"), std::string::npos) << out;
  const auto rows = ReadCsv(dir / "a" / "verify.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0][4], "flow_time_ns");
  nlohmann::json candidate = scenario;
  candidate["topology"]["dimensions"][0]["bandwidth_GBps"] = std::stod(rows[1][6]);
  candidate["topology"]["dimensions"][1]["bandwidth_GBps"] = std::stod(rows[1][7]);
  std::ofstream(dir / "candidate.json") << candidate.dump();
  ASSERT_EQ(RunHfsim("run -q -e flow " + (dir / "candidate.json").string() + " -o " +
                     (dir / "run").string()),
            0);
  std::ifstream report_file(dir / "run" / "report.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  const double csv_ns = std::stod(rows[1][4]);
  EXPECT_NEAR(report["iteration"]["time_ns"].get<double>(), csv_ns, 1e-12 * csv_ns);
  EXPECT_EQ(RunHfsim("optimize " + (dir / "scenario.json").string() +
                     " --verify 1 --verify-engine analytical -q 2>/dev/null"),
            2);
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCli, VerifyRejectsCountBelowOne) {
  const auto dir = hfsim::test::TempPath("hfsim-optimize-verify-bad-k");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string scenario =
      std::string(HFSIM_SOURCE_DIR) + "/configs/libra-gpt3-4d-time-x-cost.json";
  for (const std::string k : {"0", "-1", "two"}) {
    EXPECT_EQ(RunHfsim("optimize " + scenario + " --verify " + k + " -o " + (dir / "out").string() +
                       " 2>" + (dir / "stderr.txt").string()),
              2)
        << k;
    const std::string err = ReadText(dir / "stderr.txt");
    EXPECT_NE(err.find("--verify: got " + k + "; accepted: an integer K of at least 1"),
              std::string::npos)
        << err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));  // nothing solved, nothing written
  std::filesystem::remove_all(dir);
}

// "engine": "packet" without --verify: one note on stderr that suggests it; the optimum is the
// same as with the analytical engine.
TEST(OptimizeCli, PacketEngineScenarioGetsANote) {
  const auto dir = hfsim::test::TempPath("hfsim-optimize-packet-note");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  nlohmann::json scenario = SmallPacketScenario();
  std::ofstream(dir / "packet.json") << scenario.dump();
  scenario["engine"] = "analytical";
  std::ofstream(dir / "analytical.json") << scenario.dump();
  ASSERT_EQ(RunHfsim("optimize -q --no-plot " + (dir / "packet.json").string() + " -o " +
                     (dir / "p").string() + " 2>" + (dir / "stderr.txt").string()),
            0);
  const std::string err = ReadText(dir / "stderr.txt");
  EXPECT_EQ(err, "hfsim: note: " + (dir / "packet.json").string() +
                     ": the scenario's engine is \"packet\", but the optimum is computed with the "
                     "analytical model; add --verify K to re-simulate the K best allocations with "
                     "the packet engine\n");
  ASSERT_EQ(RunHfsim("optimize -q --no-plot " + (dir / "analytical.json").string() + " -o " +
                     (dir / "a").string() + " 2>" + (dir / "stderr.txt").string()),
            0);
  EXPECT_EQ(ReadText(dir / "stderr.txt"), "");
  EXPECT_EQ(ReadText(dir / "p" / "frontier.csv"), ReadText(dir / "a" / "frontier.csv"));
  std::filesystem::remove_all(dir);
}

}  // namespace
