// Parameter-server traffic on ns-3 against the analytical price and conservation: on an idle
// path, and under an 8-to-1 incast into deep buffers, the two engines agree within 5%; when the
// incast overflows shallow buffers the packet engine shows the drops and retransmissions the
// closed form cannot see (stated band: 1.2x to 3x). Every byte and every pushed key arrives
// exactly once, with the RDMA-style transport and with TCP; the same seed gives the same report.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/report/report-json.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/packet/packet-test-util.h"

namespace hfsim {
namespace {

using test::Dim;
using test::Dims;

Scenario Make(nlohmann::json dims, nlohmann::json ps, nlohmann::json packet = nullptr,
              nlohmann::json communication = nullptr) {
  nlohmann::json doc = {
      {"seed", 5}, {"topology", {{"dimensions", dims}}}, {"workload", {{"parameter_server", ps}}}};
  if (!packet.is_null()) doc["packet"] = packet;
  if (!communication.is_null()) doc["communication"] = communication;
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

void ExpectPsConserved(const Report& report) {
  test::ExpectConserved(report);
  ASSERT_TRUE(report.parameter_server);
  const ParameterServerReport& ps = *report.parameter_server;
  EXPECT_EQ(ps.bytes_push_delivered, ps.bytes_pushed);
  EXPECT_EQ(ps.bytes_pull_delivered, ps.bytes_pulled);
  EXPECT_EQ(ps.keys_aggregated, ps.keys_pushed);
  EXPECT_EQ(ps.key_errors, 0u);
  for (const PsServerReport& s : ps.servers) EXPECT_EQ(s.keys_aggregated, s.keys_pushed);
}

double Ratio(const Scenario& scenario, const char* name, Report* packet_out = nullptr) {
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  Report packet = PacketEngine().Run(scenario);
  const double ratio = packet.iteration.total_ns / analytical;
  std::printf("%s: analytical %.1f ns, packet %.1f ns (%+.2f%%)\n", name, analytical,
              packet.iteration.total_ns, 100.0 * (ratio - 1.0));
  ExpectPsConserved(packet);
  if (packet_out) *packet_out = std::move(packet);
  return ratio;
}

TEST(PsPacket, IdlePathWithinFivePercentOfAnalytical) {
  // One worker, one shard, across both dimensions of Ring 4 x Switch 4: 32 MB each way on an
  // idle route. Packets add their headers (62 B per 4 KiB) and store-and-forward per hop.
  const Scenario scenario = Make(Dims(Dim("Ring", 4, 100, 500), Dim("Switch", 4, 50, 1000)),
                                 {{"workers", nlohmann::json::array({1})},
                                  {"servers", nlohmann::json::array({14})},
                                  {"dense", {{"params", 8000000}}}});
  Report packet;
  EXPECT_NEAR(Ratio(scenario, "idle", &packet), 1.0, 0.05);
  EXPECT_EQ(packet.packet->drops_queue_full, 0u);
  EXPECT_EQ(packet.packet->transport.retransmitted_packets, 0u);
}

// 8 workers push 4 MB each into one server on a 9-port Switch: an 8-to-1 incast at the
// server's down-link (analytical: 32 MB / 100 GB/s + 2 hops per phase, 642 us in all).
Scenario Incast(uint64_t queue_bytes) {
  return Make(Dims(Dim("Switch", 9, 100, 500)),
              {{"workers", {0, 1, 2, 3, 4, 5, 6, 7}},
               {"servers", nlohmann::json::array({8})},
               {"dense", {{"params", 1000000}}}},
              {{"queue_bytes", queue_bytes}});
}

TEST(PsPacket, IncastIntoDeepBuffersWithinFivePercent) {
  // With 64 MiB per port nothing is dropped: the queue holds the excess (measured peak ~22 MiB),
  // ECN marks it, and the down-link stays busy, so the fair-share closed form holds.
  Report packet;
  EXPECT_NEAR(Ratio(Incast(64u << 20), "incast, deep buffers", &packet), 1.0, 0.05);
  EXPECT_EQ(packet.packet->drops_queue_full, 0u);
  EXPECT_GT(packet.packet->queue_peak_bytes, 8u << 20);
  EXPECT_GT(packet.packet->ecn_marks, 0u);
}

TEST(PsPacket, IncastIntoShallowBuffersCostsWhatTheClosedFormCannotSee) {
  // With the default 2 MiB per port the incast overflows the queue: tail drops, go-back-N
  // retransmissions and timeouts, which the analytical price knows nothing of. Measured:
  // 2.15x the analytical time (13,726 packets resent, 7 timeouts); the band below is the
  // stated tolerance for this case: at least 1.2x, at most 3x.
  Report packet;
  const double ratio = Ratio(Incast(2u << 20), "incast, 2 MiB buffers", &packet);
  EXPECT_GE(ratio, 1.2);
  EXPECT_LE(ratio, 3.0);
  EXPECT_GT(packet.packet->drops_queue_full, 0u);
  EXPECT_GT(packet.packet->transport.retransmitted_packets, 0u);
}

TEST(PsPacket, SparseZipfConservesKeysWithRdmaAndTcp) {
  const nlohmann::json ps = {{"workers", {0, 1, 2, 3, 4, 5, 6, 7}},
                             {"servers", {0, 9}},
                             {"sparse",
                              {{"key_count", 1000000},
                               {"bytes_per_key", 256},
                               {"lookups_per_worker", 2000},
                               {"zipf_exponent", 1.1}}},
                             {"iterations", 2}};
  const nlohmann::json dims = Dims(Dim("Switch", 10, 50, 500));
  for (const char* transport : {"rdma", "tcp"}) {
    const Scenario scenario =
        Make(dims, ps, {{"transport", transport}}, {{"reduction_memory_bandwidth_GBps", 200}});
    const Report report = PacketEngine().Run(scenario);
    SCOPED_TRACE(transport);
    ExpectPsConserved(report);
    const ParameterServerReport& r = *report.parameter_server;
    EXPECT_EQ(r.iteration_ns.size(), 2u);
    EXPECT_GT(r.local_bytes, 0u);  // worker 0 and shard 0 share NPU 0
    EXPECT_EQ(report.packet->bytes_delivered, r.bytes_pushed + r.bytes_pulled - r.local_bytes);
  }
}

TEST(PsPacket, SameSeedSameReport) {
  const Scenario scenario = Make(Dims(Dim("Switch", 6, 100, 500)), {{"workers", {0, 1, 2, 3}},
                                                                    {"servers", {4, 5}},
                                                                    {"sparse",
                                                                     {{"key_count", 10000},
                                                                      {"bytes_per_key", 512},
                                                                      {"lookups_per_worker", 500},
                                                                      {"zipf_exponent", 0.9}}}});
  const std::string first = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  const std::string second = ReportToJson(PacketEngine().Run(scenario), scenario).dump();
  EXPECT_EQ(first, second);
}

TEST(PsPacket, CompressedPushesAndPullsAreCarriedAtTheirWireSizes) {
  // THC (4 bits up, 8-bit lanes down) on a dense model: the packet engine sends the compressed
  // sizes, conserves them, and stays within 5 % of the closed form on an idle path.
  const Scenario scenario =
      Make(Dims(Dim("Switch", 5, 100, 500)),
           {{"workers", {0, 1, 2, 3}}, {"servers", {4}},
            {"dense", {{"params", 1048576}, {"bytes_per_param", 4}, {"partition_bytes", 1048576}}}},
           nullptr, {{"compression", {{"scheme", "thc"}}}});
  Report packet;
  const double ratio = Ratio(scenario, "thc", &packet);
  EXPECT_NEAR(ratio, 1.0, 0.05);
  // 4 keys of 262,144 values each: up 131,072 + 4 B, down 262,144 B, plus 8-byte ids.
  EXPECT_EQ(packet.parameter_server->bytes_pushed, 4u * 4 * (131072 + 4 + 8));
  EXPECT_EQ(packet.parameter_server->bytes_pulled, 4u * 4 * (262144 + 8));
}

}  // namespace
}  // namespace hfsim
