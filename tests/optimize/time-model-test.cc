// The optimiser's time model is the analytical engine: same iteration time, to the last bit, for
// any bandwidths, and a gradient that matches finite differences.
#include <random>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/optimize/time-model.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

Scenario Load(const std::string& config) {
  auto s = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + config);
  if (!s) ADD_FAILURE() << s.Error().ToString();
  return std::move(s).Value();
}

void ExpectEngineTimes(Scenario scenario, uint32_t seed) {
  const TimeModel model(scenario);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_bandwidth(-1.0, 3.0);  // 0.1 to 1000 GB/s
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> b(scenario.dimensions.size());
    for (size_t d = 0; d < b.size(); ++d) {
      b[d] = std::pow(10.0, log_bandwidth(rng));
      scenario.dimensions[d].bandwidth_Bpns = b[d];
    }
    const double engine_ns = AnalyticalEngine().Run(scenario).iteration.total_ns;
    ASSERT_EQ(model.TimeNs(b), engine_ns) << scenario.name << " trial " << trial;
    ASSERT_EQ(model.Evaluate(b).value, engine_ns) << scenario.name << " trial " << trial;
  }
}

TEST(TimeModel, EqualsAnalyticalEngineGpt3FourD) { ExpectEngineTimes(Load("gpt3-4d-4096.json"), 1); }
TEST(TimeModel, EqualsAnalyticalEngineGpt3ThreeD) { ExpectEngineTimes(Load("gpt3-3d-4096.json"), 2); }
TEST(TimeModel, EqualsAnalyticalEngineQuickstart) { ExpectEngineTimes(Load("quickstart.json"), 3); }
TEST(TimeModel, EqualsAnalyticalEngineResnet) {
  ExpectEngineTimes(Load("resnet50-data-parallel.json"), 4);
}
TEST(TimeModel, EqualsAnalyticalEngineCollective) {
  ExpectEngineTimes(Load("allreduce-4d-64MiB.json"), 5);
}

TEST(TimeModel, EqualsAnalyticalEngineWithOverlapAndDelays) {
  nlohmann::json d = test::BaseTrainingScenario();
  d["workload"]["training"]["overlap"] = "backward";
  d["communication"] = {{"chunks", 3},
                        {"endpoint_delay_ns", 7},
                        {"reduction_memory_bandwidth_GBps", 900}};
  ExpectEngineTimes(test::ParseOrDie(d), 6);
}

TEST(TimeModel, GradientMatchesFiniteDifferences) {
  const Scenario scenario = Load("gpt3-4d-4096.json");
  const TimeModel model(scenario);
  const std::vector<double> b = {173.0, 121.0, 97.0, 41.0};  // no ties between dimensions
  const TimeGradient f = model.Evaluate(b);
  for (size_t d = 0; d < b.size(); ++d) {
    std::vector<double> up = b, down = b;
    up[d] += 1e-3;
    down[d] -= 1e-3;
    const double numeric = (model.TimeNs(up) - model.TimeNs(down)) / 2e-3;
    EXPECT_NEAR(f.gradient[d], numeric, 1e-4 * std::abs(numeric) + 1e-6) << "dimension " << d;
    EXPECT_LT(f.gradient[d], 0.0);  // more bandwidth never slows an iteration
  }
}

TEST(TimeModel, CutsUnderestimateEverywhere) {
  // Convexity: the tangent at any point lies below the function at any other point.
  const Scenario scenario = Load("gpt3-4d-4096.json");
  const TimeModel model(scenario);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> bandwidth(1.0, 400.0);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> a(4), b(4);
    for (double& x : a) x = bandwidth(rng);
    for (double& x : b) x = bandwidth(rng);
    const TimeGradient fa = model.Evaluate(a);
    double tangent = fa.value;
    for (size_t d = 0; d < 4; ++d) tangent += fa.gradient[d] * (b[d] - a[d]);
    ASSERT_LE(tangent, model.TimeNs(b) * (1 + 1e-12)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace hfsim
