// hfsim jobs written as Chakra traces and read back: the same report, to the last digit, for
// a data x tensor training job, two pipelines (one with experts) and a hand-written graph with
// sends; the written files are deterministic, and a symmetric job's rank files are identical.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "sim/analytical/analytical-engine.h"
#include "sim/export/chakra/chakra-export.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-graph.h"
#include "tests/hfsim-cli.h"
#include "tests/import/chakra/chakra-test-util.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::TraceDir;

nlohmann::json LoadDocument(const std::string& config) {
  auto document = LoadScenarioDocument(std::string(HFSIM_SOURCE_DIR) + "/configs/" + config);
  EXPECT_TRUE(document) << document.Error().ToString();
  return document ? document.Value() : nlohmann::json::object();
}

// Writes the scenario's graph as traces under `dir`; returns the groups file's path.
std::string Export(const Scenario& scenario, const TraceDir& dir, ChakraExportCounts& counts) {
  const ExecutionGraph graph = BuildExecutionGraph(scenario);
  auto groups = ExportChakra(
      graph,
      [&](uint32_t rank, const std::string& bytes) -> std::optional<std::string> {
        std::ofstream(dir.Rank(static_cast<int>(rank)), std::ios::binary) << bytes;
        return std::nullopt;
      },
      counts);
  EXPECT_TRUE(groups) << groups.Error().ToString();
  const std::string path = dir.Path("trace.groups.json").string();
  std::ofstream(path) << (groups ? groups.Value().dump() : "{}");
  return path;
}

// What a report says about the job's timing: everything but the scenario's echo, the
// workload's description and the memory estimate (a trace has no model to estimate from).
nlohmann::json Timing(const Report& report, const Scenario& scenario) {
  nlohmann::json json = ReportToJson(report, scenario);
  // "throughput" is a training job's (tokens and model FLOPs): a trace carries no model.
  for (const char* key : {"scenario", "workload", "memory", "graph", "throughput"}) json.erase(key);
  return json;
}

class ChakraRoundTrip : public testing::TestWithParam<const char*> {};

TEST_P(ChakraRoundTrip, GivesTheSameReport) {
  const nlohmann::json document = LoadDocument(GetParam());
  auto original = ParseScenario(document);
  ASSERT_TRUE(original) << original.Error().ToString();
  TraceDir dir(std::string("round-trip-") + GetParam());
  ChakraExportCounts counts;
  const std::string groups = Export(original.Value(), dir, counts);
  std::vector<uint32_t> sizes;
  uint64_t npus = 1;
  for (const Dimension& dim : original.Value().dimensions) {
    sizes.push_back(dim.size);
    npus *= dim.size;
  }
  EXPECT_EQ(counts.files, npus);
  auto imported = ImportChakra(test::Inputs(dir.Prefix(), groups), sizes);
  ASSERT_TRUE(imported) << imported.Error().ToString();
  nlohmann::json traced_document = document;
  traced_document["workload"] = {{"graph", imported.Value().graph}};
  auto traced = ParseScenario(traced_document);
  ASSERT_TRUE(traced) << traced.Error().ToString();
  const Report before = AnalyticalEngine().Run(original.Value());
  const Report after = AnalyticalEngine().Run(traced.Value());
  EXPECT_EQ(Timing(after, traced.Value()).dump(), Timing(before, original.Value()).dump());
  EXPECT_EQ(after.iteration.total_ns, before.iteration.total_ns);
  // Ranks that differ only in ids, peers and which group of a family share a program again.
  const ExecutionGraph graph = BuildExecutionGraph(original.Value());
  if (original.Value().workload_kind != WorkloadKind::kGraph) {
    EXPECT_EQ(imported.Value().counts.programs, graph.classes.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ChakraRoundTrip,
                         testing::Values("quickstart.json", "gpt3-pipeline-1f1b-64.json",
                                         "moe-pipeline-expert-64.json", "s4-rdma-vs-grpc.json",
                                         "graph-pipeline-tensor-data.json",
                                         "optimize-verify-2d.json"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// The same job gives the same bytes; a symmetric job's ranks get identical files, which the
// reader parses once.
TEST(ChakraExport, FilesAreDeterministicAndSymmetricRanksIdentical) {
  auto scenario = ParseScenario(LoadDocument("quickstart.json"));
  ASSERT_TRUE(scenario);
  TraceDir first("export-a");
  TraceDir second("export-b");
  ChakraExportCounts a;
  ChakraExportCounts b;
  Export(scenario.Value(), first, a);
  Export(scenario.Value(), second, b);
  EXPECT_EQ(test::Slurp(first.Rank(5)), test::Slurp(second.Rank(5)));
  EXPECT_EQ(test::Slurp(first.Rank(0)), test::Slurp(first.Rank(31)));
  EXPECT_EQ(a.bytes, b.bytes);
}

// Groups that are whole dimensions of the fabric go out as involved_dim (ASTRA-sim then runs
// its configured per-dimension algorithms, as hfsim prices them); only the others become
// explicit groups, which ASTRA-sim runs as a ring over their members. The pipeline jobs list
// their tensor, data and expert groups explicitly, all of them whole dimensions: they were all
// written as pg_name groups, and ASTRA-sim ran them as rings. Checked here against a separate
// test of each group: its ranks differ along some dimensions only and are as many as those
// dimensions' product.
TEST(ChakraExport, WholeDimensionGroupsAreWrittenAsInvolvedDimensions) {
  for (const char* config : {"gpt3-pipeline-1f1b-64.json", "moe-pipeline-expert-64.json",
                             "graph-pipeline-tensor-data.json"}) {
    SCOPED_TRACE(config);
    auto scenario = ParseScenario(LoadDocument(config));
    ASSERT_TRUE(scenario) << scenario.Error().ToString();
    const std::vector<Dimension>& dims = scenario.Value().dimensions;
    auto whole = [&](const std::vector<uint32_t>& ranks) {
      uint64_t product = 1;
      for (size_t d = 0, stride = 1; d < dims.size(); stride *= dims[d].size, ++d) {
        std::set<uint32_t> coordinates;
        for (const uint32_t r : ranks) coordinates.insert(r / stride % dims[d].size);
        if (coordinates.size() > 1) product *= dims[d].size;
      }
      return ranks.size() > 1 && product == ranks.size();
    };
    const ExecutionGraph graph = BuildExecutionGraph(scenario.Value());
    uint64_t whole_groups = 0;
    for (const Communicator& comm : graph.communicators) {
      for (const auto& group : comm.groups) whole_groups += whole(group) ? 1 : 0;
    }
    TraceDir dir("whole-dimensions");
    ChakraExportCounts counts;
    const nlohmann::json groups = nlohmann::json::parse(test::Slurp(Export(scenario.Value(), dir, counts)));
    for (const auto& [id, ranks] : groups.items()) {
      EXPECT_FALSE(whole(ranks.get<std::vector<uint32_t>>())) << "group " << id << " " << ranks;
    }
    if (std::string(config) != "graph-pipeline-tensor-data.json") {
      EXPECT_GT(whole_groups, 0u) << "the job lists whole-dimension groups explicitly";
    }
  }
}

// Exports the scenario's graph, counting the files the sink receives instead of writing them.
Expected<nlohmann::json> ExportCounting(const Scenario& scenario, int& written) {
  ChakraExportCounts counts;
  return ExportChakra(
      BuildExecutionGraph(scenario),
      [&](uint32_t, const std::string&) -> std::optional<std::string> {
        ++written;
        return std::nullopt;
      },
      counts);
}

// An all-gather whose buffer does not split evenly over its NPUs has no Chakra size: refused
// before any file is written.
TEST(ChakraExport, UnevenAllGatherIsRefusedBeforeWriting) {
  nlohmann::json document = test::CollectiveScenario(
      nlohmann::json::array({test::Dimension("Ring", 3, 100, 100)}), "all_gather", 1000);
  auto scenario = ParseScenario(document);
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  int written = 0;
  auto groups = ExportCounting(scenario.Value(), written);
  ASSERT_FALSE(groups);
  EXPECT_NE(groups.Error().message.find("an all-gather of 1000 bytes over 3 NPUs"),
            std::string::npos);
  EXPECT_EQ(written, 0);
}

// A trace a reader would refuse (more than 2^22 nodes in a rank's file: five collectives of count
// 2^20) is refused before anything is written.
TEST(ChakraExport, ARankFileBeyondTheReadersLimitIsRefusedBeforeWriting) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int id = 1; id <= 5; ++id) {
    nodes.push_back({{"id", id},
                     {"type", "collective"},
                     {"kind", "all_reduce"},
                     {"size_bytes", 1024},
                     {"communicator", "all"},
                     {"count", 1 << 20}});
  }
  const nlohmann::json document = {
      {"topology", {{"dimensions", nlohmann::json::array({test::Dimension("Ring", 2, 100, 100)})}}},
      {"workload",
       {{"graph",
         {{"communicators", {{{"name", "all"}, {"groups", {{0, 1}}}}}},
          {"programs", {{{"ranks", {0, 1}}, {"nodes", nodes}}}}}}}}};
  auto scenario = ParseScenario(document);
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  int written = 0;
  auto groups = ExportCounting(scenario.Value(), written);
  ASSERT_FALSE(groups);
  EXPECT_NE(groups.Error().message.find("its trace would hold 5242880 nodes"), std::string::npos)
      << groups.Error().ToString();
  EXPECT_EQ(written, 0);
}

}  // namespace
}  // namespace hfsim
