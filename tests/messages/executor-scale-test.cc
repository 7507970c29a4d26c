// The executor at the scale it is built for: a 4-D all-reduce on 1024 NPUs with 4 chunks in
// the regular suite, and LIBRA's 4096-NPU size with 16 chunks as a disabled test to run by hand
// (--gtest_also_run_disabled_tests): both print messages, events, wall time and peak memory.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

#include "tests/messages/executor-test-util.h"

namespace hfsim {
namespace {

// Peak resident memory of this process so far, in MiB (Linux), or -1.
double PeakMemoryMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1.0;
}

void RunAllReduce(std::vector<Dimension> dims, uint32_t chunks, bool verify) {
  test::FakeTransportOptions transport;
  transport.channel = test::DimensionChannels(Topology(dims));
  const CommunicationSpec spec = test::DefaultSpec(Topology(dims), chunks);
  test::ExecutorHarness h(dims, spec, transport, {.verify = verify});
  const auto start = std::chrono::steady_clock::now();
  const CollectiveId id = h.RunOne(CollectiveKind::kAllReduce, uint64_t{64} << 20, {0, 1, 2, 3});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  h.ExpectClean(id);
  const CollectiveStats& stats = h.executor.Stats(id);
  std::cout << h.topology.NpuCount() << " NPUs, " << chunks << " chunks"
            << (verify ? ", verified" : "") << ": " << stats.messages_delivered << " messages, "
            << stats.DurationNs() << " simulated ns, " << seconds << " s wall, peak "
            << PeakMemoryMiB() << " MiB\n";
}

TEST(ExecutorScale, FourDimAllReduceOn1024Npus) {
  RunAllReduce({{DimensionKind::kRing, 4, 200.0, 20.0},
                {DimensionKind::kFullyConnected, 8, 150.0, 50.0},
                {DimensionKind::kRing, 4, 100.0, 100.0},
                {DimensionKind::kSwitch, 8, 50.0, 500.0}},
               4, /*verify=*/true);
}

TEST(ExecutorScale, DISABLED_FourDimAllReduceOn4096NpusWith16Chunks) {
  RunAllReduce({{DimensionKind::kRing, 8, 200.0, 20.0},
                {DimensionKind::kFullyConnected, 8, 150.0, 50.0},
                {DimensionKind::kRing, 8, 100.0, 100.0},
                {DimensionKind::kSwitch, 8, 50.0, 500.0}},
               16, /*verify=*/false);
}

}  // namespace
}  // namespace hfsim
