// W workers and the switch model on a lossy network: seeded random loss and duplication in both
// directions (and on the server links in parameter-server mode), random per-packet delay, and
// FIFO order on each directed link (SwitchML's assumption, see switch-aggregator.h). Checks
// against an independent computation that every block was completed exactly once and that every
// worker ends with the exact integer sum, and its decoded value within the stated bound.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <queue>
#include <random>
#include <set>

#include "models/aggregation/aggregation-worker.h"
#include "models/aggregation/fixed-point.h"
#include "models/aggregation/switch-aggregator.h"
#include "tests/models/aggregation-harness.h"

namespace hfsim {
namespace {

using test::LossyHarness;
using test::NetworkConfig;

// Per-block magnitudes from 2^-12 to 2^12, so blocks get different exponents.
std::vector<std::vector<float>> RandomTensors(uint32_t workers, size_t values, uint32_t k,
                                              double max_magnitude, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<std::vector<float>> tensors(workers, std::vector<float>(values));
  for (size_t begin = 0; begin < values; begin += k) {
    const double magnitude = std::min(std::ldexp(1.0, exponent(rng)), max_magnitude);
    for (auto& t : tensors) {
      for (size_t i = begin; i < std::min(values, begin + k); ++i) {
        t[i] = unit(rng) * static_cast<float>(magnitude);
      }
    }
  }
  return tensors;
}

// The exact sums, computed independently of the protocol: per block, the largest frexp exponent
// over workers, the scale, round half away from zero, an int64 sum (which must fit int32).
struct Expected {
  std::vector<int32_t> sums;
  std::vector<double> scales;
};

Expected ComputeExpected(const AggregationSwitchSpec& spec,
                         const std::vector<std::vector<float>>& tensors, size_t values) {
  const uint32_t k = spec.values_per_packet;
  const int64_t limit = std::min<int64_t>(
      (int64_t{1} << spec.value_bits) - 1,
      spec.scheme == FixedPointScheme::kBlockExponent ? INT32_MAX / spec.workers : INT32_MAX);
  Expected expected{std::vector<int32_t>(values), std::vector<double>(values)};
  for (size_t begin = 0; begin < values; begin += k) {
    const size_t end = std::min(values, begin + k);
    double scale = spec.fixed_scale;
    if (spec.scheme == FixedPointScheme::kBlockExponent) {
      int e = -126;
      for (const auto& t : tensors) {
        for (size_t i = begin; i < end; ++i) {
          int ei = 0;
          if (t[i] != 0.0f) std::frexp(t[i], &ei);
          if (t[i] != 0.0f) e = std::max(e, ei);
        }
      }
      scale = std::ldexp(static_cast<double>(limit), -e);
    }
    for (size_t i = begin; i < end; ++i) {
      int64_t sum = 0;
      for (const auto& t : tensors) {
        const long long q = std::llround(static_cast<double>(t[i]) * scale);
        EXPECT_LE(std::llabs(q), limit);
        sum += q;
      }
      EXPECT_LE(std::llabs(sum), INT32_MAX);
      expected.sums[i] = static_cast<int32_t>(sum);
      expected.scales[i] = scale;
    }
  }
  return expected;
}

struct Case {
  const char* name;
  AggregationSwitchSpec spec;
  size_t values;
  uint32_t pool_slots;
  double max_magnitude;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  AggregationSwitchSpec switchml;  // SwitchML: block exponents, wrap, shadow copies
  switchml.workers = 5;
  switchml.values_per_packet = 16;
  switchml.aggregator_slots = 8;
  switchml.value_bits = WidestSafeValueBits(5);
  cases.push_back({"switchml", switchml, 16 * 8 * 5 + 7, 0, 1e30});
  AggregationSwitchSpec atp = switchml;  // ATP-like: fixed scale 1e6, saturating adds
  atp.scheme = FixedPointScheme::kFixedScale;
  atp.overflow = OverflowBehaviour::kSaturate;
  atp.value_bits = 31;
  cases.push_back({"fixed_scale", atp, 16 * 11 + 3, 6, 100.0});
  AggregationSwitchSpec ps = switchml;  // parameter server, three shards, hot prefix only
  ps.mode = AggregationMode::kParameterServer;
  ps.server_shards = 3;
  ps.hot_key_capacity_keys = 16 * 20 + 1;  // 21 hot blocks
  cases.push_back({"parameter_server", ps, 16 * 30, 4, 1e30});
  AggregationSwitchSpec wide = switchml;  // the full 32-bit bitmap, SwitchML's K
  wide.workers = 32;
  wide.values_per_packet = 64;
  wide.value_bits = WidestSafeValueBits(32);
  cases.push_back({"thirty_two_workers", wide, 64 * 9, 3, 1e30});
  return cases;
}

void RunCase(const Case& c, const NetworkConfig& network) {
  SCOPED_TRACE(c.name);
  const auto tensors = RandomTensors(c.spec.workers, c.values, c.spec.values_per_packet,
                                     c.max_magnitude, network.seed);
  AggregationWorkerOptions options;
  options.pool_slots = c.pool_slots;
  options.retransmit_timeout_ns = 10 * network.delay_ns;
  LossyHarness harness(c.spec, tensors, network, options);
  harness.Run();
  if (::testing::Test::HasFatalFailure()) return;

  const uint64_t aggregated = harness.Worker(0).AggregatedValues();
  if (c.spec.mode == AggregationMode::kParameterServer) {
    EXPECT_EQ(aggregated, 21u * 16u);
  } else {
    EXPECT_EQ(aggregated, c.values);
  }
  std::vector<std::vector<float>> hot = tensors;
  for (auto& t : hot) t.resize(aggregated);
  const Expected expected = ComputeExpected(c.spec, hot, aggregated);

  // Every block completed exactly once (plus one priming round per pool slot in use).
  const uint32_t k = c.spec.values_per_packet;
  const uint64_t blocks = (aggregated + k - 1) / k;
  std::map<uint32_t, int> block_completions;
  uint64_t priming = 0;
  for (const auto& [key, count] : harness.Completions()) {
    if (count == 0) {
      ++priming;
    } else {
      ++block_completions[key];
      EXPECT_EQ(count, std::min<uint64_t>(k, aggregated - key));
    }
  }
  EXPECT_EQ(block_completions.size(), blocks);
  for (const auto& [key, n] : block_completions) {
    EXPECT_EQ(key % k, 0u);
    EXPECT_EQ(n, 1) << "block at key " << key << " completed " << n << " times";
  }
  const uint64_t slots_used = std::min<uint64_t>(harness.Worker(0).PoolSlots(), blocks);
  EXPECT_EQ(priming, c.spec.scheme == FixedPointScheme::kBlockExponent ? slots_used : 0u);
  EXPECT_EQ(harness.Switch().Counters().slots_completed, blocks + priming);

  for (uint32_t w = 0; w < c.spec.workers; ++w) {
    const AggregationWorker& worker = harness.Worker(w);
    ASSERT_TRUE(worker.Done()) << "worker " << w;
    ASSERT_EQ(worker.SummedIntegers(), expected.sums) << "worker " << w;
    for (size_t i = 0; i < aggregated; ++i) {
      long double reference = 0.0L;
      for (const auto& t : tensors) reference += t[i];
      ASSERT_LE(std::fabs(static_cast<double>(reference) - worker.Result()[i]),
                SumErrorBound(c.spec, expected.scales[i]))
          << "worker " << w << " value " << i;
    }
  }
}

TEST(AggregationProtocol, LosslessRunSendsOnePacketPerRound) {
  for (const Case& c : Cases()) {
    RunCase(c, NetworkConfig{});
    const auto tensors =
        RandomTensors(c.spec.workers, c.values, c.spec.values_per_packet, c.max_magnitude, 1);
    AggregationWorkerOptions options;
    options.pool_slots = c.pool_slots;
    LossyHarness harness(c.spec, tensors, NetworkConfig{}, options);
    harness.Run();
    const uint32_t k = c.spec.values_per_packet;
    const uint64_t blocks = (harness.Worker(0).AggregatedValues() + k - 1) / k;
    const uint64_t slots = std::min<uint64_t>(harness.Worker(0).PoolSlots(), blocks);
    const bool priming = c.spec.scheme == FixedPointScheme::kBlockExponent;
    const AggregationTraffic traffic = ComputeAggregationTraffic(c.spec, c.values, c.pool_slots);
    EXPECT_EQ(traffic.packets_per_worker, blocks + (priming ? slots : 0));
    EXPECT_EQ(traffic.wire_bytes_per_worker, traffic.packets_per_worker * (58 + 4 * k));
    for (uint32_t w = 0; w < c.spec.workers; ++w) {
      EXPECT_EQ(harness.Worker(w).Counters().packets_sent, blocks + (priming ? slots : 0));
      EXPECT_EQ(harness.Worker(w).Counters().retransmissions, 0u);
      EXPECT_EQ(harness.Worker(w).Counters().stale_results, 0u);
    }
    EXPECT_EQ(harness.Switch().Counters().duplicates_dropped, 0u);
  }
}

TEST(AggregationProtocol, ExactSumsUnderLossAndDuplicationInBothDirections) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    NetworkConfig network;
    network.loss = 0.1;
    network.duplication = 0.1;
    network.seed = seed;
    for (const Case& c : Cases()) RunCase(c, network);
  }
}

TEST(AggregationProtocol, HeavyLossStillConverges) {
  NetworkConfig network;
  network.loss = 0.3;
  network.duplication = 0.3;
  network.seed = 42;
  RunCase(Cases()[0], network);
}

TEST(AggregationProtocol, TheHarnessReallyLosesAndDuplicates) {
  NetworkConfig network;
  network.loss = 0.1;
  network.duplication = 0.1;
  const Case c = Cases()[0];
  AggregationWorkerOptions options;
  options.retransmit_timeout_ns = 10 * network.delay_ns;
  LossyHarness harness(c.spec, RandomTensors(5, c.values, 16, 1e30, 1), network, options);
  harness.Run();
  EXPECT_GT(harness.Lost(), 50u);
  EXPECT_GT(harness.Duplicated(), 50u);
  EXPECT_GT(harness.Switch().Counters().results_resent, 0u);
  EXPECT_GT(harness.Switch().Counters().duplicates_dropped, 0u);
  uint64_t stale = 0;
  for (uint32_t w = 0; w < 5; ++w) stale += harness.Worker(w).Counters().stale_results;
  EXPECT_GT(stale, 0u);
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

TEST(AggregationTraffic, ClosedFormForHandCases) {
  // 647 values in blocks of 16: 41 blocks; 8 slots each start with a priming packet.
  AggregationTraffic t = ComputeAggregationTraffic(Cases()[0].spec, 647);
  EXPECT_EQ(t.blocks, 41u);
  EXPECT_EQ(t.packets_per_worker, 49u);
  EXPECT_EQ(t.frame_bytes, 58u + 64u);
  EXPECT_EQ(t.wire_bytes_per_worker, 49u * 122u);
  // Fixed scale: no priming. Parameter server: only the 21 hot blocks (capacity 321 keys).
  EXPECT_EQ(ComputeAggregationTraffic(Cases()[1].spec, 179, 6).packets_per_worker, 12u);
  t = ComputeAggregationTraffic(Cases()[2].spec, 480, 4);
  EXPECT_EQ(t.aggregated_values, 336u);
  EXPECT_EQ(t.packets_per_worker, 21u + 4u);
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

TEST(AggregationProtocol, OneSlotSetWorksOnALosslessNetwork) {
  Case c = Cases()[0];
  c.spec.shadow_copies = false;
  RunCase(c, NetworkConfig{});
}

}  // namespace
}  // namespace hfsim
