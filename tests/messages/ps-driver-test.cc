// The parameter-server driver on the fake network (no ns-3): hand-computed times, conservation
// (every byte sent is delivered, every pushed key reduced exactly once at its own shard), and
// detection of duplicated and lost messages.
#include "sim/messages/ps-driver.h"

#include <gtest/gtest.h>

#include "sim/report/ps-planned-report.h"
#include "tests/messages/fake-network.h"

namespace hfsim {
namespace {

using test::FakeChannel;
using test::FakeTransport;
using test::FakeTransportOptions;

// 4 workers (NPUs 0-3), 2 servers (NPUs 4, 5); 4 dense keys of 10^6 bytes, keys 0,1 on shard 0
// and 2,3 on shard 1: every slice is 2,000,016 bytes.
ParameterServerWorkload DenseWorkload() {
  ParameterServerWorkload ps;
  ps.worker_npus = {0, 1, 2, 3};
  ps.server_npus = {4, 5};
  ps.kind = PsModelKind::kDense;
  ps.dense.key_bytes = DenseKeyBytes({4000000}, 1000000);
  ps.partition = KeyPartition::kRange;
  return ps;
}

ParameterServerWorkload SparseWorkload(uint32_t iterations) {
  ParameterServerWorkload ps;
  for (uint64_t w = 0; w < 8; ++w) ps.worker_npus.push_back(w);
  ps.server_npus = {0, 8, 9};  // shard 0 shares NPU 0 with worker 0
  ps.kind = PsModelKind::kSparse;
  ps.sparse = {100000, 128, 3000, 1.1};
  ps.iterations = iterations;
  return ps;
}

std::vector<PsIterationTraffic> TrafficOf(const ParameterServerWorkload& ps, uint64_t seed) {
  std::vector<PsIterationTraffic> traffic;
  for (uint32_t i = 0; i < ps.iterations; ++i)
    traffic.push_back(BuildIterationTraffic(ps, seed, i));
  return traffic;
}

// Every message queues (first come, first served) on the link of its server's NPU at 100 B/ns,
// with 2 hops x 500 ns of latency: the server's down-link for pushes, its up-link for pulls,
// modelled as one queue because a push phase and its pull phase never overlap at one server.
FakeTransportOptions ServerLinkQueues(const ParameterServerWorkload& ps) {
  FakeTransportOptions options;
  options.channel = [servers = ps.server_npus](const MessageTransport::Message& m) {
    const bool push = std::find(servers.begin(), servers.end(), m.dst) != servers.end();
    return FakeChannel{push ? m.dst : m.src, 100.0, 1000.0};
  };
  return options;
}

TEST(PsDriver, DenseIterationMatchesHandComputedTime) {
  const ParameterServerWorkload ps = DenseWorkload();
  EventLoop clock;
  FakeTransport transport(clock, ServerLinkQueues(ps));
  PsDriver driver(clock, transport, ps, TrafficOf(ps, 1), /*reduction_Bpns=*/50.0);
  driver.Start();
  clock.Run();
  ASSERT_TRUE(driver.CheckComplete()) << driver.Errors().front();
  // Each server's 4 pushes queue on its link, 20,000.16 ns each: delivered at 21,000.16,
  // 41,000.32, 61,000.48, 81,000.64. Reductions take 40,000.32 ns each, one after another from
  // the first delivery: done at 21,000.16 + 4 x 40,000.32 = 181,001.44. The 4 pulls then queue
  // on the same link: the last arrives 4 x 20,000.16 + 1,000 later, at 262,002.08 ns.
  EXPECT_NEAR(driver.IterationEndNs()[0], 262002.08, 1e-6);
  EXPECT_EQ(driver.NetworkBytesSent(), 16u * 2000016u);
  EXPECT_EQ(driver.NetworkBytesDelivered(), driver.NetworkBytesSent());
  EXPECT_EQ(driver.PushesAggregated(), 8u);
}

TEST(PsDriver, SparseIterationsConserveBytesAndKeys) {
  const ParameterServerWorkload ps = SparseWorkload(4);
  EventLoop clock;
  FakeTransportOptions options;
  options.latency_ns = 700.0;
  options.bandwidth_Bpns = 25.0;
  options.shuffle_equal_times = true;
  FakeTransport transport(clock, options);
  std::vector<PsIterationTraffic> traffic = TrafficOf(ps, 3);
  ParameterServerReport report;
  for (const auto& t : traffic) AddPlannedIteration(ps, t, report);
  PsDriver driver(clock, transport, ps, traffic, 10.0);
  driver.Start();
  clock.Run();
  ASSERT_TRUE(driver.CheckComplete()) << driver.Errors().front();
  driver.FillReport(report);
  // Every byte: pushes and pulls delivered equal those planned; fabric bytes are all but the
  // local ones (worker 0 <-> shard 0 on NPU 0).
  EXPECT_EQ(report.bytes_push_delivered, report.bytes_pushed);
  EXPECT_EQ(report.bytes_pull_delivered, report.bytes_pulled);
  EXPECT_GT(report.local_bytes, 0u);
  EXPECT_EQ(driver.NetworkBytesSent(),
            report.bytes_pushed + report.bytes_pulled - report.local_bytes);
  EXPECT_EQ(transport.BytesSent(), driver.NetworkBytesSent());
  EXPECT_EQ(driver.NetworkBytesDelivered(), driver.NetworkBytesSent());
  // Every key: each (worker, key) pair reduced exactly once, at its shard.
  EXPECT_EQ(report.keys_aggregated, report.keys_pushed);
  EXPECT_EQ(report.key_errors, 0u);
  uint64_t distinct = 0;
  for (const auto& t : traffic) {
    for (const auto& keys : t.worker_keys) distinct += keys.size();
  }
  EXPECT_EQ(report.keys_pushed, distinct);
  uint64_t per_server = 0;
  for (const PsServerReport& s : report.servers) {
    EXPECT_EQ(s.keys_aggregated, s.keys_pushed);
    per_server += s.keys_aggregated;
  }
  EXPECT_EQ(per_server, report.keys_aggregated);
  ASSERT_EQ(report.iteration_ns.size(), 4u);
  for (double ns : report.iteration_ns) EXPECT_GT(ns, 0.0);
}

TEST(PsDriver, DuplicateDeliveryIsReported) {
  const ParameterServerWorkload ps = DenseWorkload();
  EventLoop clock;
  FakeTransportOptions options = ServerLinkQueues(ps);
  options.duplicate_message = 2;
  options.duplicate_after_ns = 10.0;
  FakeTransport transport(clock, options);
  PsDriver driver(clock, transport, ps, TrafficOf(ps, 1), 0.0);
  driver.Start();
  clock.Run();
  EXPECT_FALSE(driver.CheckComplete());
  ASSERT_FALSE(driver.Errors().empty());
  EXPECT_NE(driver.Errors().front().find("delivered twice"), std::string::npos);
}

TEST(PsDriver, LostMessageLeavesTheIterationUnfinished) {
  const ParameterServerWorkload ps = DenseWorkload();
  EventLoop clock;
  FakeTransportOptions options = ServerLinkQueues(ps);
  options.lose_message = 5;
  FakeTransport transport(clock, options);
  PsDriver driver(clock, transport, ps, TrafficOf(ps, 1), 0.0);
  driver.Start();
  clock.Run();
  EXPECT_FALSE(driver.Finished());
  EXPECT_FALSE(driver.CheckComplete());
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

TEST(PsDriver, HotKeysStayOffTheServers) {
  // Built with hot_key_count = 1000 (the switch's share), the servers see only keys >= 1000;
  // a worker whose keys are all hot finishes its iterations without messages.
  ParameterServerWorkload ps = SparseWorkload(3);
  std::vector<PsIterationTraffic> traffic;
  for (uint32_t i = 0; i < 3; ++i) traffic.push_back(BuildIterationTraffic(ps, 3, i, 1000));
  ParameterServerReport report;
  uint64_t hot = 0;
  for (const auto& t : traffic) {
    AddPlannedIteration(ps, t, report);
    for (uint64_t h : t.hot_keys) hot += h;
  }
  EventLoop clock;
  FakeTransport transport(clock, FakeTransportOptions{});
  PsDriver driver(clock, transport, ps, traffic, 0.0);
  driver.Start();
  clock.Run();
  ASSERT_TRUE(driver.CheckComplete()) << driver.Errors().front();
  driver.FillReport(report);
  EXPECT_GT(hot, 0u);
  EXPECT_EQ(report.keys_aggregated, report.keys_pushed);  // the plan already left hot keys out
  uint64_t distinct = 0;
  for (const auto& t : traffic) {
    for (const auto& keys : t.worker_keys) distinct += keys.size();
  }
  EXPECT_EQ(report.keys_aggregated, distinct - hot);

  // Every key hot: no message at all, and every worker still completes every iteration.
  std::vector<PsIterationTraffic> all_hot;
  for (uint32_t i = 0; i < 3; ++i) all_hot.push_back(BuildIterationTraffic(ps, 3, i, 100000));
  EventLoop clock2;
  FakeTransport transport2(clock2, FakeTransportOptions{});
  PsDriver idle(clock2, transport2, ps, all_hot, 0.0);
  idle.Start();
  clock2.Run();
  EXPECT_TRUE(idle.CheckComplete());
  EXPECT_EQ(transport2.MessagesSent(), 0u);
}

}  // namespace
}  // namespace hfsim
