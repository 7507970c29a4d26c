// Collective times of imported ASTRA-sim inputs under "pricing": "astra_sim", against ASTRA-sim's
// published expected output and against values worked out by hand from ASTRA-sim's rules
// (docs/astra-sim.md §4). The rules used below, with D the endpoint delay (10 here):
//   message T = floor(hops * latency + bytes / (GB/s * 2^30 / 1e9)); hops: Ring the shorter way
//     round, FullyConnected 1, Switch 2;
//   reduction R = 3 * floor(bytes / local-mem-bw), charged on the bytes of the message that the
//     receipt releases (local-mem-bw absent: 0);
//   ring phase = D + sends * (T + D) + (n - 1) * R (RS and AR only), sends = RS/AG n - 1,
//     AR 2(n - 1), all-to-all n(n - 1)/2; messages bytes/n (all-gather: its input, whole);
//   direct RS/AG/A2A phase = D + max over peers of T + D (+ R for RS);
//   halving-doubling: D + sum over its log2 n messages of (T + D + R);
//   chunks: size / preferred-dataset-splits each, at least one byte per NPU; a dimension runs
//     at most active-chunks-per-dimension chunk-phases at once.
// Bandwidths are chosen so that no message time is a whole number (1 MiB / 4 at 100 GB/s is
// 262144 * 1e9 / (100 * 2^30) = 2441.40625 ns), so floors are unambiguous.
#include <cmath>
#include <sstream>

#include "tests/import/astra-test-util.h"

namespace hfsim::testing {
namespace {

constexpr const char* kRing4 = "topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n";

// ASTRA-sim's regression test tests/rt_template (inputs/network_cfg.yml, inputs/system_cfg.json,
// refs/stdout.txt: "sys[0] finished, 117780 cycles"): 1 MB all-reduce on a ring of 8 at 50 GB/s,
// 500 ns, 4 splits, 1 active chunk, local-mem-bw 50. Its reference comes from the
// congestion-aware binary, but a one-chunk-at-a-time ring sends one message per link at a time,
// so the congestion-unaware backend gives the same. By hand: chunk 262144 B, messages 32768 B:
// T = floor(500 + 610.3515625) = 1110; R = 3 * floor(32768 / 50 = 655.36) = 1965;
// phase = 10 + 14 * 1120 + 7 * 1965 = 29445; four chunks one after the other: 117780.
TEST(AstraTimes, RegressionTemplateOfAstraSim) {
  const std::string system =
      "{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10, \"active-chunks-per-dimension\": 1,"
      " \"preferred-dataset-splits\": 4, \"all-reduce-implementation\": [\"ring\"],"
      " \"all-gather-implementation\": [\"ring\"], \"reduce-scatter-implementation\": [\"ring\"],"
      " \"all-to-all-implementation\": [\"ring\"], \"collective-optimization\": \"localBWAware\","
      " \"local-mem-bw\": 50, \"boost-mode\": 0}";
  EXPECT_EQ(117780, CollectiveNs("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n",
                                 system, "all_reduce", "1048576"));
}

TEST(AstraTimes, RingAllReduceOneDimension) {
  // 4 NPUs: messages 262144 B at 100 GB/s (2441.40625 ns), 1 hop of 50: T = 2491.
  // 10 + 6 x (2491 + 10) = 15016.
  EXPECT_EQ(15016, CollectiveNs(kRing4, System("[\"ring\"]"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, RingAllReduceTruncatesEachMemoryPass) {
  // As above, and each of the 3 reduce-scatter receipts reduces 262144 B at local-mem-bw 50:
  // 3 x floor(262144 / 50 = 5242.88) = 15726 (not floor(3 x 5242.88) = 15728).
  // 15016 + 3 x 15726 = 62194.
  EXPECT_EQ(62194, CollectiveNs(kRing4, System("[\"ring\"]", ", \"local-mem-bw\": 50"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, RingAllToAllSendsHalfNSquaredMessages) {
  // ASTRA-sim's ring all-to-all sends n(n-1)/2 = 6 messages of 262144 B to the neighbour, one
  // at a time: 10 + 6 x (2491 + 10) = 15016 (hfsim's reading before had 3 x 2501).
  EXPECT_EQ(15016, CollectiveNs(kRing4, System("[\"ring\"]"), "all_to_all", "1MiB"));
  // 8 NPUs: 28 messages of 131072 B (1220.703125 ns): 10 + 28 x (1270 + 10) = 35850.
  EXPECT_EQ(35850, CollectiveNs("topology: [Ring]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [50]\n",
                                System("[\"ring\"]"), "all_to_all", "1MiB"));
}

TEST(AstraTimes, FullyConnectedDirectReduceScatter) {
  // Three messages of 262144 B at once, 1 hop of 500: T = floor(500 + 2441.40625) = 2941;
  // each receipt reduces its 262144 B on its own: 3 x floor(5242.88) = 15726.
  // 10 + 2941 + 10 + 15726 = 18687.
  EXPECT_EQ(18687, CollectiveNs("topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [500]\n",
                                System("[\"direct\"]", ", \"local-mem-bw\": 50"), "reduce_scatter", "1MiB"));
}

TEST(AstraTimes, FullyConnectedDirectAllReduceWaitsForEveryReceipt) {
  // Reduce-scatter half as above up to the reductions (2961 + 15726 = 18687), then the three
  // all-gather messages (2941) and a last endpoint delay: 18687 + 2941 + 10 = 21638.
  EXPECT_EQ(21638, CollectiveNs("topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [500]\n",
                                System("[\"direct\"]", ", \"local-mem-bw\": 50"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, RingDirectWaitsForTheFarthestPeer) {
  // Direct on a ring of 8 (100 GB/s, 50 ns): messages of 131072 B (1220.703125) to peers 1..7
  // away, at most 4 hops: T = floor(200 + 1220.703125) = 1420. 10 + 1420 + 10 = 1440.
  EXPECT_EQ(1440, CollectiveNs("topology: [Ring]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [50]\n",
                               System("[\"direct\"]"), "all_to_all", "1MiB"));
}

TEST(AstraTimes, SwitchHalvingDoublingAllGather) {
  // hfsim's 1 MiB all-gather output is ASTRA-sim's 131072 B input on 8 NPUs. Recursive doubling:
  // 131072 B to 4 away, 262144 B to 2, 524288 B to 1 (1220.703125, 2441.40625, 4882.8125 ns),
  // each 2 hops of 2000: 10 + (5220 + 10) + (6441 + 10) + (8882 + 10) = 20583.
  EXPECT_EQ(20583, CollectiveNs("topology: [Switch]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [2000]\n",
                                System("[\"halvingDoubling\"]"), "all_gather", "1MiB"));
}

TEST(AstraTimes, HalvingDoublingReducesTheNextMessage) {
  // Reduce-scatter of 1 MiB on a switch of 8 (100 GB/s, 2000 ns, local-mem-bw 50): messages
  // 524288, 262144, 131072 B (T = 8882, 6441, 5220). ASTRA-sim charges the reduction after a
  // receipt on the message that receipt releases: 262144 B after the first (3 x floor(5242.88)
  // = 15726), 131072 B after the second (3 x floor(2621.44) = 7863), none after the last.
  // 10 + (8882 + 10 + 15726) + (6441 + 10 + 7863) + (5220 + 10) = 44172.
  EXPECT_EQ(44172, CollectiveNs("topology: [Switch]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [2000]\n",
                                System("[\"halvingDoubling\"]", ", \"local-mem-bw\": 50"), "reduce_scatter",
                                "1MiB"));
}

TEST(AstraTimes, SwitchDirectAllToAll) {
  // Seven messages of 131072 B (1220.703125 ns) over 2 hops of 2000 at once: 10 + 5220 + 10.
  EXPECT_EQ(5240, CollectiveNs("topology: [Switch]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [2000]\n",
                               System("[\"direct\"]"), "all_to_all", "1MiB"));
}

constexpr const char* kTwoDims =
    "topology: [Ring, Switch]\nnpus_count: [4, 4]\nbandwidth: [200, 50]\nlatency: [50, 500]\n";

TEST(AstraTimes, TwoDimensionLocalBWAwareAllReduce) {
  // RS on the ring (1 MiB): messages 262144 B at 200 GB/s (1220.703125) + 50: T = 1270;
  //   10 + 3 x 1280 = 3850, leaving 262144 B.
  // AR on the switch (262144 B): messages 65536 B at 50 GB/s (1220.703125) + 2 x 500: T = 2220;
  //   10 + 6 x 2230 = 13390.
  // AG on the ring: its input 262144 B whole per message: T = 1270; 10 + 3 x 1280 = 3850.
  EXPECT_EQ(3850 + 13390 + 3850, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, TwoDimensionBaselineAllReduce) {
  // baseline: the whole 1 MiB all-reduced on each dimension. Ring: 10 + 6 x 1280 = 7690.
  // Switch: messages of 262144 B at 50 GB/s (4882.8125) + 1000: 10 + 6 x 5892 = 35362.
  EXPECT_EQ(7690 + 35362, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]", "", 1, 1, "baseline"),
                                       "all_reduce", "1MiB"));
}

TEST(AstraTimes, TwoDimensionAllGatherAndAllToAll) {
  // All-gather: ASTRA-sim's input is 1 MiB / 16 = 65536 B; the switch first (messages 65536 B:
  // 10 + 3 x 2230 = 6700), then the ring on its 262144 B (10 + 3 x 1280 = 3850).
  EXPECT_EQ(6700 + 3850, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_gather", "1MiB"));
  // All-to-all: 1 MiB on each, 6 messages of 262144 B: ring 10 + 6 x 1280 = 7690, switch
  // 10 + 6 x 5892 = 35362.
  EXPECT_EQ(7690 + 35362, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_to_all", "1MiB"));
}

constexpr const char* kThreeDims =
    "topology: [Ring, FullyConnected, Switch]\nnpus_count: [2, 4, 2]\n"
    "bandwidth: [200, 100, 50]\nlatency: [50, 500, 1000]\n";

// Phase times for one chunk of 1 MiB (2 MiB in 2 splits):
//   RS/AG ring on the 2-ring: 1 message of 524288 B at 200 GB/s (2441.40625) + 50:
//     10 + (2491 + 10) = 2511.
//   RS direct on the FC-4 (524288 B): messages of 131072 B at 100 (1220.703125) + 500:
//     10 + 1720 + 10 = 1740; AG direct on its 131072 B input, whole: the same 1740.
//   AR ring on the 2-switch (131072 B): 2 messages of 65536 B at 50 (1220.703125) + 2 x 1000:
//     10 + 2 x (3220 + 10) = 6470.
TEST(AstraTimes, ThreeDimensionsOneActiveChunkPerDimension) {
  // Two chunks, one at a time per dimension:
  //   chunk 0: RS0 [0,2511] RS1 [2511,4251] AR2 [4251,10721] AG1 [10721,12461] AG0 [12461,14972]
  //   chunk 1: RS0 [2511,5022] RS1 [5022,6762] AR2 waits: [10721,17191] AG1 [17191,18931]
  //            AG0 [18931,21442]
  EXPECT_EQ(21442, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]", "", 2, 1),
                                "all_reduce", "2MiB"));
}

TEST(AstraTimes, ThreeDimensionsChunksInParallelWhenActiveAllows) {
  // With 2 active chunks per dimension and no congestion, both chunks run side by side:
  // 2511 + 1740 + 6470 + 1740 + 2511.
  EXPECT_EQ(14972, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]", "", 2, 2),
                                "all_reduce", "2MiB"));
}

TEST(AstraTimes, ThreeDimensionsReduceScatter) {
  // One chunk of 2 MiB: ring on the 2-ring, 1 message of 1 MiB at 200 (4882.8125) + 50:
  // 10 + 4942 = 4952; direct on the FC (1 MiB): 262144 B at 100 (2441.40625) + 500:
  // 10 + 2941 + 10 = 2961; ring on the switch (256 KiB): 1 message of 131072 B at 50
  // (2441.40625) + 2 x 1000: 10 + 4451 = 4461.
  EXPECT_EQ(4952 + 2961 + 4461, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]"),
                                             "reduce_scatter", "2MiB"));
}

TEST(AstraTimes, FourDimensionsLocalBWAwareAllReduce) {
  // Ring 2 x FullyConnected 2 x Switch 2 x Ring 2, all at 100 GB/s (link figures) and 100 ns,
  // ring everywhere, 1 MiB, local-mem-bw 100. Every phase has n = 2 (one hop on each: Switch 2).
  //   RS d0: 1 message of 524288 B (4882.8125): T = 4982; R = 3 x floor(5242.88) = 15726:
  //     10 + 4992 + 15726 = 20728; leaves 524288.
  //   RS d1: 262144 B (2441.40625): T = 2541; R = 3 x floor(2621.44) = 7863: 10 + 2551 + 7863
  //     = 10424; leaves 262144.
  //   RS d2: 131072 B (1220.703125), 2 hops: T = 1420; R = 3 x floor(1310.72) = 3930:
  //     10 + 1430 + 3930 = 5370; leaves 131072.
  //   AR d3: 2 messages of 65536 B (610.3515625): T = 710; R = 3 x floor(655.36) = 1965:
  //     10 + 2 x 720 + 1965 = 3415.
  //   AG d2 (131072 B whole): 10 + 1430 = 1440; AG d1 (262144 B): 10 + 2551 = 2561;
  //   AG d0 (524288 B): 10 + 4992 = 5002.
  EXPECT_EQ(20728 + 10424 + 5370 + 3415 + 1440 + 2561 + 5002,
            CollectiveNs("topology: [Ring, FullyConnected, Switch, Ring]\nnpus_count: [2, 2, 2, 2]\n"
                         "bandwidth: [100, 100, 100, 100]\nlatency: [100, 100, 100, 100]\n",
                         System("[\"ring\", \"ring\", \"ring\", \"ring\"]", ", \"local-mem-bw\": 100"),
                         "all_reduce", "1MiB"));
}

TEST(AstraTimes, UnevenSplitsAddAWholeLastChunk) {
  // Ring all-gather of 1 MiB on 4 NPUs (100 GB/s, 50 ns) in 3 splits: ASTRA-sim's input is
  // 262144 B, chunks of floor(262144 / 3) = 87381 B, and the byte left over (262144 =
  // 3 x 87381 + 1) makes a fourth whole chunk. Messages of 87381 B (813.7989... ns):
  // T = 863; phase 10 + 3 x 873 = 2629; four chunks one at a time: 10516.
  EXPECT_EQ(10516, CollectiveNs(kRing4, System("[\"ring\"]", "", 3, 1), "all_gather", "1MiB"));
}

TEST(AstraTimes, TinyChunksGrowToOneBytePerNpu) {
  // 8 B all-reduce in 4 splits on a ring of 4 (100 GB/s, 50 ns): chunks of 2 B are below one
  // byte per NPU, so ASTRA-sim prices 4 chunks of 4 B: messages of 1 B (0.0093 ns): T = 50;
  // phase 10 + 6 x 60 = 370; four chunks one at a time: 1480.
  EXPECT_EQ(1480, CollectiveNs(kRing4, System("[\"ring\"]", "", 4, 1), "all_reduce", "8"));
}

TEST(AstraTimes, RingOf4096Npus) {
  // 64 MiB in 4 splits on a ring of 4,096 (100 GB/s, 50 ns, local-mem-bw 50): chunks of
  // 16777216 B, messages of 4096 B (38.14697265625 ns): T = 88; R = 3 x floor(81.92) = 243;
  // phase 10 + 8190 x (88 + 10) + 4095 x 243 = 1797715; four chunks one at a time: 7190860.
  EXPECT_EQ(7190860, CollectiveNs("topology: [Ring]\nnpus_count: [4096]\nbandwidth: [100]\nlatency: [50]\n",
                                  System("[\"ring\"]", ", \"local-mem-bw\": 50", 4, 1), "all_reduce", "64MiB"));
}

TEST(AstraTimes, TrainingWorkloadPricesItsAllReducesAsTheSingleCollective) {
  const std::string dir = HFSIM_SOURCE_DIR "/configs/astra-sim/";
  auto document = ImportAstraSim(AstraInputs{dir + "ring-fc-switch.yml", dir + "system.json",
                                             dir + "gpt2-medium-workload.json", "", ""});
  ASSERT_TRUE(document) << document.Error().ToString();
  auto scenario = ParseScenario(document.Value());
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  const Report report = AnalyticalEngine().Run(scenario.Value());
  ASSERT_FALSE(report.collectives.empty());
  const CollectiveReport& gradient = report.collectives.front();
  EXPECT_EQ(CollectiveKind::kAllReduce, gradient.kind);
  std::ifstream network(dir + "ring-fc-switch.yml"), system(dir + "system.json");
  std::stringstream network_text, system_text;
  network_text << network.rdbuf();
  system_text << system.rdbuf();
  EXPECT_EQ(gradient.time_ns, CollectiveNs(network_text.str(), system_text.str(), "all_reduce",
                                           std::to_string(gradient.size_bytes)));
}

}  // namespace
}  // namespace hfsim::testing
