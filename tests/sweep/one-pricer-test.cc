// One pricer behind run, sweep and optimize: on every shipped scenario, the time `hfsim run`
// reports (AnalyticalEngine), the time `hfsim sweep` gives at the scenario's own allocation
// (PointEvaluator) and, where `hfsim optimize` accepts the scenario, the optimiser's model
// (TimeModel, also at its optimum) agree to the last bit. What optimize cannot model exactly is
// refused by TimeModelRefusal, naming the key.
#include <bit>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/json-text.h"
#include "sim/optimize/optimizer.h"
#include "sim/optimize/time-model.h"
#include "sim/scenario/scenario-parser.h"
#include "sim/sweep/point-evaluator.h"
#include "sim/sweep/sweep-plan.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }

std::vector<fs::path> ShippedScenarios() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(HFSIM_SOURCE_DIR "/configs")) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(OnePricer, RunSweepAndOptimizeAgreeToTheBitOnEveryShippedScenario) {
  uint32_t optimisable = 0;
  for (const fs::path& path : ShippedScenarios()) {
    SCOPED_TRACE(path.filename().string());
    // As every command reads a scenario file (a model's config.json named relative to it).
    auto loaded = LoadScenarioDocument(path.string());
    ASSERT_TRUE(loaded) << loaded.Error().ToString();
    nlohmann::json document = loaded.Value();
    auto parsed = ParseScenario(document);
    ASSERT_TRUE(parsed) << parsed.Error().ToString();
    Scenario scenario = parsed.Value();
    scenario.engine = EngineKind::kAnalytical;
    const double run = AnalyticalEngine().Run(scenario).iteration.total_ns;

    // hfsim sweep at the scenario's own allocation.
    nlohmann::json allocation = nlohmann::json::array();
    for (const Dimension& dim : scenario.dimensions) allocation.push_back(dim.bandwidth_Bpns);
    document["sweep"] = {{"engine", "analytical"},
                         {"bandwidth_GBps", {{"list", nlohmann::json::array({allocation})}}}};
    auto with_sweep = ParseScenario(document);
    if (!with_sweep) {
      // sweep is refused for parameter servers and gossip (their runs are not a function of
      // an allocation alone); optimize refuses them too.
      EXPECT_NE(with_sweep.Error().message.find("not available for a"), std::string::npos)
          << with_sweep.Error().ToString();
      EXPECT_TRUE(TimeModelRefusal(scenario));
      continue;
    }
    auto plan = SweepPlan::Build(document, with_sweep.Value());
    ASSERT_TRUE(plan) << plan.Error().ToString();
    ASSERT_EQ(plan.Value().PointCount(), 1u);
    PointEvaluator evaluator(plan.Value());
    EXPECT_EQ(Bits(evaluator.TimeNs(0)), Bits(run)) << evaluator.TimeNs(0) << " vs " << run;

    if (TimeModelRefusal(scenario)) continue;
    ++optimisable;
    std::vector<double> bandwidths;
    for (const Dimension& dim : scenario.dimensions) bandwidths.push_back(dim.bandwidth_Bpns);
    const TimeModel model(scenario);
    EXPECT_EQ(Bits(model.TimeNs(bandwidths)), Bits(run));
    EXPECT_EQ(Bits(model.Evaluate(bandwidths).value), Bits(run));
    // hfsim optimize: the time it reports for its optimum is what hfsim run gives there.
    if (!scenario.optimize.given) continue;
    auto outcome = Optimize(scenario);
    ASSERT_TRUE(outcome) << outcome.Error().ToString();
    Scenario at_optimum = scenario;
    for (size_t d = 0; d < at_optimum.dimensions.size(); ++d) {
      at_optimum.dimensions[d].bandwidth_Bpns = outcome.Value().best.bandwidth_GBps[d];
    }
    EXPECT_EQ(Bits(outcome.Value().best.time_ns),
              Bits(AnalyticalEngine().Run(at_optimum).iteration.total_ns));
  }
  EXPECT_GE(optimisable, 10u);  // the training and collective configs
}

Scenario Load(const std::string& name) {
  auto scenario = LoadScenarioFile(HFSIM_SOURCE_DIR "/configs/" + name);
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  return scenario ? std::move(scenario).Value() : Scenario{};
}

TEST(OnePricer, OptimizeRefusesWhatItCannotModelNamingTheKey) {
  auto refusal = TimeModelRefusal(Load("ps-lite-dense.json"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->where, "workload");
  refusal = TimeModelRefusal(Load("s3-gossip-adaptive.json"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->where, "workload");
  refusal = TimeModelRefusal(Load("s1-switchml-vs-ring.json"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->where.rfind("communication.algorithms.", 0), 0u) << refusal->where;
  Scenario astra = Load("allreduce-4d-64MiB.json");
  EXPECT_FALSE(TimeModelRefusal(astra));
  astra.communication.pricing = PricingModel::kAstraSim;
  refusal = TimeModelRefusal(astra);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->where, "communication.pricing");
  EXPECT_THROW(TimeModel{astra}, std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
