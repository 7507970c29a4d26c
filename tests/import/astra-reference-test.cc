// astra_sim pricing against times printed by ASTRA-sim itself ("sys[0] finished, N cycles") for
// the same network YAML, system JSON and one collective: ASTRA-sim's congestion-unaware
// analytical binary (AstraSim_Analytical_Congestion_Unaware) built from astra-sim/astra-sim
// commit f66c1da with its submodules astra-network-analytical 599a047 and chakra 214f2c5, fed
// Chakra traces of one collective node per NPU (comm_size as below, involved_dim all true).
// The cases are a spread of Ring, FullyConnected and Switch dimensions, 1 to 4 of them, 2 to
// 4,096 NPUs, the four collectives, ring / direct / halvingDoubling, splits and active chunks,
// baseline and localBWAware, with and without local-mem-bw; docs/astra-sim.md §4.5.
// hfsim's all-gather size is its output: ASTRA-sim's comm_size times the NPUs.
#include <string>

#include "tests/import/astra-test-util.h"

namespace hfsim::testing {
namespace {

struct Reference {
  double astra_ns;
  const char* network;
  const char* implementations;
  const char* extra;  // "" or the local-mem-bw entry
  int endpoint_delay;
  int splits;
  int active;
  const char* optimization;
  const char* kind;
  uint64_t hfsim_size;
};

std::string SystemOf(const Reference& r) {
  const std::string implementations = r.implementations;
  return "{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": " + std::to_string(r.endpoint_delay) +
         ", \"active-chunks-per-dimension\": " + std::to_string(r.active) +
         ", \"preferred-dataset-splits\": " + std::to_string(r.splits) +
         ", \"all-reduce-implementation\": " + implementations +
         ", \"reduce-scatter-implementation\": " + implementations +
         ", \"all-gather-implementation\": " + implementations +
         ", \"all-to-all-implementation\": " + implementations +
         ", \"collective-optimization\": \"" + r.optimization + "\"" + r.extra + "}";
}

TEST(AstraReference, SameTimesAsTheAstraSimBinary) {
  const Reference references[] = {
    {64937, "topology: [Ring, FullyConnected, Switch, Ring]\nnpus_count: [3, 2, 8, 8]\nbandwidth: [200.0, 100.0, 25.0, 200.0]\nlatency: [500.0, 0.0, 2000.0, 2000.0]\n",
     "[\"direct\", \"ring\", \"direct\", \"halvingDoubling\"]", "", 1, 4, 1, "localBWAware", "reduce_scatter", 4194304},
    {46158, "topology: [Ring, Switch, FullyConnected, FullyConnected]\nnpus_count: [4, 6, 3, 4]\nbandwidth: [25.0, 333.3, 150.0, 12.5]\nlatency: [500.0, 2000.0, 500.0, 0.0]\n",
     "[\"halvingDoubling\", \"ring\", \"ring\", \"direct\"]", ", \"local-mem-bw\": 12.5", 37, 2, 4, "baseline", "all_reduce", 999},
    {8846869, "topology: [FullyConnected, Switch, FullyConnected]\nnpus_count: [32, 3, 4]\nbandwidth: [150.0, 25.0, 333.3]\nlatency: [700.5, 0.0, 0.0]\n",
     "[\"halvingDoubling\", \"ring\", \"direct\"]", ", \"local-mem-bw\": 12.5", 10, 1, 1, "localBWAware", "all_reduce", 67108864},
    {15624, "topology: [Ring, Switch, FullyConnected]\nnpus_count: [6, 4, 2]\nbandwidth: [200.0, 50.0, 200.0]\nlatency: [50.0, 50.0, 2000.0]\n",
     "[\"ring\", \"direct\", \"halvingDoubling\"]", ", \"local-mem-bw\": 333", 10, 4, 1, "localBWAware", "reduce_scatter", 1048576},
    {23391, "topology: [Switch, Switch, Ring, FullyConnected]\nnpus_count: [4, 2, 4, 12]\nbandwidth: [333.3, 200.0, 12.5, 150.0]\nlatency: [500.0, 700.5, 500.0, 500.0]\n",
     "[\"direct\", \"halvingDoubling\", \"direct\", \"direct\"]", ", \"local-mem-bw\": 12.5", 10, 4, 1, "localBWAware", "all_gather", 4740480},
    {19321576, "topology: [FullyConnected, FullyConnected, Switch]\nnpus_count: [8, 3, 3]\nbandwidth: [12.5, 12.5, 150.0]\nlatency: [500.0, 700.5, 50.0]\n",
     "[\"ring\", \"direct\", \"direct\"]", "", 37, 1, 1, "localBWAware", "all_to_all", 67108864},
    {944220, "topology: [Ring, Ring]\nnpus_count: [5, 8]\nbandwidth: [150.0, 150.0]\nlatency: [700.5, 2000.0]\n",
     "[\"ring\", \"halvingDoubling\"]", ", \"local-mem-bw\": 1600", 10, 2, 1, "baseline", "all_gather", 167772160},
    {16296, "topology: [Ring]\nnpus_count: [4]\nbandwidth: [200.0]\nlatency: [500.0]\n",
     "[\"direct\"]", ", \"local-mem-bw\": 333", 10, 7, 1, "baseline", "all_reduce", 12345},
    {340840, "topology: [FullyConnected]\nnpus_count: [16]\nbandwidth: [50.0]\nlatency: [700.5]\n",
     "[\"ring\"]", ", \"local-mem-bw\": 12.5", 10, 7, 2, "localBWAware", "all_to_all", 999},
    {8922, "topology: [Ring]\nnpus_count: [2]\nbandwidth: [100.0]\nlatency: [2000.0]\n",
     "[\"halvingDoubling\"]", "", 10, 2, 1, "baseline", "reduce_scatter", 1048576},
    {1638824, "topology: [Ring]\nnpus_count: [32]\nbandwidth: [150.0]\nlatency: [700.5]\n",
     "[\"ring\"]", ", \"local-mem-bw\": 1600", 10, 7, 2, "baseline", "all_to_all", 4194304},
    {143552, "topology: [Switch]\nnpus_count: [16]\nbandwidth: [100.0]\nlatency: [2000.0]\n",
     "[\"halvingDoubling\"]", ", \"local-mem-bw\": 333", 10, 7, 1, "localBWAware", "reduce_scatter", 1048576},
    {6, "topology: [Switch]\nnpus_count: [2]\nbandwidth: [150.0]\nlatency: [0.0]\n",
     "[\"direct\"]", ", \"local-mem-bw\": 1600", 1, 3, 2, "localBWAware", "all_to_all", 999},
    {34616, "topology: [FullyConnected]\nnpus_count: [8]\nbandwidth: [12.5]\nlatency: [0.0]\n",
     "[\"halvingDoubling\"]", ", \"local-mem-bw\": 1600", 10, 4, 2, "baseline", "reduce_scatter", 1048576},
    {3635, "topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100.0]\nlatency: [700.5]\n",
     "[\"direct\"]", ", \"local-mem-bw\": 50", 10, 4, 1, "localBWAware", "all_to_all", 12345},
    {999, "topology: [Switch]\nnpus_count: [5]\nbandwidth: [150.0]\nlatency: [0.0]\n",
     "[\"ring\"]", ", \"local-mem-bw\": 1600", 37, 3, 1, "baseline", "all_reduce", 999},
    // 8 x 8 x 8 x 8 = 4,096 NPUs.
    {2074561, "topology: [Switch, Switch, Switch, Switch]\nnpus_count: [8, 8, 8, 8]\nbandwidth: [200.0, 100.0, 50.0, 25.0]\nlatency: [50.0, 500.0, 700.5, 2000.0]\n",
     "[\"ring\", \"direct\", \"halvingDoubling\", \"ring\"]", ", \"local-mem-bw\": 50", 10, 4, 2, "localBWAware", "all_reduce", 67108864},
    {457846, "topology: [Ring, FullyConnected, Switch, Ring]\nnpus_count: [8, 8, 8, 8]\nbandwidth: [200.0, 100.0, 50.0, 25.0]\nlatency: [50.0, 500.0, 700.5, 2000.0]\n",
     "[\"halvingDoubling\", \"direct\", \"ring\", \"direct\"]", ", \"local-mem-bw\": 1600", 10, 3, 1, "baseline", "reduce_scatter", 67108864},
    {1514560, "topology: [Ring, FullyConnected, Switch, Ring]\nnpus_count: [8, 8, 8, 8]\nbandwidth: [200.0, 100.0, 50.0, 25.0]\nlatency: [50.0, 500.0, 700.5, 2000.0]\n",
     "[\"ring\", \"direct\", \"ring\", \"direct\"]", "", 10, 4, 4, "localBWAware", "all_to_all", 67108864},
    {314220, "topology: [Ring, FullyConnected, Switch, Ring]\nnpus_count: [8, 8, 8, 8]\nbandwidth: [200.0, 100.0, 50.0, 25.0]\nlatency: [50.0, 500.0, 700.5, 2000.0]\n",
     "[\"halvingDoubling\", \"direct\", \"ring\", \"halvingDoubling\"]", "", 10, 2, 1, "localBWAware", "all_gather", 67108864},
    // One-dimensional rings: 1,024 NPUs all-reducing 64 MiB, 256 NPUs all-to-all (n(n-1)/2
    // messages each).
    {5391220, "topology: [Ring]\nnpus_count: [1024]\nbandwidth: [100.0]\nlatency: [50.0]\n",
     "[\"ring\"]", ", \"local-mem-bw\": 50", 10, 1, 1, "localBWAware", "all_reduce", 67108864},
    {21868810, "topology: [Ring]\nnpus_count: [256]\nbandwidth: [100.0]\nlatency: [50.0]\n",
     "[\"ring\"]", ", \"local-mem-bw\": 50", 10, 1, 1, "localBWAware", "all_to_all", 16777216},
  };
  for (const Reference& r : references) {
    EXPECT_EQ(r.astra_ns, CollectiveNs(r.network, SystemOf(r), r.kind, std::to_string(r.hfsim_size)))
        << r.network << SystemOf(r) << " " << r.kind;
  }
}

}  // namespace
}  // namespace hfsim::testing
