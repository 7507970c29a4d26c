// Chakra trace reading, one thread: ParseEtFile on one rank's file as hfsim's exporter writes
// a training job (GPT-3 175B on 4,096 NPUs: 778 nodes a rank, compute and collectives with
// their attributes), repeated to 100,000 nodes, and the whole import of a pipeline job's 64
// rank files (every file parsed: its ranks send to each other). End-to-end timings of larger
// traces: scripts/bench-chakra. Run: scripts/build chakra_bench && build/bench/chakra_bench
#include <filesystem>
#include <fstream>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "sim/export/chakra/chakra-export.h"
#include "sim/import/chakra/chakra-import.h"
#include "sim/import/chakra/et-file.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"

namespace {

hfsim::ExecutionGraph GraphOf(const std::string& config) {
  const auto document = hfsim::LoadScenarioDocument(std::string(HFSIM_SOURCE_DIR) + "/configs/" + config);
  return hfsim::BuildExecutionGraph(hfsim::ParseScenario(document.Value()).Value());
}

// Rank 0's file of `graph`, its node records repeated until there are at least `nodes` (ids
// then repeat too: only parsing is measured).
std::string RankZero(const hfsim::ExecutionGraph& graph, size_t nodes, size_t& count) {
  std::string first;
  hfsim::ChakraExportCounts counts;
  (void)hfsim::ExportChakra(
      graph,
      [&](uint32_t rank, const std::string& bytes) -> std::optional<std::string> {
        if (rank == 0) first = bytes;
        return rank == 0 ? std::nullopt : std::optional<std::string>("stop");
      },
      counts);
  // The metadata record is the first: its length byte, then that many bytes.
  const size_t metadata = 1 + static_cast<uint8_t>(first[0]);
  const std::string body = first.substr(metadata);
  const size_t per_copy = counts.nodes;
  std::string out = first.substr(0, metadata);
  count = 0;
  while (count < nodes) {
    out += body;
    count += per_copy;
  }
  return out;
}

void BM_ParseEtFileGpt3Rank(benchmark::State& state) {
  size_t nodes = 0;
  const std::string bytes = RankZero(GraphOf("gpt3-4d-4096.json"), 100000, nodes);
  for (auto _ : state) {
    auto file = hfsim::ParseEtFile("trace.0.et", bytes);
    benchmark::DoNotOptimize(file);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_ParseEtFileGpt3Rank)->Unit(benchmark::kMillisecond);

void BM_ImportPipeline64(benchmark::State& state) {
  const hfsim::ExecutionGraph graph = GraphOf("gpt3-pipeline-1f1b-64.json");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hfsim-chakra-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  hfsim::ChakraExportCounts counts;
  auto groups = hfsim::ExportChakra(
      graph,
      [&](uint32_t rank, const std::string& bytes) -> std::optional<std::string> {
        std::ofstream(dir / ("trace." + std::to_string(rank) + ".et"), std::ios::binary) << bytes;
        return std::nullopt;
      },
      counts);
  std::ofstream(dir / "groups.json") << groups.Value().dump();
  hfsim::ChakraInputs inputs;
  inputs.prefix = (dir / "trace").string();
  inputs.groups_path = (dir / "groups.json").string();
  for (auto _ : state) {
    auto imported = hfsim::ImportChakra(inputs, graph.dimension_sizes);
    benchmark::DoNotOptimize(imported);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * counts.nodes));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_ImportPipeline64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
