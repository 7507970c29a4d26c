// How fast the analytical engine evaluates scenarios: the optimiser and sweeps call it millions
// of times, so one evaluation of GPT-3 on the 4-D 4096-NPU fabric must take microseconds.
#include <cstdlib>
#include <iostream>

#include <benchmark/benchmark.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/collective-pricing.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

Scenario Load(const char* name) {
  auto scenario = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR "/configs/") + name);
  if (!scenario) {
    std::cerr << scenario.Error().ToString() << "\n";
    std::abort();
  }
  return std::move(scenario).Value();
}

// One full evaluation: the training loop built from the model, every collective priced, the
// timeline played and the report assembled. The bandwidths change every iteration, as in a sweep,
// so nothing can be carried over between evaluations.
void RunScenario(benchmark::State& state, const char* config) {
  Scenario scenario = Load(config);
  const AnalyticalEngine engine;
  double sink = 0.0;
  uint64_t i = 0;
  for (auto _ : state) {
    scenario.dimensions[0].bandwidth_Bpns = 100.0 + static_cast<double>(i++ % 200);
    const Report report = engine.Run(scenario);
    sink += report.iteration.total_ns;
  }
  benchmark::DoNotOptimize(sink);
  state.counters["evaluations_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Gpt3FourDim(benchmark::State& state) { RunScenario(state, "gpt3-4d-4096.json"); }
void BM_Gpt3ThreeDim(benchmark::State& state) { RunScenario(state, "gpt3-3d-4096.json"); }
// Llama 3 405B, tensor 8 x pipeline 16 x data 128 on 16,384 NPUs, interleaved 1F1B: one
// program per pipeline stage (its 1,024 ranks share it), 16 programs of about 1,000 nodes.
void BM_Llama3405B16384(benchmark::State& state) { RunScenario(state, "llama3-405b-16384.json"); }
// The same model at 131,072 tokens with context 16 (Meta's long-context layout, tensor 8 x
// context 16 x pipeline 16 x data 8): 256 programs, each attention layer's core in 16 ring
// blocks, about 3.4 million nodes.
void BM_Llama3405B16384Context16(benchmark::State& state) {
  RunScenario(state, "validation/llama3-405b-16384-cp16-h100.json");
}
// Llama 3 405B as Meta ran it on 16,384 H100s (Table 4 of the Llama 3 paper; tensor 8 x
// pipeline 16 x data 128, interleaved, sequence parallelism, ZeRO-1): the NPU is the H100-SXM
// preset without a compute_efficiency, so every layer is priced by the kernel-level compute
// model (workloads/kernel-pricing.h).
constexpr const char* kLlama3405BH100 = "validation/llama3-405b-16k-16384-h100.json";
void BM_Llama3405BH100(benchmark::State& state) { RunScenario(state, kLlama3405BH100); }
// The same job loaded: parsed, checked, its graph generated (every layer kernel-priced) and
// placed, its memory estimated. `hfsim run` and every parameter combination of a sweep pay it.
void BM_LoadLlama3405BH100(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Load(kLlama3405BH100));
}
// An evaluation as `hfsim run` reports it: the engine's run and the JSON report, whose compute
// breakdown by class prices the model's layers again.
void BM_ReportLlama3405BH100(benchmark::State& state) {
  Scenario scenario = Load(kLlama3405BH100);
  const AnalyticalEngine engine;
  uint64_t i = 0;
  size_t sink = 0;
  for (auto _ : state) {
    scenario.dimensions[1].bandwidth_Bpns = 40.0 + static_cast<double>(i++ % 20);
    sink += ReportToJson(engine.Run(scenario), scenario).dump().size();
  }
  benchmark::DoNotOptimize(sink);
}
void BM_ResNet50DataParallel(benchmark::State& state) {
  RunScenario(state, "resnet50-data-parallel.json");
}

// One hierarchical all-reduce priced on the 4-D fabric (schedule profiles already cached).
void BM_PriceAllReduceFourDim(benchmark::State& state) {
  const Scenario scenario = Load("allreduce-4d-64MiB.json");
  const CollectivePricer pricer(scenario.dimensions, scenario.communication);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        pricer.Price(CollectiveKind::kAllReduce, uint64_t{64} << 20, {0, 1, 2, 3}));
  }
}

// Loading (parse + validate) a scenario file, for scale: done once per run, not per evaluation.
void BM_LoadGpt3FourDim(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Load("gpt3-4d-4096.json"));
}

BENCHMARK(BM_Gpt3FourDim);
BENCHMARK(BM_Gpt3ThreeDim);
BENCHMARK(BM_Llama3405B16384);
BENCHMARK(BM_Llama3405B16384Context16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama3405BH100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadLlama3405BH100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReportLlama3405BH100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet50DataParallel);
BENCHMARK(BM_PriceAllReduceFourDim);
BENCHMARK(BM_LoadGpt3FourDim);

}  // namespace
}  // namespace hfsim

BENCHMARK_MAIN();
