// `hfsim optimize` end to end: files written, infeasible input exits 2.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

int RunHfsim(const std::string& arguments) {
  const int status = std::system((std::string(HFSIM_BINARY) + " " + arguments).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OptimizeCli, WritesOptimumFrontierAndPlot) {
  const auto dir = std::filesystem::temp_directory_path() / "hfsim-optimize-cli-test";
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
  std::ifstream csv(dir / "frontier.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "cost_usd,time_ns,time_x_cost,B0_GBps,B1_GBps,B2_GBps,B3_GBps");
  EXPECT_TRUE(std::filesystem::exists(dir / "frontier.gp"));
  EXPECT_GT(std::filesystem::file_size(dir / "frontier.png"), 1000u);
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCli, InfeasibleExitsTwo) {
  const auto path = std::filesystem::temp_directory_path() / "hfsim-optimize-infeasible.json";
  std::ifstream in(std::string(HFSIM_SOURCE_DIR) + "/configs/libra-gpt3-4d-optimize.json");
  nlohmann::json scenario = nlohmann::json::parse(in);
  scenario["optimize"]["fixed"] = {{{"dimension", 0}, {"bandwidth_GBps", 600}}};
  std::ofstream(path) << scenario.dump();
  EXPECT_EQ(RunHfsim("optimize -q " + path.string() + " 2>/dev/null"), 2);
  EXPECT_EQ(RunHfsim("optimize --help >/dev/null"), 0);
  std::filesystem::remove(path);
}

}  // namespace
