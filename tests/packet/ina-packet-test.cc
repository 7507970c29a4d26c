// The in-network all-reduce at packet level (sim/packet/ina-allreduce.h): real frames through
// the switch pipeline model on ns-3. Uncongested, its time is within 1% of the closed form
// (models/in-network-allreduce.h; the packet engine's frames carry 2 more bytes of PPP framing,
// +0.64% for 314-byte frames, and nothing else differs). Under injected loss, and with a
// retransmission timeout so short that workers resend packets that were not lost (duplicates),
// every slot round still completes exactly once and every worker ends with the exact integer
// sums. The same seed gives the same report.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

nlohmann::json Case(int workers, uint64_t size_bytes, int slots, double latency_ns) {
  return {
      {"seed", 11},
      {"engine", "packet"},
      {"topology",
       {{"dimensions",
         {{{"kind", "Switch"},
           {"size", workers},
           {"bandwidth_GBps", 12.5},
           {"latency_ns", latency_ns}}}}}},
      {"workload",
       {{"collective", {{"kind", "all_reduce"}, {"size_bytes", size_bytes}, {"dimensions", {0}}}}}},
      {"communication", {{"algorithms", {{"all_reduce", "in_network"}}}}},
      {"aggregation", {{"workers", workers}, {"aggregator_slots", slots}}}};
}

Scenario Parse(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

void ExpectExactlyOnce(const Report& report) {
  ASSERT_TRUE(report.in_network);
  ASSERT_TRUE(report.in_network->measured);
  const InNetworkMeasured& m = *report.in_network->measured;
  EXPECT_TRUE(m.exactly_once);
  EXPECT_EQ(m.slots_completed, m.slots_expected);
  EXPECT_EQ(m.slots_expected, report.in_network->packets_per_worker * report.in_network->groups);
  EXPECT_EQ(m.updates_aggregated, m.slots_expected * report.in_network->workers);
  EXPECT_EQ(m.results_accepted, report.npus * report.in_network->packets_per_worker);
  EXPECT_TRUE(m.exact_sums);
  EXPECT_EQ(m.sum_mismatches, 0u);
  EXPECT_EQ(m.frames_rejected, 0u);
  ASSERT_TRUE(report.packet);
  EXPECT_EQ(report.packet->bytes_delivered, report.packet->bytes_scheduled);
  EXPECT_EQ(report.packet->protocol_errors, 0u);
}

double Compare(const nlohmann::json& doc, const char* name) {
  const Scenario scenario = Parse(doc);
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  const Report packet = PacketEngine().Run(scenario);
  ExpectExactlyOnce(packet);
  const double ratio = packet.iteration.total_ns / analytical;
  std::printf("%s: analytical %.1f ns, packet %.1f ns (%+.3f%%)\n", name, analytical,
              packet.iteration.total_ns, 100.0 * (ratio - 1.0));
  return ratio;
}

TEST(InaPacket, BandwidthBoundWithinOnePercentOfClosedForm) {
  const double ratio = Compare(Case(8, 1 << 20, 512, 500), "bandwidth bound");
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.01);
}

TEST(InaPacket, SlotPoolBoundWithinOnePercentOfClosedForm) {
  // 4 slots and 5 us links: each slot waits a whole round trip per packet.
  const double ratio = Compare(Case(4, 64 << 10, 4, 5000), "slot-pool bound");
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.01);
}

TEST(InaPacket, ExactlyOnceUnderLossAndDuplication) {
  nlohmann::json doc = Case(8, 256 << 10, 64, 500);
  // 3% of frames lost on every link, both directions; a 1 us timeout is shorter than a slot's
  // round trip behind the pool (64 frames of 25 ns each way), so workers also resend frames that
  // were not lost and the switch sees duplicates of complete and incomplete slots.
  doc["packet"] = {{"retransmit_timeout_ns", 1000},
                   {"faults", {{"link_loss", {{{"rate", 0.03}}}}}}};
  const Report report = PacketEngine().Run(Parse(doc));
  ExpectExactlyOnce(report);
  const InNetworkMeasured& m = *report.in_network->measured;
  EXPECT_GT(m.frames_lost, 0u);
  EXPECT_GT(m.retransmissions, 0u);
  EXPECT_GT(m.results_resent, 0u);
  EXPECT_GT(m.duplicates_dropped, 0u);
  EXPECT_GT(m.stale_results, 0u);
  std::printf("lost %llu, retransmissions %llu, resent %llu, duplicates %llu, stale %llu\n",
              static_cast<unsigned long long>(m.frames_lost),
              static_cast<unsigned long long>(m.retransmissions),
              static_cast<unsigned long long>(m.results_resent),
              static_cast<unsigned long long>(m.duplicates_dropped),
              static_cast<unsigned long long>(m.stale_results));
}

TEST(InaPacket, EverySwitchOfTheDimensionAggregatesItsGroup) {
  // Ring 2 x Switch 4: two switches, each summing its own four NPUs, with loss on dimension 1.
  nlohmann::json doc = Case(4, 64 << 10, 32, 500);
  doc["topology"]["dimensions"] = {
      {{"kind", "Ring"}, {"size", 2}, {"bandwidth_GBps", 50}, {"latency_ns", 100}},
      {{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 12.5}, {"latency_ns", 500}}};
  doc["workload"]["collective"]["dimensions"] = {1};
  doc["communication"]["algorithms"]["all_reduce"] = {"ring", "in_network"};
  doc["packet"] = {{"retransmit_timeout_ns", 20000},
                   {"faults", {{"link_loss", {{{"dimension", 1}, {"rate", 0.02}}}}}}};
  const Report report = PacketEngine().Run(Parse(doc));
  EXPECT_EQ(report.in_network->groups, 2u);
  ExpectExactlyOnce(report);
}

TEST(InaPacket, SameSeedSameReport) {
  nlohmann::json doc = Case(4, 32 << 10, 16, 500);
  doc["packet"] = {{"retransmit_timeout_ns", 5000},
                   {"faults", {{"link_loss", {{{"rate", 0.05}}}}}}};
  const Scenario scenario = Parse(doc);
  const std::string first = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  const std::string second = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace hfsim
