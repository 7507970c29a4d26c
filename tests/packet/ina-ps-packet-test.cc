// Libra-style hot-key aggregation at packet level (sim/packet/ina-ps.h): hot frames through the
// switch and its shards, cold keys through the PS driver, on the same links. Under injected loss
// every hot slot round completes once at the switch, every hot block is applied once at its
// owning shard, every worker ends with the exact integer sums, and every cold (worker, key) pair
// is aggregated once at its shard; hot and cold pairs partition PS-lite's pushed pairs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/packet/packet-engine.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-parser.h"
#include "workloads/parameter-server.h"

namespace hfsim {
namespace {

nlohmann::json SmallLibra() {
  return {{"seed", 7},
          {"engine", "packet"},
          {"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", 6}, {"bandwidth_GBps", 12.5}, {"latency_ns", 1000}}}}}},
          {"workload",
           {{"parameter_server",
             {{"workers", {0, 1, 2, 3}},
              {"servers", {4, 5}},
              {"sparse",
               {{"key_count", 100000},
                {"bytes_per_key", 64},
                {"lookups_per_worker", 5000},
                {"zipf_exponent", 1.1}}},
              {"iterations", 2}}}}},
          {"packet",
           {{"retransmit_timeout_ns", 20000}, {"faults", {{"link_loss", {{{"rate", 0.01}}}}}}}},
          {"aggregation",
           {{"mode", "parameter_server"},
            {"workers", 4},
            {"server_shards", 2},
            {"aggregator_slots", 64},
            {"hot_key_capacity_keys", 16384}}}};
}

Scenario Parse(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

TEST(InaPsPacket, HotOnceInTheSwitchColdOnceAtTheServersUnderLoss) {
  const Scenario scenario = Parse(SmallLibra());
  const Report report = PacketEngine().Run(scenario);
  ASSERT_TRUE(report.in_network && report.in_network->measured && report.parameter_server);
  const InNetworkMeasured& m = *report.in_network->measured;
  EXPECT_TRUE(m.exactly_once);
  EXPECT_EQ(m.slots_completed, m.slots_expected);
  EXPECT_TRUE(m.exact_sums);
  EXPECT_EQ(m.frames_rejected, 0u);
  EXPECT_GT(m.frames_lost, 0u);
  EXPECT_GT(m.retransmissions, 0u);
  const ParameterServerReport& ps = *report.parameter_server;
  EXPECT_EQ(ps.keys_aggregated, ps.keys_pushed);
  EXPECT_EQ(ps.key_errors, 0u);
  EXPECT_EQ(ps.bytes_push_delivered, ps.bytes_pushed);
  EXPECT_EQ(ps.bytes_pull_delivered, ps.bytes_pulled);
  EXPECT_EQ(report.packet->protocol_errors, 0u);

  // Hot pairs (from the workload's own traffic) plus cold pairs pushed = PS-lite's pushed pairs.
  const HotKeySplit split = SplitHotKeys(scenario.parameter_server, *scenario.aggregation);
  EXPECT_EQ(split.hot_keys, 1024u);  // 16384 values / 16 per 64-byte row
  uint64_t hot_pairs = 0;
  for (uint32_t i = 0; i < scenario.parameter_server.iterations; ++i) {
    for (uint64_t keys :
         BuildIterationTraffic(scenario.parameter_server, scenario.seed, i, split.hot_keys)
             .hot_keys) {
      hot_pairs += keys;
    }
  }
  nlohmann::json baseline = SmallLibra();
  baseline.erase("aggregation");
  baseline["engine"] = "analytical";
  const Report ps_lite = AnalyticalEngine().Run(Parse(baseline));
  EXPECT_GT(hot_pairs, 0u);
  EXPECT_EQ(ps.keys_pushed + hot_pairs, ps_lite.parameter_server->keys_pushed);
}

TEST(InaPsPacket, SameSeedSameReport) {
  const Scenario scenario = Parse(SmallLibra());
  const std::string first = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  const std::string second = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace hfsim
