// Every number the loader accepts keeps every derived time finite: scenarios at the corners of
// the accepted ranges (the slowest compute, the slowest and longest links, the largest sizes)
// give finite times everywhere in the report, the summary table and report.json. Before the
// floor on compute_efficiency, an efficiency of 1e-320 (accepted) made the iteration "inf s" and
// its shares "-nan %" in the table and "time_ns": null in report.json, with exit 0.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim/analytical/analytical-engine.h"
#include "sim/report/report-json.h"
#include "sim/report/summary-table.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

// Every number under `node` is finite and no value is null (JSON has no inf or nan: nlohmann
// writes them as null).
void ExpectAllFinite(const nlohmann::json& node, const std::string& path) {
  if (node.is_null()) {
    ADD_FAILURE() << path << " is null";
  } else if (node.is_number_float()) {
    EXPECT_TRUE(std::isfinite(node.get<double>())) << path << " = " << node;
  } else if (node.is_object()) {
    for (const auto& [key, value] : node.items()) ExpectAllFinite(value, path + "." + key);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) ExpectAllFinite(node[i], path + "[" + std::to_string(i) + "]");
  }
}

void ExpectFiniteRun(const nlohmann::json& document) {
  const Scenario scenario = test::ParseOrDie(document);
  const Report report = AnalyticalEngine().Run(scenario);
  EXPECT_TRUE(std::isfinite(report.iteration.total_ns)) << report.iteration.total_ns;
  EXPECT_GT(report.iteration.total_ns, 0.0);
  const std::string table = SummaryTable(report, scenario);
  EXPECT_EQ(table.find("inf "), std::string::npos) << table;
  EXPECT_EQ(table.find("nan"), std::string::npos) << table;
  const nlohmann::json json = ReportToJson(report, scenario);
  for (const char* section : {"iteration", "dimensions", "collectives"}) {
    ASSERT_TRUE(json.contains(section)) << section;
    ExpectAllFinite(json[section], section);
  }
}

// The slowest NPU accepted: 1 GFLOP/s peak at 0.1% efficiency, 1 MFLOP/s.
TEST(NumericRanges, SlowestComputeKeepsTimesFinite) {
  nlohmann::json d = test::BaseTrainingScenario();
  d["npu"] = {{"peak_TFLOPS", ScenarioLimits::kMinPeakTFLOPS},
              {"compute_efficiency", ScenarioLimits::kMinComputeEfficiency}};
  d["workload"]["training"]["global_batch_samples"] = 1 << 20;
  ExpectFiniteRun(d);
  // A hand-written graph's compute node at the longest a node may take there (1e15 ns, the
  // graph's limit: 1e12 FLOPs at 1e-3 FLOP/ns).
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < 32; ++r) ranks.push_back(r);
  nlohmann::json program = {{"ranks", ranks},
                            {"nodes", {{{"id", 0}, {"type", "compute"}, {"flops", 1e12}}}}};
  nlohmann::json graph = {{"topology", d["topology"]},
                          {"npu", d["npu"]},
                          {"workload", {{"graph", {{"programs", {program}}}}}}};
  const Scenario scenario = test::ParseOrDie(graph);
  EXPECT_NEAR(AnalyticalEngine().Run(scenario).iteration.total_ns, 1e15, 1e3);
  // Just below the floor is refused, naming the key.
  d["npu"]["compute_efficiency"] = ScenarioLimits::kMinComputeEfficiency * 0.999;
  test::ExpectLoadError(d, "npu.compute_efficiency", "accepted: a number from 0.001");
}

// The largest collective on the slowest, longest links, with every per-message cost at its
// maximum, under both pricings.
TEST(NumericRanges, LargestCollectiveOnSlowestLinksKeepsTimesFinite) {
  const nlohmann::json dims = nlohmann::json::array(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", ScenarioLimits::kMinBandwidthGBps},
        {"latency_ns", ScenarioLimits::kMaxLatencyNs}},
       {{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", ScenarioLimits::kMinBandwidthGBps},
        {"latency_ns", ScenarioLimits::kMaxLatencyNs}}});
  for (const char* kind : {"all_reduce", "all_to_all", "all_gather", "reduce_scatter"}) {
    nlohmann::json d = test::CollectiveScenario(dims, kind, ScenarioLimits::kMaxCollectiveBytes,
                                                ScenarioLimits::kMaxChunks);
    d["communication"]["endpoint_delay_ns"] = ScenarioLimits::kMaxLatencyNs;
    d["communication"]["reduction_memory_bandwidth_GBps"] = ScenarioLimits::kMinBandwidthGBps;
    d["communication"]["host_stack"] = {{"kind", "grpc"},
                                        {"send_per_message_ns", ScenarioLimits::kMaxLatencyNs},
                                        {"send_per_byte_ns", 1000.0},
                                        {"receive_per_byte_ns", 1000.0}};
    SCOPED_TRACE(kind);
    ExpectFiniteRun(d);
    d["communication"].erase("host_stack");
    d["communication"]["pricing"] = "astra_sim";
    d["communication"]["active_chunks_per_dimension"] = 1;
    ExpectFiniteRun(d);
  }
}

// ASTRA-sim's pricing counted whole ns in 64-bit integers: a 2^50-byte ring all-to-all on a
// FullyConnected 1024 of 1 MB/s per NPU is n (n - 1) / 2 = 523,776 messages of 2^40 bytes, each
// 1 s + 2^40 B over one of the 1,023 links (1e-3 / 1,023 B/ns): about 5.9e23 ns in all. It
// wrapped and was reported as 9.787e18 ns, with exit 0.
TEST(NumericRanges, AstraSimPricingNeverWraps) {
  nlohmann::json d = test::CollectiveScenario(
      nlohmann::json::array({{{"kind", "FullyConnected"}, {"size", 1024},
                              {"bandwidth_GBps", ScenarioLimits::kMinBandwidthGBps},
                              {"latency_ns", ScenarioLimits::kMaxLatencyNs}}}),
      "all_to_all", ScenarioLimits::kMaxCollectiveBytes, 1);
  d["communication"]["pricing"] = "astra_sim";
  d["communication"]["algorithms"] = {{"all_to_all", "ring"}};
  const double link_Bpns = ScenarioLimits::kMinBandwidthGBps / 1023;
  const double message = 1e9 + std::ldexp(1.0, 40) / link_Bpns;
  const double expected = 523776.0 * message;
  const Scenario scenario = test::ParseOrDie(d);
  EXPECT_NEAR(AnalyticalEngine().Run(scenario).iteration.total_ns, expected, 1e-9 * expected);
  ExpectFiniteRun(d);
}

}  // namespace
}  // namespace hfsim
