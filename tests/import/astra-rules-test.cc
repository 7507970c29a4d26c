// The single rules of astra_sim pricing (sim/analytical/astra-sim-phase.h,
// astra-sim-pricing.h) against ASTRA-sim's own published test expectations and hand-worked
// values.
#include <cmath>

#include "models/schedule-profile.h"
#include "sim/analytical/astra-sim-phase.h"
#include "sim/analytical/astra-sim-pricing.h"
#include "tests/import/astra-test-util.h"

namespace hfsim::testing {
namespace {

// The dimensions hfsim imports from an ASTRA-sim network YAML.
std::vector<Dimension> Imported(const std::string& network, const std::string& algorithms = "[\"ring\"]") {
  auto document = ImportAstraSim(AstraInputs{WriteTemp("net.yml", network),
                                             WriteTemp("sys.json", System(algorithms)), "",
                                             "all_reduce", "1MiB"});
  EXPECT_TRUE(document) << document.Error().ToString();
  if (!document) return {};
  auto scenario = ParseScenario(document.Value());
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  if (!scenario) return {};
  return scenario.Value().dimensions;
}

// astra-network-analytical's test/test_congestion_unaware.cpp sends 1 MB (1048576 B) over its
// input/*.yml networks and expects these delays; the same files imported into hfsim give the
// same message times. Ring of 16 at 50 GB/s, 500 ns, NPU 1 to 4: 3 hops, 1500 + 19531.25.
TEST(AstraRules, MessageTimesOfTheAnalyticalBackendTests) {
  const std::string single = "npus_count: [ 16 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n";
  const std::vector<Dimension> ring = Imported("topology: [ Ring ]\n" + single);
  const std::vector<Dimension> fc = Imported("topology: [ FullyConnected ]\n" + single);
  const std::vector<Dimension> sw = Imported("topology: [ Switch ]\n" + single);
  ASSERT_EQ(1u, ring.size());
  ASSERT_EQ(1u, fc.size());
  ASSERT_EQ(1u, sw.size());
  EXPECT_EQ(21031u, AstraMessageNs(3, ring[0].latency_ns, AstraLinkBpns(ring[0]), 1048576));
  EXPECT_EQ(20031u, AstraMessageNs(1, fc[0].latency_ns, AstraLinkBpns(fc[0]), 1048576));
  EXPECT_EQ(20531u, AstraMessageNs(2, sw[0].latency_ns, AstraLinkBpns(sw[0]), 1048576));
  // input/Ring_FullyConnected_Switch.yml: 2 x 8 x 4 at 200, 100, 50 GB/s and 50, 500, 2000 ns.
  // send(0, 1) is on the ring (1 hop), send(37, 41) on the FC, send(26, 42) on the switch.
  const std::vector<Dimension> three = Imported(
      "topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 2, 8, 4 ]\n"
      "bandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 50.0, 500.0, 2000.0 ]\n",
      "[\"ring\", \"ring\", \"ring\"]");
  ASSERT_EQ(3u, three.size());
  EXPECT_EQ(4932u, AstraMessageNs(1, three[0].latency_ns, AstraLinkBpns(three[0]), 1048576));
  EXPECT_EQ(10265u, AstraMessageNs(1, three[1].latency_ns, AstraLinkBpns(three[1]), 1048576));
  EXPECT_EQ(23531u, AstraMessageNs(2, three[2].latency_ns, AstraLinkBpns(three[2]), 1048576));
}

TEST(AstraRules, LinkBandwidthIsAstraSimsExactFigure) {
  // 2^30 / 10^9 per GB/s, recovered exactly from the imported per-NPU figure.
  for (double gbps : {1.0, 12.5, 50.0, 100.0, 150.0, 200.0, 333.3}) {
    for (const char* kind : {"Ring", "FullyConnected", "Switch"}) {
      const std::vector<Dimension> dims = Imported(std::string("topology: [") + kind +
                                                   "]\nnpus_count: [8]\nbandwidth: [" +
                                                   std::to_string(gbps) + "]\nlatency: [1]\n");
      ASSERT_EQ(1u, dims.size());
      EXPECT_EQ(gbps * (1 << 30) / 1000000000, AstraLinkBpns(dims[0])) << kind << " " << gbps;
    }
  }
}

TEST(AstraRules, ReductionTruncatesEachOfThreePasses) {
  // 262144 B at 50 GB/s: 5242.88 ns a pass; 3 x 5242 = 15726, not floor(15728.64).
  EXPECT_EQ(15726u, AstraReductionNs(262144, 50.0));
  EXPECT_EQ(0u, AstraReductionNs(262144, 0.0));  // local-mem-bw absent
}

TEST(AstraRules, Chunking) {
  // Even: 1 MiB in 4.
  EXPECT_EQ(4u, AstraChunking(CollectiveKind::kAllReduce, 1048576, 4, 64).count);
  EXPECT_EQ(262144u, AstraChunking(CollectiveKind::kAllReduce, 1048576, 4, 64).bytes);
  // Uneven: 10 B in 4 -> chunks of 2 B, 5 of them (at least 1 B per NPU holds with 2 NPUs).
  EXPECT_EQ(5u, AstraChunking(CollectiveKind::kReduceScatter, 10, 4, 2).count);
  EXPECT_EQ(2u, AstraChunking(CollectiveKind::kReduceScatter, 10, 4, 2).bytes);
  // Below one byte per NPU: 4 chunks of 16 B on 16 NPUs for a 10 B all-to-all.
  EXPECT_EQ(4u, AstraChunking(CollectiveKind::kAllToAll, 10, 4, 16).count);
  EXPECT_EQ(16u, AstraChunking(CollectiveKind::kAllToAll, 10, 4, 16).bytes);
  // ...but not for an all-gather.
  EXPECT_EQ(5u, AstraChunking(CollectiveKind::kAllGather, 10, 4, 16).count);
  EXPECT_EQ(2u, AstraChunking(CollectiveKind::kAllGather, 10, 4, 16).bytes);
}

TEST(AstraRules, OutputBytes) {
  EXPECT_EQ(262144u, AstraPhaseOutputBytes(CollectiveKind::kReduceScatter, 4, 1048576));
  EXPECT_EQ(349525u, AstraPhaseOutputBytes(CollectiveKind::kReduceScatter, 3, 1048576));  // truncated
  EXPECT_EQ(4194304u, AstraPhaseOutputBytes(CollectiveKind::kAllGather, 4, 1048576));
  EXPECT_EQ(1048576u, AstraPhaseOutputBytes(CollectiveKind::kAllReduce, 4, 1048576));
  EXPECT_EQ(1048576u, AstraPhaseOutputBytes(CollectiveKind::kAllToAll, 4, 1048576));
}

AstraPhase Phase(CollectiveKind kind, CollectiveAlgorithm algorithm, DimensionKind topology,
                 uint32_t npus, double latency, double gbps, double mem, uint64_t bytes) {
  AstraPhase phase;
  phase.kind = kind;
  phase.algorithm = algorithm;
  phase.topology = topology;
  phase.npus = npus;
  phase.latency_ns = latency;
  phase.link_Bpns = gbps * (1 << 30) / 1000000000;
  phase.endpoint_delay = 10;
  phase.local_mem_GBps = mem;
  phase.data_bytes = bytes;
  return phase;
}

TEST(AstraRules, DirectAllReduceOnARingWaitsForTheFarthestReceipt) {
  // Ring of 4 at 100 GB/s, 1000 ns: messages of 262144 B (2441.40625) to 1, 2, 3 away = 1, 2, 1
  // hops: T = 3441, 4441, 3441. Reduce-scatter half: sends at 10, receipts at 3451, 4451, 3451,
  // each + 10 (no reduction time). The two early ones find a receipt missing and wait; at 4461
  // all three all-gather messages leave; the last receipt at 8902, + 10 = 8912.
  EXPECT_EQ(8912u, AstraPhaseNs(Phase(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDirect,
                                      DimensionKind::kRing, 4, 1000, 100, 0, 1048576)));
}

TEST(AstraRules, HalvingDoublingAllReduceReducesOnceFewerThanItsSteps) {
  // Switch of 4 at 100 GB/s, 2000 ns, local-mem-bw 50, 1 MiB: messages 524288 B to 1 away
  // (T = floor(4000 + 4882.8125) = 8882), 262144 B to 2 away (6441), then 262144 B and 524288 B
  // back. Only the first receipt reduces (its released 262144 B: 3 x 5242 = 15726); the second
  // starts the gather half. 10 + (8882 + 10 + 15726) + (6441 + 10) + (6441 + 10) + (8882 + 10).
  EXPECT_EQ(46422u, AstraPhaseNs(Phase(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling,
                                       DimensionKind::kSwitch, 4, 2000, 100, 50, 1048576)));
}

TEST(AstraRules, RingPhaseClosedForm) {
  // Ring all-to-all on 8 FC NPUs (1 hop of 100, 100 GB/s), 1 MiB: 28 messages of 131072 B
  // (1220.703125): 10 + 28 x (1320 + 10) = 37250.
  EXPECT_EQ(37250u, AstraPhaseNs(Phase(CollectiveKind::kAllToAll, CollectiveAlgorithm::kRing,
                                       DimensionKind::kFullyConnected, 8, 100, 100, 0, 1048576)));
}

// Traffic is hfsim's count (bytes one NPU sends), now in closed form: the same figure as the
// schedule profiles give.
TEST(AstraRules, TrafficClosedFormMatchesTheScheduleProfiles) {
  const CollectiveKind kinds[] = {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                  CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
  const CollectiveAlgorithm algorithms[] = {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kDirect,
                                            CollectiveAlgorithm::kHalvingDoubling};
  const DimensionKind topologies[] = {DimensionKind::kRing, DimensionKind::kFullyConnected,
                                      DimensionKind::kSwitch};
  for (uint32_t n = 2; n <= 16; ++n) {
    for (CollectiveKind kind : kinds) {
      for (CollectiveAlgorithm algorithm : algorithms) {
        if (UnsupportedReason(kind, algorithm, n)) continue;
        for (DimensionKind topology : topologies) {
          EXPECT_NEAR(CachedProfile(kind, algorithm, n, topology).traffic_coefficient,
                      StageTrafficCoefficient(kind, n), 1e-12)
              << ToString(kind) << " " << static_cast<int>(algorithm) << " n=" << n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hfsim::testing
