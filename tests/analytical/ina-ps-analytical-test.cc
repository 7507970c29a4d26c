// Libra-style hot-key aggregation priced by the analytical engine
// (sim/analytical/ina-ps-pricing.h): the parameter-server closed form by hand, the hot/cold split
// as a partition of the pushed (worker, key) pairs, the speedup over PS-lite growing with skew on
// the shipped config, and the loader's checks.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/in-network-allreduce.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/scenario/scenario-parser.h"
#include "workloads/parameter-server.h"

namespace hfsim {
namespace {

Scenario Parse(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

std::string ErrorOf(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  return scenario ? std::string("(accepted)") : scenario.Error().ToString();
}

// 4 workers and 1 shard on a 5-port switch at 1 byte/ns and 100 ns per link; a dense model of
// 10 fp32 parameters (one key of 40 bytes = 10 values), all hot; packets of 4 values, 2 slots.
nlohmann::json AllHot() {
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", 5}, {"bandwidth_GBps", 1.0}, {"latency_ns", 100}}}}}},
          {"workload",
           {{"parameter_server",
             {{"workers", {0, 1, 2, 3}}, {"servers", {4}}, {"dense", {{"params", 10}}}}}}},
          {"aggregation",
           {{"mode", "parameter_server"},
            {"workers", 4},
            {"server_shards", 1},
            {"aggregator_slots", 2},
            {"values_per_packet", 4},
            {"fixed_point", "fixed_scale"}}}};
}

nlohmann::json ShippedLibra() {
  std::ifstream file(std::string(HFSIM_SOURCE_DIR) + "/configs/s1-libra-sparse.json");
  return nlohmann::json::parse(file);
}

TEST(InaPsAnalytical, HotKeysClosedFormByHand) {
  // t = 74 ns, RT = 4 (t + a) = 696 ns, tail = RT - t = 622 ns, M = 3 packets (blocks 4, 4, 2).
  // Bandwidth bound 3 t + 622 = 844 ns. Window: slot 0 carries 2 rounds and ends its sends at
  // t + RT = 770 ns, slot 1 at 2 t = 148 ns; 770 + 622 = 1392 ns.
  AggregationSwitchSpec spec;
  spec.mode = AggregationMode::kParameterServer;
  spec.workers = 4;
  spec.aggregator_slots = 2;
  spec.values_per_packet = 4;
  spec.scheme = FixedPointScheme::kFixedScale;
  const InNetworkAllReducePrice price = PriceInNetworkHotKeys(spec, 10, 1.0, 100.0);
  EXPECT_DOUBLE_EQ(price.bandwidth_bound_ns, 844.0);
  EXPECT_DOUBLE_EQ(price.time_ns, 1392.0);
}

TEST(InaPsAnalytical, AllKeysHotLeavesNothingForTheServers) {
  const Report report = AnalyticalEngine().Run(Parse(AllHot()));
  ASSERT_TRUE(report.in_network);
  EXPECT_EQ(report.in_network->hot_keys, 1u);
  EXPECT_DOUBLE_EQ(report.in_network->cold_ns, 0.0);
  EXPECT_DOUBLE_EQ(report.iteration.total_ns, 1392.0);
  ASSERT_TRUE(report.parameter_server);
  EXPECT_EQ(report.parameter_server->keys_pushed, 0u);
}

// The plan the packet engine reports beside its measurements is the analytical run's
// in_network report, to the bit, for the shipped S1 Libra scenario (skewed sparse keys, cold
// and shared bounds that differ per iteration) and the all-hot case.
TEST(InaPsAnalytical, ThePlanAloneIsTheAnalyticalRunsInNetworkReport) {
  for (const nlohmann::json& doc : {ShippedLibra(), AllHot()}) {
    const Scenario scenario = Parse(doc);
    const Report report = AnalyticalEngine().Run(scenario);
    ASSERT_TRUE(report.in_network);
    const InNetworkReport& run = *report.in_network;
    const InNetworkReport plan = PlanLibraInNetwork(scenario);
    EXPECT_EQ(plan.mode, run.mode);
    EXPECT_EQ(plan.workers, run.workers);
    EXPECT_EQ(plan.values_per_worker, run.values_per_worker);
    EXPECT_EQ(plan.blocks, run.blocks);
    EXPECT_EQ(plan.packets_per_worker, run.packets_per_worker);
    EXPECT_EQ(plan.wire_bytes_per_worker, run.wire_bytes_per_worker);
    EXPECT_EQ(plan.hot_keys, run.hot_keys);
    EXPECT_EQ(plan.closed_form_ns, run.closed_form_ns);
    EXPECT_EQ(plan.hot_ns, run.hot_ns);
    EXPECT_EQ(plan.cold_ns, run.cold_ns);
    EXPECT_EQ(plan.shared_ns, run.shared_ns);
    EXPECT_FALSE(plan.measured.has_value());
  }
}

TEST(InaPsAnalytical, HotAndColdPartitionThePushedPairs) {
  // Every (worker, key) pair PS-lite pushes is either a hot one (through the switch) or a cold
  // one pushed to its shard, never both: counted independently from the workload's traffic.
  nlohmann::json doc = ShippedLibra();
  const Scenario libra = Parse(doc);
  const HotKeySplit split = SplitHotKeys(libra.parameter_server, *libra.aggregation);
  EXPECT_EQ(split.hot_keys, 16384u);  // 1,048,576 values / 64 per 256-byte row
  const Report with_switch = AnalyticalEngine().Run(libra);
  doc.erase("aggregation");
  const Report ps_lite = AnalyticalEngine().Run(Parse(doc));
  uint64_t hot_pairs = 0;
  for (uint32_t i = 0; i < libra.parameter_server.iterations; ++i) {
    const PsIterationTraffic t =
        BuildIterationTraffic(libra.parameter_server, libra.seed, i, split.hot_keys);
    for (uint64_t keys : t.hot_keys) hot_pairs += keys;
  }
  EXPECT_GT(hot_pairs, 0u);
  EXPECT_EQ(with_switch.parameter_server->keys_pushed + hot_pairs,
            ps_lite.parameter_server->keys_pushed);
  EXPECT_EQ(with_switch.parameter_server->keys_aggregated,
            with_switch.parameter_server->keys_pushed);
}

TEST(InaPsAnalytical, SpeedupOverPsLiteGrowsWithSkew) {
  double previous = 1.0;
  for (double zipf : {0.6, 1.1, 1.3}) {
    nlohmann::json doc = ShippedLibra();
    doc["workload"]["parameter_server"]["sparse"]["zipf_exponent"] = zipf;
    const double libra = AnalyticalEngine().Run(Parse(doc)).iteration.total_ns;
    doc.erase("aggregation");
    const double ps_lite = AnalyticalEngine().Run(Parse(doc)).iteration.total_ns;
    EXPECT_GT(ps_lite / libra, previous) << "zipf " << zipf;
    previous = ps_lite / libra;
  }
  EXPECT_GT(previous, 1.5);  // the paper's band starts at 1.5x
}

TEST(InaPsLoader, RefusesWhatHotKeyAggregationCannotRun) {
  nlohmann::json doc = AllHot();
  doc["aggregation"]["workers"] = 3;
  EXPECT_EQ(ErrorOf(doc),
            "aggregation.workers: the switch aggregates the workload's 4 workers, "
            "and the spec has 3; accepted: 4");
  doc = AllHot();
  doc["aggregation"]["server_shards"] = 2;
  EXPECT_EQ(ErrorOf(doc),
            "aggregation.server_shards: the switch forwards completed slots to the workload's 1 "
            "server shards, and the spec has 2; accepted: 1");
  doc = AllHot();
  doc["workload"]["parameter_server"]["servers"] = {3};
  doc["aggregation"]["workers"] = 4;
  EXPECT_NE(ErrorOf(doc).find("workload.parameter_server.servers: NPU 3 is both a worker and a "
                              "server"),
            std::string::npos);
  doc = AllHot();
  doc["topology"]["dimensions"].push_back(
      {{"kind", "Ring"}, {"size", 2}, {"bandwidth_GBps", 1.0}, {"latency_ns", 100}});
  EXPECT_NE(ErrorOf(doc).find("topology.dimensions: hot-key aggregation"), std::string::npos);
  doc = AllHot();
  doc["engine"] = "packet";
  doc["packet"] = {{"transport", "tcp"}};
  EXPECT_NE(ErrorOf(doc).find("packet.transport: hot-key aggregation"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
