// ASTRA-sim's own Chakra traces, made by Chakra's tools: its microbenchmarks give exactly the
// times of the matching --collective runs on the same network and system files, its custom
// ring all-reduce runs, and a trace converted from a PyTorch job loads, is counted by type and
// runs. The files live beside the repository (../shared/data/chakra) on the developers'
// machines and in CI, not in a user's clone: there these tests say so and skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/import/astra-import.h"
#include "tests/hfsim-cli.h"
#include "tests/import/chakra/chakra-test-util.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

const fs::path kChakra = fs::path(HFSIM_SHARED_DIR) / "data" / "chakra";
const fs::path kAstra = kChakra / "astra-sim";

#define SKIP_WITHOUT_TRACES()                                                                \
  if (!fs::exists(kAstra / "network" / "Ring_8npus.yml")) {                                  \
    GTEST_SKIP() << kChakra                                                                  \
                 << " is not here (ASTRA-sim's and Chakra's trace files live beside "        \
                    "the repository on the developers' machines and in CI, not in a user's " \
                    "clone)";                                                                \
  }

std::vector<uint32_t> SizesOf(const nlohmann::json& document) {
  std::vector<uint32_t> sizes;
  for (const auto& dim : document["topology"]["dimensions"])
    sizes.push_back(dim["size"].get<uint32_t>());
  return sizes;
}

// The ASTRA-sim inputs with the trace as the workload, as `hfsim run --chakra` builds them.
Expected<Scenario> TraceOnAstraInputs(const ChakraInputs& inputs, const fs::path& network,
                                      const fs::path& system) {
  auto document = ImportAstraSim({network.string(), system.string(), "", "all_reduce", "1", true});
  if (!document) return document.Error();
  auto imported = ImportChakra(inputs, SizesOf(document.Value()));
  if (!imported) return imported.Error();
  document.Value()["workload"] = {{"graph", imported.Value().graph}};
  return ParseScenario(document.Value());
}

struct Microbenchmark {
  std::string collective;
  int npus;
};

class AstraMicrobenchmark : public testing::TestWithParam<Microbenchmark> {};

// Each rank's file holds one COMM_COLL node of 1 MiB (ASTRA-sim's comm_size: each NPU's input
// for an all-gather, so hfsim's --size is n MiB there).
TEST_P(AstraMicrobenchmark, EqualsTheCollectiveRun) {
  SKIP_WITHOUT_TRACES();
  const auto& [collective, npus] = GetParam();
  const fs::path network = kAstra / "network" / ("Ring_" + std::to_string(npus) + "npus.yml");
  const fs::path system = kAstra / "system" / "Ring_4chunks.json";
  const fs::path prefix =
      kAstra / "microbenchmarks" / collective / (std::to_string(npus) + "npus_1MB") / collective;
  auto traced = TraceOnAstraInputs(test::Inputs(prefix.string()), network, system);
  ASSERT_TRUE(traced) << traced.Error().ToString();
  const std::string size = collective == "all_gather" ? std::to_string(npus) + "MiB" : "1MiB";
  auto document = ImportAstraSim({network.string(), system.string(), "", collective, size});
  ASSERT_TRUE(document) << document.Error().ToString();
  auto direct = ParseScenario(document.Value());
  ASSERT_TRUE(direct) << direct.Error().ToString();
  const Report from_trace = AnalyticalEngine().Run(traced.Value());
  const Report from_option = AnalyticalEngine().Run(direct.Value());
  EXPECT_EQ(from_trace.iteration.total_ns, from_option.iteration.total_ns);
  EXPECT_GT(from_trace.iteration.total_ns, 0.0);
  ASSERT_EQ(from_trace.collectives.size(), 1u);
  EXPECT_EQ(from_trace.collectives[0].size_bytes, from_option.collectives[0].size_bytes);
}

std::vector<Microbenchmark> Microbenchmarks() {
  std::vector<Microbenchmark> all;
  for (const char* collective : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
    for (const int npus : {4, 8, 16}) all.push_back({collective, npus});
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Traces, AstraMicrobenchmark, testing::ValuesIn(Microbenchmarks()),
                         [](const testing::TestParamInfo<Microbenchmark>& info) {
                           return info.param.collective + "_" + std::to_string(info.param.npus);
                         });

// The custom ring all-reduce: 8 ranks, each 14 sends, 14 receives and 7 reductions of 7 us
// chained by data_deps. Run as a trace of its own on the 8-NPU ring: nothing shares a link at a
// time, so the flow engine gives the analytical engine's time.
TEST(AstraCustomCollective, RunsAsATraceOfSendsAndReceives) {
  SKIP_WITHOUT_TRACES();
  const fs::path prefix =
      kAstra / "custom_collectives" / "custom_ring_allreduce_8npus_1MB" / "custom_allreduce";
  auto imported = ImportChakra(test::Inputs(prefix.string()), {8});
  ASSERT_TRUE(imported) << imported.Error().ToString();
  const ChakraCounts& counts = imported.Value().counts;
  EXPECT_EQ(counts.files, 8u);
  EXPECT_EQ(counts.by_type[4], 56u);   // COMP_NODE
  EXPECT_EQ(counts.by_type[5], 112u);  // COMM_SEND_NODE
  EXPECT_EQ(counts.by_type[6], 112u);  // COMM_RECV_NODE
  const Scenario scenario = test::LoadChakraOrDie(
      test::Inputs(prefix.string()), nlohmann::json::array({test::Dimension("Ring", 8, 100, 500)}));
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  // 7 reductions of 7 us on the critical path, and 14 transfers of 131,072 B over one 50 GB/s
  // direction of the ring (one hop of 500 ns each).
  EXPECT_GE(analytical, 7 * 7000.0 + 14 * (500.0 + 131072.0 / 50.0) - 1e-6);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, analytical, 1e-6 * analytical);
}

// The same implementation named in the system JSON (all-reduce-implementation-custom) runs in
// place of the all-reduce microbenchmark's collective: each rank runs its position's trace
// between a start and an end on the communication stream, so the job takes exactly what the
// implementation's trace takes when run as the workload itself. Without --chakra the key is
// refused (nothing else could use it).
TEST(AstraCustomCollective, ReplacesTheTracesAllReduce) {
  SKIP_WITHOUT_TRACES();
  const fs::path implementation =
      kAstra / "custom_collectives" / "custom_ring_allreduce_8npus_1MB" / "custom_allreduce";
  const fs::path network = kAstra / "network" / "Ring_8npus.yml";
  const fs::path plain = kAstra / "system" / "Ring_4chunks.json";
  test::TraceDir dir("custom-system");
  nlohmann::json system = nlohmann::json::parse(test::Slurp(plain));
  system["all-reduce-implementation-custom"] = {implementation.string()};
  std::ofstream(dir.Path("system.json")) << system.dump();
  ChakraInputs inputs = test::Inputs(
      (kAstra / "microbenchmarks" / "all_reduce" / "8npus_1MB" / "all_reduce").string());
  inputs.custom["all_reduce"] = implementation.string();
  auto custom = TraceOnAstraInputs(inputs, network, dir.Path("system.json"));
  ASSERT_TRUE(custom) << custom.Error().ToString();
  auto alone = TraceOnAstraInputs(test::Inputs(implementation.string()), network, plain);
  ASSERT_TRUE(alone) << alone.Error().ToString();
  const Report with_custom = AnalyticalEngine().Run(custom.Value());
  EXPECT_TRUE(with_custom.collectives.empty());
  EXPECT_EQ(with_custom.iteration.total_ns,
            AnalyticalEngine().Run(alone.Value()).iteration.total_ns);
  EXPECT_GT(with_custom.iteration.total_ns, 0.0);
  auto refused = ImportAstraSim(
      {network.string(), dir.Path("system.json").string(), "", "all_reduce", "1MiB"});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.Error().where.find("all-reduce-implementation-custom"), std::string::npos)
      << refused.Error().ToString();
}

// ASTRA-sim's own custom ring all-reduce example, run as ASTRA-sim runs it: the all-reduce
// microbenchmark on Ring_8npus.yml with examples/system/custom_collectives/custom_collective.json
// as ASTRA-sim ships it. That file names the implementation by a path relative to ASTRA-sim's
// repository root, and gives no endpoint-delay, active chunks, collective optimization or
// implementation lists, so ASTRA-sim's defaults apply (hfsim refused it for the missing keys).
// ASTRA-sim prints 90,174 cycles: on the critical path 7 reductions replayed at 7 us and 14
// sends of floor(500 + 131,072 / (50 x 2^30 / 10^9)) = floor(2,941.40625) = 2,941 ns, with no
// endpoint delay (a send goes straight to the network): 49,000 + 41,174. hfsim gave
// 90,319.6875 ns, adding an endpoint delay to every send and not truncating.
TEST(AstraCustomCollective, ShippedExampleRunsToAstraSimsTime) {
  SKIP_WITHOUT_TRACES();
  const fs::path implementation = kAstra / "custom_collectives" / "custom_ring_allreduce_8npus_1MB";
  const fs::path network = kAstra / "network" / "Ring_8npus.yml";
  const fs::path system = kAstra / "custom_collectives" / "custom_collective.json";
  const fs::path trace = kAstra / "microbenchmarks" / "all_reduce" / "8npus_1MB" / "all_reduce";
  // In the library: the implementation given by its absolute prefix.
  ChakraInputs inputs = test::Inputs(trace.string());
  inputs.custom["all_reduce"] = (implementation / "custom_allreduce").string();
  auto scenario = TraceOnAstraInputs(inputs, network, system);
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  EXPECT_EQ(AnalyticalEngine().Run(scenario.Value()).iteration.total_ns, 90174.0);
  // On the command line, the system file as shipped, from a working directory where its
  // relative path finds the implementation (as from ASTRA-sim's repository root).
  test::TraceDir dir("custom-shipped");
  fs::create_directories(dir.Path("examples/system/custom_collectives"));
  fs::create_directory_symlink(
      implementation, dir.Path("examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB"));
  const test::CliResult run = test::RunHfsim(
      "cd " + dir.Path("").string() + " && " HFSIM_BINARY,
      "run --chakra " + trace.string() + " --astra-network " + network.string() +
          " --astra-system " + system.string() + " -q --no-plot -o " + dir.Path("out").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(test::Slurp(dir.Path("out/report.json")));
  EXPECT_EQ(report["iteration"]["time_ns"], 90174.0) << report["iteration"].dump();
}

// One rank of a job traced by PyTorch and converted by Chakra's first converter: 3,664 nodes.
// Its ctrl_deps hold PyTorch's caller ids (1,277 name nodes not in the file), so it is refused
// as ASTRA-sim's feeder refuses it; with --chakra-legacy it runs on a fabric whose every NPU
// runs this rank's trace (--chakra-replicate).
TEST(PytorchTrace, IsCountedRefusedAsAstraSimWouldAndRunsLegacy) {
  SKIP_WITHOUT_TRACES();
  const std::string prefix = (kChakra / "pytorch" / "chakra").string();
  ChakraInputs inputs = test::Inputs(prefix);
  inputs.replicate = true;
  auto strict = ImportChakra(inputs, {4});
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.Error().where, prefix + ".0.et: node 216");
  EXPECT_NE(strict.Error().message.find("depends on node 3 (ctrl_deps), which is not in the file"),
            std::string::npos)
      << strict.Error().ToString();
  inputs.legacy = true;
  auto imported = ImportChakra(inputs, {4});
  ASSERT_TRUE(imported) << imported.Error().ToString();
  const ChakraCounts& counts = imported.Value().counts;
  EXPECT_EQ(counts.Nodes(), 3664u);
  EXPECT_EQ(counts.by_type[4], 3643u);  // COMP_NODE
  EXPECT_EQ(counts.host_compute, 2434u);
  EXPECT_EQ(counts.by_type[7], 21u);  // COMM_COLL_NODE
  EXPECT_EQ(counts.host_collectives, 14u);
  EXPECT_EQ(counts.collectives[0], 5u);  // ALL_REDUCE
  EXPECT_EQ(counts.collectives[5], 2u);  // BROADCAST
  EXPECT_NE(counts.Summary().find("3664 nodes: 3643 COMP_NODE (2434 on the host), 21 "
                                  "COMM_COLL_NODE (5 ALL_REDUCE, 2 BROADCAST, 14 host-side calls)"),
            std::string::npos)
      << counts.Summary();
  const Scenario scenario =
      test::LoadChakraOrDie(inputs, nlohmann::json::array({test::Dimension("Ring", 4, 100, 500)}));
  const Report report = AnalyticalEngine().Run(scenario);
  // The accelerator's 1,209 kernels record 292,828 us in all, and 157 of them 0 us, which
  // ASTRA-sim replays as 1 ns each (counted from the file by a separate decoder).
  EXPECT_DOUBLE_EQ(report.iteration.ComputeNs(), 292828000.0 + 157.0);
  EXPECT_GE(report.iteration.total_ns, report.iteration.ComputeNs());
  // Five all-reduces: 8,196,000 + 31,502,336 + 26,255,360 + 26,550,272 + 9,724,160 B.
  uint64_t reduced = 0;
  for (const auto& collective : report.collectives)
    reduced += collective.size_bytes * collective.occurrences;
  EXPECT_EQ(reduced, 102228128u);
}

}  // namespace
}  // namespace hfsim
