// Collectives over part of the fabric (CollectiveMembers): a group of some coordinates of a
// dimension, several dimensions, and groups side by side. Verified symbolically for every kind
// and algorithm; timed against the same collective on a fabric that is exactly the group (on a
// fake network without contention, the two must agree to the bit); NPUs outside stay silent.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "models/collective.h"
#include "tests/messages/executor-test-util.h"

namespace hfsim {
namespace {

using test::DefaultSpec;
using test::ExecutorHarness;
using test::FakeTransportOptions;
using K = CollectiveKind;
using A = CollectiveAlgorithm;

constexpr auto& kKinds = test::kAllKinds;
constexpr auto& kAlgorithms = test::kAllAlgorithms;

// The NPUs of `members` on `topology`, ascending.
std::vector<uint64_t> NpusOf(const Topology& topology, const CollectiveMembers& members) {
  std::vector<uint64_t> npus;
  for (uint64_t npu = 0; npu < topology.NpuCount(); ++npu) {
    bool in = true;
    for (uint32_t d = 0; d < members.coordinates.size(); ++d) {
      const auto& list = members.coordinates[d];
      if (list.empty()) continue;
      in &= std::find(list.begin(), list.end(), topology.Coordinate(npu, d)) != list.end();
    }
    if (in) npus.push_back(npu);
  }
  return npus;
}

// Every member enters at 0; the clock runs dry. Returns the collective's id.
CollectiveId RunGroup(ExecutorHarness& h, K kind, uint64_t size, const CollectiveMembers& members,
                      std::set<uint64_t>* senders = nullptr) {
  const CollectiveId id = h.executor.Create(kind, size, members);
  h.done_ns.assign(h.topology.NpuCount(), -1.0);
  for (uint64_t npu : NpusOf(h.topology, members)) {
    h.executor.Enter(id, npu, [&h, npu] { h.done_ns[npu] = h.clock.NowNs(); });
  }
  h.clock.Run();
  if (senders) {
    for (const auto& [src, dst] : h.transport.Endpoints()) senders->insert(src), senders->insert(dst);
  }
  return id;
}

void ExpectCleanGroup(ExecutorHarness& h, CollectiveId id, uint64_t members) {
  EXPECT_TRUE(h.executor.CheckComplete());
  for (const std::string& error : h.executor.Errors()) ADD_FAILURE() << error;
  const CollectiveStats& stats = h.executor.Stats(id);
  EXPECT_TRUE(h.executor.Finished(id));
  EXPECT_EQ(stats.npus_done, members);
  EXPECT_EQ(stats.bytes_delivered, stats.bytes_scheduled);
  EXPECT_EQ(stats.messages_delivered, stats.messages_scheduled);
  EXPECT_EQ(stats.reductions_performed, stats.reductions_scheduled);
}

TEST(ExecutorGroups, PartOfOneDimensionEveryKindAndAlgorithmVerified) {
  int runs = 0;
  for (DimensionKind dimension :
       {DimensionKind::kRing, DimensionKind::kFullyConnected, DimensionKind::kSwitch}) {
    const std::vector<Dimension> dims{{dimension, 8, 10.0, 1.0}};
    // Strided, contiguous and scattered groups of 2 to 5 of the 8 NPUs.
    for (const std::vector<uint32_t>& group : std::vector<std::vector<uint32_t>>{
             {1, 3, 5, 7}, {0, 1, 2}, {2, 6}, {0, 3, 4, 6, 7}}) {
      for (K kind : kKinds) {
        for (A algorithm : kAlgorithms) {
          const uint32_t k = static_cast<uint32_t>(group.size());
          if (UnsupportedReason(kind, algorithm, k)) continue;
          CommunicationSpec spec = DefaultSpec(Topology(dims));
          spec.algorithms[static_cast<size_t>(kind)][0] = algorithm;
          spec.reduction_Bpns = 5.0;
          ExecutorHarness h(dims, spec, test::ShakyTransport(k * 17 + runs), {.verify = true});
          SCOPED_TRACE(std::string(ToString(dimension)) + ", " + std::to_string(k) + " of 8, " +
                       std::string(ToString(kind)) + " with " + std::string(ToString(algorithm)));
          std::set<uint64_t> touched;
          const CollectiveId id = RunGroup(h, kind, 10007, {{0}, {group}}, &touched);
          ExpectCleanGroup(h, id, k);
          // Only members send or receive; non-members never finish anything.
          for (uint64_t npu : touched) {
            EXPECT_NE(std::find(group.begin(), group.end(), npu), group.end()) << npu;
          }
          for (uint32_t npu = 0; npu < 8; ++npu) {
            const bool member = std::find(group.begin(), group.end(), npu) != group.end();
            EXPECT_EQ(h.done_ns[npu] >= 0.0, member) << npu;
          }
          ++runs;
        }
      }
    }
  }
  EXPECT_GT(runs, 100);
}

TEST(ExecutorGroups, GroupsAcrossTwoAndThreeDimensionsVerified) {
  const std::vector<Dimension> dims{{DimensionKind::kRing, 4, 10.0, 1.0},
                                    {DimensionKind::kFullyConnected, 8, 10.0, 1.0},
                                    {DimensionKind::kSwitch, 3, 10.0, 2.0}};
  const Topology topology(dims);
  // 2 of 4 x 4 of 8 on the third dimension's coordinate 1; and 2 x 3 x 2 over all three.
  const std::vector<CollectiveMembers> groups{
      {{0, 1}, {{0, 2}, {1, 2, 5, 7}, {1}}},
      {{1, 0}, {{0, 2}, {1, 2, 5, 7}, {1}}},
      {{0, 1, 2}, {{1, 3}, {0, 4, 6}, {0, 2}}},
  };
  int runs = 0;
  for (const CollectiveMembers& members : groups) {
    for (MultiDimScheme scheme : {MultiDimScheme::kHierarchical, MultiDimScheme::kNaive}) {
      for (uint32_t chunks : {1u, 3u}) {
        for (K kind : kKinds) {
          const CommunicationSpec spec = DefaultSpec(topology, chunks, scheme);
          ExecutorHarness h(dims, spec, test::ShakyTransport(runs + 5), {.verify = true});
          SCOPED_TRACE(std::string(ToString(kind)) + ", group " + std::to_string(&members - &groups[0]) +
                       ", " + std::to_string(chunks) + " chunks");
          const CollectiveId id = RunGroup(h, kind, 7919, members);
          ExpectCleanGroup(h, id, NpusOf(topology, members).size());
          ++runs;
        }
      }
    }
  }
  EXPECT_EQ(runs, 48);
}

TEST(ExecutorGroups, APartialGroupTakesWhatTheSameGroupAloneTakes) {
  // No contention on the fake network: 4 of a Switch of 8 behave as a Switch of 4, and on a
  // Ring the schedules are the same, with the endpoint delay and host costs per step alike.
  for (DimensionKind dimension : {DimensionKind::kSwitch, DimensionKind::kRing}) {
    for (K kind : kKinds) {
      FakeTransportOptions transport;
      transport.latency_ns = 7.0;
      transport.bandwidth_Bpns = 3.0;
      const std::vector<Dimension> big{{dimension, 8, 10.0, 1.0}};
      const std::vector<Dimension> small{{dimension, 4, 10.0, 1.0}};
      CommunicationSpec spec = DefaultSpec(Topology(big), 2);
      spec.endpoint_delay_ns = 11.0;
      ExecutorHarness partial(big, spec, transport);
      ExecutorHarness alone(small, spec, transport);
      const CollectiveId a = RunGroup(partial, kind, 1 << 20, {{0}, {{1, 2, 5, 6}}});
      const CollectiveId b = alone.RunOne(kind, 1 << 20, {0});
      EXPECT_EQ(partial.executor.Stats(a).last_done_ns, alone.executor.Stats(b).last_done_ns)
          << ToString(dimension) << " " << ToString(kind);
      EXPECT_EQ(partial.executor.Stats(a).bytes_scheduled, alone.executor.Stats(b).bytes_scheduled);
    }
  }
}

TEST(ExecutorGroups, GroupsSideBySideRunAtOnce) {
  const std::vector<Dimension> dims{{DimensionKind::kFullyConnected, 8, 10.0, 1.0}};
  ExecutorHarness h(dims, DefaultSpec(Topology(dims)), test::ShakyTransport(3), {.verify = true});
  const CollectiveId low = h.executor.Create(K::kAllReduce, 4096, CollectiveMembers{{0}, {{0, 1, 2, 3}}});
  const CollectiveId high = h.executor.Create(K::kAllGather, 999, CollectiveMembers{{0}, {{4, 5, 6, 7}}});
  for (uint64_t npu = 0; npu < 8; ++npu) h.executor.Enter(npu < 4 ? low : high, npu, [] {});
  h.clock.Run();
  ExpectCleanGroup(h, low, 4);
  ExpectCleanGroup(h, high, 4);
}

TEST(ExecutorGroups, RefusesNonMembersAndBadCoordinates) {
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 8, 10.0, 1.0}};
  ExecutorHarness h(dims, DefaultSpec(Topology(dims)), {});
  const CollectiveId id = h.executor.Create(K::kAllReduce, 64, CollectiveMembers{{0}, {{0, 4}}});
  EXPECT_THROW(h.executor.Enter(id, 1, [] {}), std::invalid_argument);
  EXPECT_THROW(h.executor.Create(K::kAllReduce, 64, CollectiveMembers{{0}, {{4, 0}}}),
               std::invalid_argument);
  EXPECT_THROW(h.executor.Create(K::kAllReduce, 64, CollectiveMembers{{0}, {{0, 8}}}),
               std::invalid_argument);
  EXPECT_THROW(h.executor.Create(K::kAllReduce, 64, CollectiveMembers{{1}, {{0, 1}}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
