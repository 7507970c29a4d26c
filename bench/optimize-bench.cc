// Time to optimise LIBRA's 4-D GPT-3 case (issue 4's target: under 100 ms), and one evaluation
// of its time model with gradient. Run: scripts/build optimize_bench && build/bench/optimize_bench
#include <benchmark/benchmark.h>

#include "sim/optimize/optimizer.h"
#include "sim/optimize/time-model.h"
#include "sim/scenario/scenario-parser.h"

namespace {

hfsim::Scenario Load(const char* name) {
  return hfsim::LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name).Value();
}

void BM_OptimizeGpt3FourDTime(benchmark::State& state) {
  const hfsim::Scenario scenario = Load("libra-gpt3-4d-optimize.json");
  for (auto _ : state) benchmark::DoNotOptimize(hfsim::Optimize(scenario));
}
BENCHMARK(BM_OptimizeGpt3FourDTime)->Unit(benchmark::kMillisecond);

void BM_OptimizeGpt3FourDTimeXCost(benchmark::State& state) {
  const hfsim::Scenario scenario = Load("libra-gpt3-4d-time-x-cost.json");
  for (auto _ : state) benchmark::DoNotOptimize(hfsim::Optimize(scenario));
}
BENCHMARK(BM_OptimizeGpt3FourDTimeXCost)->Unit(benchmark::kMillisecond);

void BM_TimeModelGpt3FourD(benchmark::State& state) {
  const hfsim::Scenario scenario = Load("libra-gpt3-4d-optimize.json");
  const hfsim::TimeModel model(scenario);
  const std::vector<double> bandwidth = {200, 150, 100, 50};
  for (auto _ : state) benchmark::DoNotOptimize(model.Evaluate(bandwidth));
}
BENCHMARK(BM_TimeModelGpt3FourD)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
