// Collective times of imported ASTRA-sim inputs under "pricing": "astra_sim", against values
// worked out by hand from ASTRA-sim's documented semantics (docs/astra-sim.md §3):
//   message = floor(hops * latency + bytes / (GB/s * 2^30 / 1e9)),  step = message + 10 ns
//   endpoint delay (+ floor(3 * reduced bytes / local-mem-bw) for reduction steps).
// Bandwidths are chosen so that no message time is a whole number (1 MiB / 4 at 100 GB/s is
// 262144 * 1e9 / (100 * 2^30) = 2441.40625 ns), so floors are unambiguous.
#include <cmath>
#include <sstream>

#include "tests/import/astra-test-util.h"

namespace hfsim::testing {
namespace {

TEST(AstraTimes, RingAllReduceOneDimension) {
  // 4 NPUs, ring: 2 x 3 steps of 1 MiB / 4 = 262144 B at 100 GB/s (2441.40625 ns), 1 hop of 50.
  const double expected = 6 * (std::floor(50 + 2441.40625) + 10);  // 6 x 2501 = 15006
  EXPECT_EQ(15006, expected);
  EXPECT_EQ(expected, CollectiveNs("topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n",
                                   System("[\"ring\"]"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, RingAllReduceChargesThreeReductionPasses) {
  // As above, and each of the 3 reduce-scatter steps reads 2 and writes 1 copy of 262144 B at
  // local-mem-bw 50 GB/s (10^9 B): floor(3 * 262144 / 50) = floor(15728.64) = 15728.
  const double expected = 3 * (2501 + 15728) + 3 * 2501;  // 62190
  EXPECT_EQ(62190, expected);
  EXPECT_EQ(expected, CollectiveNs("topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n",
                                   System("[\"ring\"]", ", \"local-mem-bw\": 50"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, RingAllToAllRelaysAlongTheRing) {
  // 3 steps of 262144 B, 1 hop each.
  EXPECT_EQ(3 * 2501, CollectiveNs("topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n",
                                   System("[\"ring\"]"), "all_to_all", "1MiB"));
}

TEST(AstraTimes, FullyConnectedDirectReduceScatter) {
  // One step: 3 messages of 262144 B at the per-link 100 GB/s, 1 hop of 500 ns, in parallel:
  // floor(500 + 2441.40625) = 2941; + 10; reduction of 3 x 262144 B, 3 passes at 50:
  // floor(3 * 786432 / 50) = floor(47185.92) = 47185.
  const double expected = 2941 + 10 + 47185;  // 50136
  EXPECT_EQ(expected, CollectiveNs("topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [500]\n",
                                   System("[\"direct\"]", ", \"local-mem-bw\": 50"), "reduce_scatter", "1MiB"));
}

TEST(AstraTimes, SwitchHalvingDoublingAllGather) {
  // 8 NPUs; recursive doubling: messages 1 MiB / 8, / 4, / 2 (1220.703125, 2441.40625,
  // 4882.8125 ns at 100 GB/s), each 2 hops of 2000 ns, + 10.
  const double expected = (5220 + 10) + (6441 + 10) + (8882 + 10);  // 20573
  EXPECT_EQ(std::floor(4000 + 1220.703125) + std::floor(4000 + 2441.40625) + std::floor(4000 + 4882.8125) + 30,
            expected);
  EXPECT_EQ(expected, CollectiveNs("topology: [Switch]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [2000]\n",
                                   System("[\"halvingDoubling\"]"), "all_gather", "1MiB"));
}

TEST(AstraTimes, SwitchDirectAllToAll) {
  // One step: 7 messages of 131072 B (1220.703125 ns) over 2 hops of 2000 ns, in parallel.
  EXPECT_EQ(5220 + 10, CollectiveNs("topology: [Switch]\nnpus_count: [8]\nbandwidth: [100]\nlatency: [2000]\n",
                                    System("[\"direct\"]"), "all_to_all", "1MiB"));
}

constexpr const char* kTwoDims =
    "topology: [Ring, Switch]\nnpus_count: [4, 4]\nbandwidth: [200, 50]\nlatency: [50, 500]\n";

TEST(AstraTimes, TwoDimensionLocalBWAwareAllReduce) {
  // RS on the ring (1 MiB): 3 x (floor(50 + 262144 B at 200 GB/s = 1220.703125) + 10) = 3 x 1280.
  // AR on the switch (1 MiB / 4): 6 x (floor(2 x 500 + 65536 B at 50 GB/s = 1220.703125) + 10)
  //   = 6 x 2230. AG on the ring: 3 x 1280.
  EXPECT_EQ(3840 + 13380 + 3840, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_reduce", "1MiB"));
}

TEST(AstraTimes, TwoDimensionBaselineAllReduce) {
  // baseline: the whole 1 MiB all-reduced on each dimension. Ring: 6 x 1280. Switch: messages of
  // 262144 B at 50 GB/s = 4882.8125 ns: 6 x (floor(1000 + 4882.8125) + 10) = 6 x 5892.
  EXPECT_EQ(7680 + 35352, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]", "", 1, 1, "baseline"),
                                       "all_reduce", "1MiB"));
}

TEST(AstraTimes, TwoDimensionAllGatherAndAllToAll) {
  // All-gather: the switch first on 1 MiB / 4 (3 x 2230), then the ring on 1 MiB (3 x 1280).
  EXPECT_EQ(6690 + 3840, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_gather", "1MiB"));
  // All-to-all: 1 MiB on each: ring 3 x 1280, switch 3 x 5892.
  EXPECT_EQ(3840 + 17676, CollectiveNs(kTwoDims, System("[\"ring\", \"ring\"]"), "all_to_all", "1MiB"));
}

constexpr const char* kThreeDims =
    "topology: [Ring, FullyConnected, Switch]\nnpus_count: [2, 4, 2]\n"
    "bandwidth: [200, 100, 50]\nlatency: [50, 500, 1000]\n";

// Stage times for one chunk of 1 MiB (2 MiB in 2 splits):
//   RS/AG on the 2-ring: 1 step of 524288 B at 200 GB/s (2441.40625), 1 hop: 2491 + 10 = 2501.
//   RS/AG direct on the FC-4 (512 KiB): messages of 131072 B at 100 (1220.703125), 1 hop of
//     500: 1720 + 10 = 1730.
//   AR ring on the 2-switch (128 KiB): 2 steps of 65536 B at 50 (1220.703125), 2 hops of
//     1000: 2 x (3220 + 10) = 6460.
TEST(AstraTimes, ThreeDimensionsOneActiveChunkPerDimension) {
  // Two chunks, one at a time per dimension:
  //   chunk 0: RS0 [0,2501] RS1 [2501,4231] AR2 [4231,10691] AG1 [10691,12421] AG0 [12421,14922]
  //   chunk 1: RS0 [2501,5002] RS1 [5002,6732] AR2 waits: [10691,17151] AG1 [17151,18881]
  //            AG0 [18881,21382]
  EXPECT_EQ(21382, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]", "", 2, 1),
                                "all_reduce", "2MiB"));
}

TEST(AstraTimes, ThreeDimensionsChunksInParallelWhenActiveAllows) {
  // With 2 active chunks per dimension and no congestion, both chunks run side by side:
  // 2501 + 1730 + 6460 + 1730 + 2501.
  EXPECT_EQ(14922, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]", "", 2, 2),
                                "all_reduce", "2MiB"));
}

TEST(AstraTimes, ThreeDimensionsReduceScatter) {
  // One chunk of 2 MiB: RS on the ring: 1 step of 1 MiB at 200 (4882.8125): 4932 + 10;
  // direct on the FC (1 MiB): 262144 B at 100 (2441.40625) + 500: 2941 + 10; ring on the switch
  // (256 KiB): 1 step of 131072 B at 50 (2441.40625) + 2 x 1000: 4441 + 10.
  EXPECT_EQ(4942 + 2951 + 4451, CollectiveNs(kThreeDims, System("[\"ring\", \"direct\", \"ring\"]"),
                                             "reduce_scatter", "2MiB"));
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
