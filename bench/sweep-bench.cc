// Sweep building blocks, one thread: evaluating one point of LIBRA's 4-D GPT-3 split sweep
// (TimeModel + stepping the allocation cursor), and rendering its CSV row. The end-to-end
// throughput on all cores is scripts/bench-sweep. Run: scripts/build sweep_bench &&
// build/bench/sweep_bench
#include <benchmark/benchmark.h>

#include "sim/scenario/scenario-parser.h"
#include "sim/sweep/point-evaluator.h"
#include "sim/sweep/sweep-table.h"

namespace {

struct Loaded {
  nlohmann::json document;
  hfsim::Scenario scenario;
};

Loaded Load(const char* name = "sweep-gpt3-4d.json") {
  const std::string path = std::string(HFSIM_SOURCE_DIR) + "/bench/scenarios/" + name;
  Loaded loaded{hfsim::LoadScenarioDocument(path).Value(), {}};
  loaded.scenario = hfsim::ParseScenario(loaded.document).Value();
  return loaded;
}

// Steps through the sweep's points, one evaluation per iteration.
void EvaluatePoints(benchmark::State& state, const Loaded& loaded) {
  const hfsim::SweepPlan plan = hfsim::SweepPlan::Build(loaded.document, loaded.scenario).Value();
  hfsim::PointEvaluator evaluator(plan);
  uint64_t point = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(evaluator.TimeNs(point));
    point = point + 1 == plan.PointCount() ? 0 : point + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EvaluatePointGpt3FourD(benchmark::State& state) { EvaluatePoints(state, Load()); }
BENCHMARK(BM_EvaluatePointGpt3FourD)->Unit(benchmark::kMicrosecond);

// The same sweep with the NPU as a device preset (H100-SXM, no compute_efficiency): every layer
// kernel-priced. The first point of a combination compiles its time model; the rest only play it.
constexpr const char* kDeviceSweep = "sweep-gpt3-4d-h100.json";
void BM_EvaluatePointGpt3FourDH100(benchmark::State& state) {
  EvaluatePoints(state, Load(kDeviceSweep));
}
BENCHMARK(BM_EvaluatePointGpt3FourDH100)->Unit(benchmark::kMicrosecond);

// What one parameter combination of a sweep costs before its first point (SweepPlan::Build
// parses each combination): the scenario parsed, its graph generated with every layer
// kernel-priced and placed, its memory estimated; then its time model compiled.
void BM_CombinationGpt3FourDH100(benchmark::State& state) {
  const Loaded loaded = Load(kDeviceSweep);
  for (auto _ : state) {
    const hfsim::Scenario scenario = hfsim::ParseScenario(loaded.document).Value();
    const hfsim::TimeModel model(scenario);
    benchmark::DoNotOptimize(model.DimensionCount());
  }
}
BENCHMARK(BM_CombinationGpt3FourDH100)->Unit(benchmark::kMicrosecond);

void BM_CsvRowGpt3FourD(benchmark::State& state) {
  const Loaded loaded = Load();
  const hfsim::SweepPlan plan = hfsim::SweepPlan::Build(loaded.document, loaded.scenario).Value();
  hfsim::SweepTable table(plan);
  for (uint64_t p = 0; p < plan.PointCount(); ++p) table.Record(p, 1.2345678901234567e9 + p);
  std::string out;
  uint64_t point = 0;
  for (auto _ : state) {
    out.clear();
    table.AppendRow(point, out);
    benchmark::DoNotOptimize(out.data());
    point = point + 1 == plan.PointCount() ? 0 : point + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CsvRowGpt3FourD)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
