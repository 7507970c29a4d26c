// THC summed in the switch (aggregation.value_format "thc" with communication.compression "thc")
// in a scenario: the analytical engine's closed form with THC's unequal frames, worked by hand;
// the packet engine's real frames (index updates, lane results) through the switch model on ns-3
// against it; exactly once, lane sums equal to the software aggregator's and the decoded mean's
// error, also under loss; and the loader's errors for a THC switch without THC workers.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;

// 8 workers on a 12.5 GB/s Switch, 500 ns per hop, an all-reduce of 4 MiB of fp32 gradients
// (2^20 values) in the switch, THC 4-bit with RHT blocks of 4096 (no padding).
nlohmann::json Case(int workers, uint64_t size_bytes, int slots, double latency_ns) {
  return {
      {"seed", 5},
      {"topology",
       {{"dimensions",
         {{{"kind", "Switch"},
           {"size", workers},
           {"bandwidth_GBps", 12.5},
           {"latency_ns", latency_ns}}}}}},
      {"workload",
       {{"collective", {{"kind", "all_reduce"}, {"size_bytes", size_bytes}, {"dimensions", {0}}}}}},
      {"communication",
       {{"algorithms", {{"all_reduce", "in_network"}}}, {"compression", {{"scheme", "thc"}}}}},
      {"aggregation",
       {{"workers", workers}, {"aggregator_slots", slots}, {"value_format", "thc"}}}};
}

Scenario Parse(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

TEST(InaThc, AnalyticalTimeIsTheHandComputedClosedForm) {
  const Report report = AnalyticalEngine().Run(Parse(Case(8, 4 << 20, 512, 500)));
  ASSERT_TRUE(report.in_network);
  const InNetworkReport& r = *report.in_network;
  EXPECT_EQ(r.value_format, "thc");
  // 2^20 coordinates in 16384 packets of 64, plus 512 priming packets; updates 58 + 32 B,
  // results 58 + 64 B. Bandwidth bound (M - 1) t + RT = 16895 x 9.76 + 1016.96 ns
  // (models/in-network-allreduce.h, worked in tests/models/aggregation-thc-test.cc).
  EXPECT_EQ(r.packets_per_worker, 16896u);
  EXPECT_EQ(r.update_frame_bytes, 90u);
  EXPECT_EQ(r.frame_bytes, 122u);
  EXPECT_NEAR(report.iteration.total_ns, 165912.16, 1e-6);
  // Each NPU sends its updates into the dimension: 16896 x 90 B.
  EXPECT_DOUBLE_EQ(report.collectives[0].dimension_traffic_bytes[0], 16896.0 * 90.0);
  // The same all-reduce of int32 values moves 4 bytes a value each way. The results bound both
  // (they are the larger frames), so the gain is the result frames' ratio, 314 / 122 B.
  nlohmann::json int32 = Case(8, 4 << 20, 512, 500);
  int32["aggregation"].erase("value_format");
  int32["communication"].erase("compression");
  const Report plain = AnalyticalEngine().Run(Parse(int32));
  EXPECT_NEAR(plain.iteration.total_ns / report.iteration.total_ns, 314.0 / 122.0, 0.01);
}

void ExpectExactlyOnceAndExact(const Report& report) {
  ASSERT_TRUE(report.in_network && report.in_network->measured);
  const InNetworkMeasured& m = *report.in_network->measured;
  EXPECT_TRUE(m.exactly_once);
  EXPECT_EQ(m.slots_completed, m.slots_expected);
  EXPECT_EQ(m.results_accepted, report.npus * report.in_network->packets_per_worker);
  EXPECT_TRUE(m.exact_sums);
  EXPECT_EQ(m.sum_mismatches, 0u);
  EXPECT_EQ(m.frames_rejected, 0u);
  // The packet engine's gradients are independent draws (DrawAggregationTensor), with no common
  // signal, so the mean holds 1/n of a worker's energy while the rounding errors average down by
  // 1/n too: the NMSE is a worker's own relative rounding error, at most 0.0206 per scaled
  // coordinate (the 4-bit table's largest gap, tests/models/compression-test.cc) over a scaled
  // spread of at least 1/4 (the norm bound 2^e is below twice the norm): 0.083, plus clipping.
  // Measured 0.019; a broken decode gives 1 or more.
  ASSERT_TRUE(m.decoded_nmse);
  EXPECT_LT(*m.decoded_nmse, 0.1);
  EXPECT_EQ(report.packet->bytes_delivered, report.packet->bytes_scheduled);
  EXPECT_EQ(report.packet->protocol_errors, 0u);
}

// Uncongested, the packet time differs from the closed form only by PPP's 2 bytes per frame
// (+1.6 % on 122-byte results).
TEST(InaThc, PacketEngineMatchesTheClosedFormAndSumsExactly) {
  const Scenario scenario = Parse(Case(8, 1 << 20, 512, 500));
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  const Report packet = PacketEngine().Run(scenario);
  ExpectExactlyOnceAndExact(packet);
  const double ratio = packet.iteration.total_ns / analytical;
  std::printf("THC in the switch: analytical %.1f ns, packet %.1f ns (%+.3f%%), NMSE %.5f\n",
              analytical, packet.iteration.total_ns, 100.0 * (ratio - 1.0),
              *packet.in_network->measured->decoded_nmse);
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.02);
}

TEST(InaThc, LossIsRecoveredExactlyOnce) {
  nlohmann::json doc = Case(4, 256 << 10, 16, 500);
  doc["packet"] = {{"faults", {{"link_loss", {{{"rate", 0.02}}}}}},
                   {"retransmit_timeout_ns", 20000}};
  const Report report = PacketEngine().Run(Parse(doc));
  ExpectExactlyOnceAndExact(report);
  EXPECT_GT(report.in_network->measured->frames_lost, 0u);
  EXPECT_GT(report.in_network->measured->retransmissions, 0u);
}

TEST(InaThc, LoaderErrorsNameThePath) {
  nlohmann::json no_thc = Case(8, 1 << 20, 512, 500);
  no_thc["communication"].erase("compression");
  ExpectLoadError(no_thc, "aggregation.value_format", "communication.compression.scheme");
  nlohmann::json bits = Case(8, 1 << 20, 512, 500);
  bits["communication"]["compression"]["thc"] = {{"bits", 2}};
  ExpectLoadError(bits, "communication.compression.thc.bits", "accepted: 4");
  nlohmann::json granularity = Case(8, 1 << 20, 512, 500);
  granularity["aggregation"]["thc"] = {{"granularity", 20}};
  ExpectLoadError(granularity, "communication.compression", "granularity");
  nlohmann::json nine = Case(9, 1 << 20, 512, 500);
  ExpectLoadError(nine, "aggregation.workers", "thc_lane_sum");
  nlohmann::json three = Case(8, 1 << 20, 512, 500);
  three["aggregation"]["thc"] = {{"bits", 3}};
  ExpectLoadError(three, "aggregation.thc.bits", "1, 2 or 4");
  nlohmann::json value_bits = Case(8, 1 << 20, 512, 500);
  value_bits["aggregation"]["value_bits"] = 20;
  ExpectLoadError(value_bits, "aggregation.value_bits", "int32");
  nlohmann::json ps = Case(8, 1 << 20, 512, 500);
  ps["aggregation"]["mode"] = "parameter_server";
  ExpectLoadError(ps, "aggregation.value_format", "allreduce");
  nlohmann::json odd = Case(8, 1 << 20, 512, 500);
  odd["aggregation"]["values_per_packet"] = 60;
  ExpectLoadError(odd, "aggregation.values_per_packet", "multiple of 8");
  nlohmann::json ring = Case(8, 1 << 20, 512, 500);
  ring["communication"]["algorithms"]["all_reduce"] = "ring";
  ExpectLoadError(ring, "aggregation.value_format", "in_network");
}

TEST(InaThc, EchoRoundTrips) {
  const Scenario scenario = Parse(Case(8, 1 << 20, 512, 500));
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(echo["aggregation"]["value_format"], "thc");
  EXPECT_EQ(echo["aggregation"]["thc"]["bits"], 4);
  EXPECT_FALSE(echo["aggregation"].contains("value_bits"));
  EXPECT_EQ(ScenarioToJson(Parse(echo)), echo);
}

}  // namespace
}  // namespace hfsim
