// A collective executor on the fake network, and the communication specs the tests use.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/messages/collective-executor.h"
#include "sim/scenario/scenario.h"
#include "tests/messages/fake-network.h"

namespace hfsim::test {

/// The scenario defaults: direct on FullyConnected dimensions, ring elsewhere, for every kind.
inline CommunicationSpec DefaultSpec(const Topology& topology, uint32_t chunks = 1,
                                     MultiDimScheme scheme = MultiDimScheme::kHierarchical) {
  CommunicationSpec spec;
  spec.scheme = scheme;
  spec.chunks = chunks;
  for (auto& list : spec.algorithms) {
    for (const Dimension& dim : topology.Dimensions()) {
      list.push_back(dim.kind == DimensionKind::kFullyConnected ? CollectiveAlgorithm::kDirect
                                                                : CollectiveAlgorithm::kRing);
    }
  }
  return spec;
}

constexpr CollectiveKind kAllKinds[] = {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                        CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
constexpr CollectiveAlgorithm kAllAlgorithms[] = {
    CollectiveAlgorithm::kRing, CollectiveAlgorithm::kDirect, CollectiveAlgorithm::kHalvingDoubling,
    CollectiveAlgorithm::kDoubleBinaryTree};

/// Serialised per source with a little latency, and same-time events shuffled: NPUs drift
/// apart, messages overtake each other and arrive before their receivers reach their steps.
inline FakeTransportOptions ShakyTransport(uint64_t seed) {
  FakeTransportOptions options;
  options.latency_ns = 3.0;
  options.bandwidth_Bpns = 2.0;
  options.serialise_per_source = true;
  options.shuffle_equal_times = true;
  options.seed = seed;
  return options;
}

/// Everything one executor run needs, wired together.
struct ExecutorHarness {
  ExecutorHarness(std::vector<Dimension> dimensions, const CommunicationSpec& spec,
                  FakeTransportOptions transport_options, ExecutorOptions options = {})
      : topology(std::move(dimensions)),
        transport(clock, std::move(transport_options)),
        executor(topology, spec, clock, transport, options) {}

  /// Every NPU enters one new collective at time 0 (or at enter_ns[npu]); runs the clock dry.
  /// Returns the collective's id; done_ns[npu] is when each NPU's part finished.
  CollectiveId RunOne(CollectiveKind kind, uint64_t size_bytes, std::vector<uint32_t> dims,
                      const std::vector<double>& enter_ns = {}) {
    const CollectiveId id = executor.Create(kind, size_bytes, std::move(dims));
    done_ns.assign(topology.NpuCount(), -1.0);
    for (uint64_t npu = 0; npu < topology.NpuCount(); ++npu) {
      auto enter = [this, id, npu] {
        executor.Enter(id, npu, [this, npu] { done_ns[npu] = clock.NowNs(); });
      };
      if (enter_ns.empty()) {
        enter();
      } else {
        clock.ScheduleNs(enter_ns[npu], enter);
      }
    }
    clock.Run();
    return id;
  }

  /// Expects a clean run: everything finished, conserved and (if on) verified.
  void ExpectClean(CollectiveId id) {
    EXPECT_TRUE(executor.CheckComplete());
    for (const std::string& error : executor.Errors()) ADD_FAILURE() << error;
    const CollectiveStats& stats = executor.Stats(id);
    EXPECT_TRUE(executor.Finished(id));
    EXPECT_EQ(stats.npus_done, topology.NpuCount());
    EXPECT_EQ(stats.bytes_delivered, stats.bytes_scheduled);
    EXPECT_EQ(stats.bytes_sent, stats.bytes_scheduled);
    EXPECT_EQ(stats.messages_delivered, stats.messages_scheduled);
    EXPECT_EQ(stats.messages_acknowledged, stats.messages_scheduled);
    EXPECT_EQ(stats.reductions_performed, stats.reductions_scheduled);
  }

  Topology topology;
  EventLoop clock;
  FakeTransport transport;
  CollectiveExecutor executor;
  std::vector<double> done_ns;
};

}  // namespace hfsim::test
