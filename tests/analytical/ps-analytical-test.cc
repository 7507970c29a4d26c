// The parameter_server workload: the analytical price against hand-computed closed forms on
// small Switch fabrics, the loader's errors, and the echo round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// One Switch of `npus` NPUs at 100 GB/s and 500 ns per hop; a dense model of 10^6 parameters
// x 4 bytes cut into 4 keys of 10^6 bytes, range-partitioned: keys 0,1 -> shard 0, 2,3 ->
// shard 1, so each slice is 2 x (10^6 + 8) = 2,000,016 bytes.
nlohmann::json DenseOnSwitch(uint32_t npus, nlohmann::json workers, nlohmann::json servers) {
  return {
      {"topology",
       {{"dimensions",
         {{{"kind", "Switch"}, {"size", npus}, {"bandwidth_GBps", 100}, {"latency_ns", 500}}}}}},
      {"workload",
       {{"parameter_server",
         {{"workers", workers},
          {"servers", servers},
          {"dense", {{"params", 1000000}, {"bytes_per_param", 4}, {"partition_bytes", 1000000}}},
          {"key_partition", "range"}}}}}};
}

TEST(PsAnalytical, DenseOnSwitchMatchesHandComputedClosedForm) {
  // 4 workers (NPUs 0-3), 2 servers (NPUs 4, 5), reductions at 50 GB/s.
  nlohmann::json doc = DenseOnSwitch(6, {0, 1, 2, 3}, {4, 5});
  doc["communication"] = {{"reduction_memory_bandwidth_GBps", 50}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  // Push: a server's down-link carries 4 slices = 8,000,064 B (a worker's up-link only 2):
  //   8,000,064 / 100 = 80,000.64 ns, plus 2 hops x 500 ns = 81,000.64 ns.
  // Aggregate: 8,000,064 B / 50 B/ns = 160,001.28 ns. Pull: as push, 81,000.64 ns.
  EXPECT_NEAR(report.iteration.total_ns, 81000.64 + 160001.28 + 81000.64, 1e-6);
  ASSERT_TRUE(report.parameter_server);
  const ParameterServerReport& ps = *report.parameter_server;
  EXPECT_NEAR(ps.push_ns, 81000.64, 1e-6);
  EXPECT_NEAR(ps.aggregate_ns, 160001.28, 1e-6);
  EXPECT_NEAR(ps.pull_ns, 81000.64, 1e-6);
  EXPECT_EQ(ps.push_messages, 8u);
  EXPECT_EQ(ps.bytes_pushed, 8u * 2000016u);
  EXPECT_EQ(ps.bytes_pulled, ps.bytes_pushed);
  EXPECT_EQ(ps.keys_pushed, 16u);
  EXPECT_EQ(ps.keys_aggregated, 16u);
  ASSERT_EQ(ps.servers.size(), 2u);
  EXPECT_EQ(ps.servers[0].incast_bytes, 8000064u);
  EXPECT_EQ(ps.servers[1].incast_bytes, 8000064u);
  EXPECT_EQ(ps.busiest_server, 0u);  // a tie goes to the lowest shard
  // Every byte crosses dimension 0 once each way: 2 x 16,000,128 B over 6 NPUs per iteration.
  EXPECT_NEAR(report.dimensions[0].traffic_bytes_per_npu, 2.0 * 16000128.0 / 6.0, 1e-6);
}

TEST(PsAnalytical, ColocatedServersSkipTheFabricForLocalSlices) {
  // Servers on NPUs 0 and 1, which are also workers. Shard 0 receives over the fabric from
  // workers 1, 2, 3 only: 3 x 2,000,016 = 6,000,048 B on NPU 0's down-link (likewise NPU 1's);
  // up-links carry at most 2 slices (workers 2 and 3). Push = 60,000.48 + 1,000 ns; pull the
  // same; no reduction cost (R = 0).
  const Report report = AnalyticalEngine().Run(ParseOrDie(DenseOnSwitch(4, {0, 1, 2, 3}, {0, 1})));
  EXPECT_NEAR(report.iteration.total_ns, 2 * 61000.48, 1e-6);
  const ParameterServerReport& ps = *report.parameter_server;
  EXPECT_EQ(ps.servers[0].incast_bytes, 6000048u);
  EXPECT_EQ(ps.servers[0].push_bytes, 8000064u);
  EXPECT_EQ(ps.local_bytes, 2u * 2u * 2000016u);  // 2 local slices, push and pull
}

TEST(PsAnalytical, SparseOnSwitchIsTheLargerOfIncastAndOutgoing) {
  nlohmann::json doc = DenseOnSwitch(10, {0, 1, 2, 3, 4, 5, 6, 7}, {8, 9});
  auto& ps_json = doc["workload"]["parameter_server"];
  ps_json.erase("dense");
  ps_json["sparse"] = {{"key_count", 1000000},
                       {"bytes_per_key", 256},
                       {"lookups_per_worker", 4000},
                       {"zipf_exponent", 1.1}};
  ps_json["key_partition"] = "hash";
  ps_json["iterations"] = 3;
  doc["seed"] = 11;
  const Scenario scenario = ParseOrDie(doc);
  const Report report = AnalyticalEngine().Run(scenario);
  const ParameterServerReport& ps = *report.parameter_server;
  ASSERT_EQ(ps.iteration_ns.size(), 3u);
  double sum = 0.0;
  for (uint32_t i = 0; i < 3; ++i) {
    const PsIterationTraffic t = BuildIterationTraffic(scenario.parameter_server, 11, i);
    uint64_t busiest = 0;
    for (uint32_t m = 0; m < 2; ++m) busiest = std::max(busiest, t.ShardBytes(m));
    for (uint32_t w = 0; w < 8; ++w)
      busiest = std::max(busiest, t.SliceBytes(w, 0) + t.SliceBytes(w, 1));
    // Each phase: busiest link / 100 B/ns + 2 hops x 500 ns; push and pull alike.
    const double expected = 2.0 * (static_cast<double>(busiest) / 100.0 + 1000.0);
    EXPECT_NEAR(ps.iteration_ns[i], expected, 1e-6) << "iteration " << i;
    sum += expected;
  }
  EXPECT_NEAR(report.iteration.total_ns, sum / 3.0, 1e-6);
  EXPECT_EQ(ps.bytes_pushed, ps.keys_pushed * (256 + 8));
}

TEST(PsScenario, BadInputNamesThePathAndTheAcceptedRange) {
  const nlohmann::json base = DenseOnSwitch(6, {0, 1, 2, 3}, {4, 5});
  const std::string ps = "workload.parameter_server";
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["servers"] = {4, 9};
    ExpectLoadError(doc, ps + ".servers[1]", "9");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["workers"] = {0, 0};
    ExpectLoadError(doc, ps + ".workers[1]", "listed twice");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["sparse"] = {
        {"key_count", 10}, {"bytes_per_key", 4}, {"lookups_per_worker", 1}};
    ExpectLoadError(doc, ps, "exactly one of \"dense\"");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["dense"] = {{"model", "resnet51"}};
    ExpectLoadError(doc, ps + ".dense.model", "unknown model \"resnet51\"");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["dense"]["params"] = 100000000;  // 4e8 keys of 1 byte
    doc["workload"]["parameter_server"]["dense"]["partition_bytes"] = 1;
    ExpectLoadError(doc, ps + ".dense.partition_bytes", "keys");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"].erase("dense");
    doc["workload"]["parameter_server"]["sparse"] = {
        {"key_count", 10}, {"bytes_per_key", 4}, {"lookups_per_worker", 1}, {"zipf_exponent", -1}};
    ExpectLoadError(doc, ps + ".sparse.zipf_exponent", "-1");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"].erase("dense");
    doc["workload"]["parameter_server"]["iterations"] = 100000;
    doc["workload"]["parameter_server"]["sparse"] = {
        {"key_count", 10}, {"bytes_per_key", 4}, {"lookups_per_worker", 1000}};
    ExpectLoadError(doc, ps + ".sparse.lookups_per_worker", "key draws");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"]["key_partition"] = "modulo";
    ExpectLoadError(doc, ps + ".key_partition", "\"hash\"");
  }
  {
    auto doc = base;
    doc["communication"] = {{"chunks", 4}};
    ExpectLoadError(doc, "communication.chunks", "does not apply to a parameter_server");
  }
  {
    auto doc = base;
    doc["optimize"] = {{"objective", "time"}};
    ExpectLoadError(doc, "optimize", "not available for a parameter_server");
  }
  {
    auto doc = base;
    doc["workload"]["parameter_server"].erase("servers");
    ExpectLoadError(doc, ps + ".servers", "missing");
  }
  {
    auto doc = base;
    doc["workload"]["collective"] = {{"kind", "all_reduce"}, {"size_bytes", 1024}};
    ExpectLoadError(doc, "workload", "exactly one of");
  }
}

TEST(PsScenario, EchoRoundTrips) {
  nlohmann::json doc = DenseOnSwitch(6, {0, 1, 2, 3}, {4, 5});
  const Scenario dense = ParseOrDie(doc);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(dense))), ScenarioToJson(dense));
  auto& ps_json = doc["workload"]["parameter_server"];
  ps_json.erase("dense");
  ps_json["sparse"] = {{"key_count", 1000},
                       {"bytes_per_key", 8},
                       {"lookups_per_worker", 10},
                       {"zipf_exponent", 0.8}};
  ps_json.erase("workers");  // every NPU is a worker by default
  const Scenario sparse = ParseOrDie(doc);
  EXPECT_EQ(sparse.parameter_server.Workers(), 6u);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(sparse))), ScenarioToJson(sparse));
  // The zoo model name survives, with its key table rebuilt.
  doc = DenseOnSwitch(6, {0, 1, 2, 3}, {4, 5});
  doc["workload"]["parameter_server"]["dense"] = {{"model", "resnet50"}};
  const Scenario zoo = ParseOrDie(doc);
  EXPECT_EQ(zoo.parameter_server.dense.params, 25557032u);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(zoo))), ScenarioToJson(zoo));
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

// The shipped examples load, run, and conserve bytes and keys; the sparse one spreads its keys
// over both shards within 5% of each other (hash partition) and shows the skew: its workers
// touch far fewer distinct keys than they draw.
TEST(PsConfigs, ShippedScenariosRunAndConserve) {
  for (const char* name : {"ps-lite-sparse", "ps-lite-dense"}) {
    SCOPED_TRACE(name);
    const auto scenario =
        LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name + ".json");
    ASSERT_TRUE(scenario) << scenario.Error().ToString();
    const Report report = AnalyticalEngine().Run(scenario.Value());
    ASSERT_TRUE(report.parameter_server);
    const ParameterServerReport& ps = *report.parameter_server;
    EXPECT_EQ(ps.workers, 8u);
    EXPECT_EQ(ps.shards, 2u);
    EXPECT_EQ(ps.keys_aggregated, ps.keys_pushed);
    EXPECT_EQ(ps.bytes_push_delivered, ps.bytes_pushed);
    const double a = static_cast<double>(ps.servers[0].push_bytes);
    const double b = static_cast<double>(ps.servers[1].push_bytes);
    if (std::string(name) == "ps-lite-sparse") {
      EXPECT_NEAR(a / b, 1.0, 0.05);
      const ParameterServerWorkload& w = scenario.Value().parameter_server;
      EXPECT_LT(ps.keys_pushed, w.iterations * w.Workers() * w.sparse.lookups_per_worker / 2);
    }
    EXPECT_GT(report.iteration.total_ns, 0.0);
  }
}

}  // namespace
}  // namespace hfsim
