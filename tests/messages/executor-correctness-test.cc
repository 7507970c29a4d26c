// What the executor must get right whatever the timing: every scheduled byte delivered, every
// reduction performed, every message once, and the symbolic replay (ExecutorOptions::verify)
// passing for every kind and algorithm, 1-D to 3-D, chunked or not, with deliveries due at the
// same time shuffled. And the checks themselves must fire: a duplicate delivery, a lost message
// and an executor that does not wait for its receives are all reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "models/collective.h"
#include "models/multi-dim-collective.h"
#include "tests/messages/executor-test-util.h"

namespace hfsim {
namespace {

using test::DefaultSpec;
using test::ExecutorHarness;
using test::FakeTransportOptions;
using test::ShakyTransport;
using K = CollectiveKind;
using A = CollectiveAlgorithm;

constexpr auto& kKinds = test::kAllKinds;
constexpr auto& kAlgorithms = test::kAllAlgorithms;

// Whether every stage of `kind` over `over` can run with `spec`'s algorithms.
bool Runnable(const Topology& topology, const CommunicationSpec& spec, K kind,
              const std::vector<uint32_t>& over) {
  for (const CollectiveStage& stage :
       ComposeStages(kind, spec.scheme, over, topology, spec.AlgorithmsFor(kind))) {
    if (UnsupportedReason(stage.kind, stage.algorithm, topology.Dim(stage.dimension).size)) {
      return false;
    }
  }
  return true;
}

TEST(ExecutorCorrectness, EveryKindAndAlgorithmOnOneDimension) {
  int runs = 0;
  for (DimensionKind dimension :
       {DimensionKind::kRing, DimensionKind::kFullyConnected, DimensionKind::kSwitch}) {
    for (uint32_t n = 2; n <= 8; ++n) {
      const std::vector<Dimension> dims{{dimension, n, 10.0, 1.0}};
      for (K kind : kKinds) {
        for (A algorithm : kAlgorithms) {
          if (UnsupportedReason(kind, algorithm, n)) continue;
          CommunicationSpec spec = DefaultSpec(Topology(dims));
          spec.algorithms[static_cast<size_t>(kind)][0] = algorithm;
          spec.reduction_Bpns = 5.0;
          // An awkward size (blocks of unequal bytes) and a tiny one (0-byte blocks).
          for (uint64_t size : {uint64_t{100003}, uint64_t{3}}) {
            ExecutorHarness h(dims, spec, ShakyTransport(n * 31 + size), {.verify = true});
            SCOPED_TRACE(std::string(ToString(dimension)) + " of " + std::to_string(n) + ", " +
                         std::string(ToString(kind)) + " with " + std::string(ToString(algorithm)) +
                         ", " + std::to_string(size) + " B");
            h.ExpectClean(h.RunOne(kind, size, {0}));
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_GT(runs, 200);
}

struct MultiDimCase {
  std::vector<Dimension> dims;
  std::vector<std::vector<uint32_t>> spans;  ///< dimension lists to run over
};

TEST(ExecutorCorrectness, EveryKindAndAlgorithmOnTwoAndThreeDimensions) {
  const std::vector<MultiDimCase> cases{
      {{{DimensionKind::kRing, 4, 10.0, 1.0}, {DimensionKind::kSwitch, 2, 10.0, 2.0}},
       {{0, 1}, {1, 0}}},
      {{{DimensionKind::kRing, 2, 10.0, 1.0},
        {DimensionKind::kFullyConnected, 3, 10.0, 1.0},
        {DimensionKind::kSwitch, 4, 10.0, 2.0}},
       {{0, 1, 2}, {2, 1, 0}, {1, 2}}},
  };
  int runs = 0;
  for (const MultiDimCase& c : cases) {
    const Topology topology(c.dims);
    const uint32_t dim_count = topology.DimensionCount();
    // Every per-dimension algorithm choice: 4^dims combinations.
    uint32_t combinations = 1;
    for (uint32_t d = 0; d < dim_count; ++d) combinations *= 4;
    for (uint32_t combination = 0; combination < combinations; ++combination) {
      for (MultiDimScheme scheme : {MultiDimScheme::kHierarchical, MultiDimScheme::kNaive}) {
        for (uint32_t chunks : {1u, 4u}) {
          CommunicationSpec spec = DefaultSpec(topology, chunks, scheme);
          for (uint32_t d = 0, code = combination; d < dim_count; ++d, code /= 4) {
            for (auto& list : spec.algorithms) list[d] = kAlgorithms[code % 4];
          }
          for (K kind : kKinds) {
            for (const std::vector<uint32_t>& over : c.spans) {
              if (!Runnable(topology, spec, kind, over)) continue;
              ExecutorHarness h(c.dims, spec, ShakyTransport(combination + 7 * chunks),
                                {.verify = true});
              SCOPED_TRACE(
                  std::string(ToString(kind)) + ", " + std::to_string(dim_count) +
                  "-D, combination " + std::to_string(combination) + ", " +
                  std::string(scheme == MultiDimScheme::kNaive ? "naive" : "hierarchical") + ", " +
                  std::to_string(chunks) + " chunks, first dimension " + std::to_string(over[0]));
              h.ExpectClean(h.RunOne(kind, 7919, over));
              ++runs;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(runs, 500);
}

TEST(ExecutorCorrectness, CountsMatchTheScheduleByHand) {
  // Switch of 4, ring all-reduce, 2 chunks, S = 1000 B: chunks of 500 B; 2n = 8 blocks of
  // 62 or 63 B (500 = 8 * 62 + 4). Each of the 6 steps, each NPU sends 2 blocks, so 4 NPUs x
  // 6 steps x 2 x 2 chunks = 96 messages. Bytes: every block travels n-1 = 3 times in the
  // reduce-scatter and 3 times in the all-gather, per NPU's copy... summed over NPUs: each step
  // moves every block exactly once (n blocks clockwise, n counter-clockwise), so 6 steps x 500 B
  // x 2 chunks = 6000 B. Reductions: the 3 reduce-scatter steps x 8 transfers x 2 chunks = 48.
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 10.0, 1.0}};
  ExecutorHarness h(dims, DefaultSpec(Topology(dims), 2), ShakyTransport(5), {.verify = true});
  const CollectiveId id = h.RunOne(K::kAllReduce, 1000, {0});
  h.ExpectClean(id);
  const CollectiveStats& stats = h.executor.Stats(id);
  EXPECT_EQ(stats.messages_scheduled, 96u);
  EXPECT_EQ(stats.bytes_scheduled, 6000u);
  EXPECT_EQ(stats.reductions_scheduled, 48u);
  EXPECT_EQ(h.transport.MessagesSent(), 96u);
  EXPECT_EQ(h.transport.BytesSent(), 6000u);
  EXPECT_EQ(h.executor.MessageTimes().size(), 96u);
  const TimeSummary delivery = h.executor.DeliverySummary();
  EXPECT_EQ(delivery.count, 96u);
  EXPECT_GT(delivery.p50_ns, 0.0);
  EXPECT_LE(delivery.p50_ns, delivery.p99_ns);
  EXPECT_LE(delivery.p99_ns, delivery.max_ns);
  EXPECT_LE(delivery.max_ns, h.executor.AcknowledgementSummary().max_ns);
}

// The three ways a duplicate can arrive: while the message is still in flight (its
// acknowledgement not yet back), at the same moment as the first delivery, and long after the
// message is done and its slot reused.
TEST(ExecutorCorrectness, DuplicateDeliveryIsDetected) {
  struct Case {
    double ack_delay_ns;
    double duplicate_after_ns;
  };
  for (const Case& c : {Case{1000.0, 1.0}, Case{0.0, 0.0}, Case{0.0, 1e6}}) {
    const std::vector<Dimension> dims{{DimensionKind::kRing, 4, 10.0, 1.0}};
    FakeTransportOptions options;
    options.ack_delay_ns = c.ack_delay_ns;
    options.duplicate_message = 5;
    options.duplicate_after_ns = c.duplicate_after_ns;
    ExecutorHarness h(dims, DefaultSpec(Topology(dims)), options, {.verify = true});
    const CollectiveId id = h.RunOne(K::kAllReduce, 4096, {0});
    EXPECT_TRUE(h.executor.Finished(id));
    EXPECT_FALSE(h.executor.CheckComplete());
    EXPECT_EQ(h.executor.DuplicateDeliveries(), 1u);
    ASSERT_EQ(h.executor.ErrorCount(), 1u);
    EXPECT_NE(h.executor.Errors()[0].find("twice"), std::string::npos) << h.executor.Errors()[0];
    // Counted once: the duplicate is not a delivery.
    EXPECT_EQ(h.executor.Stats(id).bytes_delivered, h.executor.Stats(id).bytes_scheduled);
  }
}

TEST(ExecutorCorrectness, LostMessageLeavesTheCollectiveUnfinished) {
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 10.0, 1.0}};
  FakeTransportOptions options;
  options.lose_message = 9;
  ExecutorHarness h(dims, DefaultSpec(Topology(dims)), options);
  const CollectiveId id = h.RunOne(K::kAllReduce, 4096, {0});
  EXPECT_FALSE(h.executor.Finished(id));
  EXPECT_FALSE(h.executor.CheckComplete());
  ASSERT_EQ(h.executor.ErrorCount(), 2u);  // NPUs not done, a message in flight
  EXPECT_NE(h.executor.Errors()[0].find("have not finished"), std::string::npos);
  EXPECT_NE(h.executor.Errors()[1].find("1 not delivered"), std::string::npos);
  EXPECT_LT(h.executor.Stats(id).bytes_delivered, h.executor.Stats(id).bytes_scheduled);
}

TEST(ExecutorCorrectness, VerificationCatchesAStepThatDoesNotWaitForItsReceives) {
  // NPU 0 enters late. Its ring neighbours get their step-0 sends acknowledged at once and, with
  // the fault, move on without NPU 0's blocks: they forward sums that lack NPU 0's contribution.
  const std::vector<Dimension> dims{{DimensionKind::kRing, 4, 10.0, 1.0}};
  std::vector<double> enter_ns(4, 0.0);
  enter_ns[0] = 1e5;
  for (bool faulty : {false, true}) {
    ExecutorOptions options{.verify = true};
    if (faulty) options.fault = ExecutorOptions::Fault::kStepIgnoresReceives;
    ExecutorHarness h(dims, DefaultSpec(Topology(dims)), FakeTransportOptions{}, options);
    h.RunOne(K::kAllReduce, 4096, {0}, enter_ns);
    EXPECT_EQ(h.executor.CheckComplete(), !faulty);
    if (faulty) {
      ASSERT_FALSE(h.executor.Errors().empty());
      EXPECT_NE(h.executor.Errors()[0].find("verification"), std::string::npos)
          << h.executor.Errors()[0];
    }
  }
}

TEST(ExecutorCorrectness, NpusEnteringAtDifferentTimes) {
  // All-reduce: every NPU's result needs every NPU's data, so none can finish before the last
  // one entered. 2-D, 3 chunks, random arrival times up to 50 us (longer than the collective).
  const std::vector<Dimension> dims{{DimensionKind::kRing, 4, 10.0, 5.0},
                                    {DimensionKind::kSwitch, 4, 10.0, 50.0}};
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> arrival(0.0, 5e4);
    std::vector<double> enter_ns(16);
    for (double& t : enter_ns) t = arrival(random);
    const double last_entered = *std::max_element(enter_ns.begin(), enter_ns.end());
    ExecutorHarness h(dims, DefaultSpec(Topology(dims), 3), ShakyTransport(seed), {.verify = true});
    const CollectiveId id = h.RunOne(K::kAllReduce, 100000, {0, 1}, enter_ns);
    h.ExpectClean(id);
    for (uint64_t npu = 0; npu < 16; ++npu) {
      EXPECT_GE(h.done_ns[npu], last_entered) << "NPU " << npu;
    }
    EXPECT_DOUBLE_EQ(h.executor.Stats(id).last_enter_ns, last_entered);
  }
}

TEST(ExecutorCorrectness, CollectivesInSequenceReuseMessageSlots) {
  // Each NPU enters the next collective when its part of the previous one is done; ids of
  // finished messages are reused with a new generation, and the per-NPU state of a finished
  // collective is released.
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 10.0, 1.0},
                                    {DimensionKind::kRing, 3, 10.0, 1.0}};
  ExecutorHarness h(dims, DefaultSpec(Topology(dims), 2), ShakyTransport(11), {.verify = true});
  std::vector<CollectiveId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(h.executor.Create(kKinds[i % 4], 5000 + i, {0, 1}));
  std::vector<int> finished(12, 0);
  std::function<void(uint64_t, int)> enter = [&](uint64_t npu, int i) {
    h.executor.Enter(ids[i], npu, [&, npu, i] {
      ++finished[npu];
      if (i + 1 < 5) enter(npu, i + 1);
    });
  };
  for (uint64_t npu = 0; npu < 12; ++npu) enter(npu, 0);
  h.clock.Run();
  for (CollectiveId id : ids) h.ExpectClean(id);
  for (int count : finished) EXPECT_EQ(count, 5);
}

TEST(ExecutorCorrectness, EmptyChunksFinishWithoutMessages) {
  // S = 2 B in 4 chunks: chunks 0 and 1 hold a byte each, chunks 2 and 3 nothing. Ring
  // all-reduce on a Switch of 4 (8 blocks): a 1-byte chunk has one non-empty block, which
  // travels once per step: 6 messages per 1-byte chunk, 12 in all; a 0-byte collective sends
  // none and every NPU is done as soon as it enters.
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 10.0, 1.0}};
  ExecutorHarness h(dims, DefaultSpec(Topology(dims), 4), ShakyTransport(3), {.verify = true});
  const CollectiveId tiny = h.RunOne(K::kAllReduce, 2, {0});
  h.ExpectClean(tiny);
  EXPECT_EQ(h.executor.Stats(tiny).messages_delivered, 12u);
  EXPECT_EQ(h.executor.Stats(tiny).bytes_delivered, 12u);
  const CollectiveId empty = h.RunOne(K::kAllReduce, 0, {0});
  h.ExpectClean(empty);
  EXPECT_EQ(h.executor.Stats(empty).messages_scheduled, 0u);
  EXPECT_EQ(h.executor.Stats(empty).DurationNs(), 0.0);
}

}  // namespace
}  // namespace hfsim
