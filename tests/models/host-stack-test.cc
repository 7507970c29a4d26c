// The host-stack model (models/host-stack.h): names, the documented presets and the analytical
// profile's host terms against closed forms worked out by hand.
#include <gtest/gtest.h>

#include "models/host-stack.h"
#include "models/schedule-profile.h"

namespace hfsim {
namespace {

constexpr HostStackKind kAllKinds[] = {HostStackKind::kNone, HostStackKind::kRdma,
                                       HostStackKind::kRdmaCopy, HostStackKind::kGrpc};

TEST(HostStack, NamesRoundTrip) {
  for (HostStackKind kind : kAllKinds) {
    EXPECT_EQ(ParseHostStackKind(ToString(kind)), kind) << ToString(kind);
  }
  EXPECT_EQ(ToString(HostStackKind::kRdmaCopy), "rdma_copy");
  EXPECT_FALSE(ParseHostStackKind("tcp").has_value());
  EXPECT_FALSE(ParseHostStackKind("RDMA").has_value());
}

TEST(HostStack, PresetsAreTheDocumentedNumbers) {
  EXPECT_TRUE(HostStack::Preset(HostStackKind::kNone).IsFree());
  EXPECT_EQ(HostStack::Preset(HostStackKind::kNone), HostStack{});

  // Zero-copy RDMA: "a few us per message" = 1.5 us to post + 1.5 us to poll, nothing per byte.
  const HostStack rdma = HostStack::Preset(HostStackKind::kRdma);
  EXPECT_DOUBLE_EQ(rdma.send_per_message_ns + rdma.receive_per_message_ns, 3000.0);
  EXPECT_EQ(rdma.send_per_byte_ns, 0.0);
  EXPECT_EQ(rdma.receive_per_byte_ns, 0.0);
  EXPECT_EQ(rdma.extra_round_trips, 0u);

  // RDMA with a copy on each side at ~20 GB/s: 0.05 ns/B a side.
  const HostStack copy = HostStack::Preset(HostStackKind::kRdmaCopy);
  EXPECT_DOUBLE_EQ(copy.send_per_byte_ns, 0.05);
  EXPECT_DOUBLE_EQ(copy.receive_per_byte_ns, 0.05);
  EXPECT_EQ(copy.send_per_message_ns, rdma.send_per_message_ns);

  // gRPC: ~0.9 GB/s between workers => 1/0.9 ns/B for both sides together.
  const HostStack grpc = HostStack::Preset(HostStackKind::kGrpc);
  EXPECT_NEAR(grpc.send_per_byte_ns + grpc.receive_per_byte_ns, 1.0 / 0.9, 1e-12);
  EXPECT_DOUBLE_EQ(grpc.send_per_byte_ns, grpc.receive_per_byte_ns);
  EXPECT_DOUBLE_EQ(grpc.send_per_message_ns, 25000.0);
  EXPECT_DOUBLE_EQ(grpc.receive_per_message_ns, 25000.0);
}

TEST(HostStack, GrpcDeliversAboutPointNineGBpsForALargeMessageOnAFastLink) {
  // One 100 MB message over a 100 GB/s link, sender and receiver costs in series.
  const double bytes = 100e6;
  const double link_Bpns = 100.0;
  const HostStack grpc = HostStack::Preset(HostStackKind::kGrpc);
  const double ns = grpc.SendNs(bytes) + bytes / link_Bpns + grpc.ReceiveNs(bytes);
  EXPECT_NEAR(bytes / ns, 0.9, 0.02);  // GB/s = B/ns; the link itself takes ~1% of it
  // The same message by zero-copy RDMA runs at the link's speed, within 0.5% (3 us of 1 ms).
  const HostStack rdma = HostStack::Preset(HostStackKind::kRdma);
  EXPECT_NEAR(bytes / (rdma.SendNs(bytes) + bytes / link_Bpns + rdma.ReceiveNs(bytes)), link_Bpns,
              0.5);
}

TEST(HostStack, PostingOnlyIsTheOlderHostOverhead) {
  HostStack host;
  host.send_per_message_ns = 1500;
  EXPECT_FALSE(host.HasMoreThanPosting());
  EXPECT_DOUBLE_EQ(host.PostingNs(4), 6000.0);
  // TimeNs with the posting-only stack equals TimeNs with the number, bit for bit.
  const ScheduleProfile& p = CachedProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           8, DimensionKind::kRing);
  EXPECT_EQ(p.TimeNs(1e6, 50, 500, 10, 20, host), p.TimeNs(1e6, 50, 500, 10, 20, 1500.0));
}

// The host part of time(S): time with the stack minus time without it.
double HostNs(const ScheduleProfile& p, double S, double latency_ns, const HostStack& host) {
  return p.TimeNs(S, 50.0, latency_ns, 0.0, 0.0, host) - p.TimeNs(S, 50.0, latency_ns, 0.0, 0.0);
}

HostStack WithRoundTrip(HostStackKind kind) {
  HostStack host = HostStack::Preset(kind);
  host.extra_round_trips = 1;
  return host;
}

TEST(HostStack, RingAllReduceClosedForm) {
  // Ring all-reduce on a bidirectional Ring of n: 2(n-1) steps; in each, every NPU sends one
  // block of S/(2n) each way round (2 messages, S/n bytes) and receives the same, over 1 hop:
  //   host = 2(n-1) (2 o_s + 2 o_r + (p_s + p_r) S/n + k * 2 * a).
  const double S = 100e6;
  const double a = 700.0;
  for (uint32_t n : {4u, 8u}) {
    const ScheduleProfile& p = CachedProfile(CollectiveKind::kAllReduce,
                                             CollectiveAlgorithm::kRing, n, DimensionKind::kRing);
    for (HostStackKind kind : kAllKinds) {
      for (const HostStack& h : {HostStack::Preset(kind), WithRoundTrip(kind)}) {
        const double expected =
            2.0 * (n - 1) *
            (2 * h.send_per_message_ns + 2 * h.receive_per_message_ns +
             (h.send_per_byte_ns + h.receive_per_byte_ns) * S / n + h.extra_round_trips * 2 * a);
        EXPECT_NEAR(HostNs(p, S, a, h), expected, 1e-9 * (expected + 1))
            << ToString(kind) << " n=" << n << " k=" << h.extra_round_trips;
      }
    }
  }
}

TEST(HostStack, DirectAllToAllClosedForm) {
  // Direct all-to-all on a Switch of n: every NPU sends its n-1 blocks of S/n, one to each
  // peer, and receives n-1 such blocks; a route is 2 hops (up, down). Whatever the steps,
  //   host = (n-1)(o_s + o_r) + (p_s + p_r)(n-1) S/n + k * 2 * 2a * steps.
  const double S = 64e6;
  const double a = 1000.0;
  for (uint32_t n : {4u, 8u}) {
    const ScheduleProfile& p = CachedProfile(
        CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, n, DimensionKind::kSwitch);
    for (HostStackKind kind : kAllKinds) {
      for (const HostStack& h : {HostStack::Preset(kind), WithRoundTrip(kind)}) {
        const double expected =
            (n - 1) * (h.send_per_message_ns + h.receive_per_message_ns) +
            (h.send_per_byte_ns + h.receive_per_byte_ns) * (n - 1) * S / n +
            h.extra_round_trips * 2.0 * 2 * a * p.steps;
        EXPECT_NEAR(HostNs(p, S, a, h), expected, 1e-9 * (expected + 1))
            << ToString(kind) << " n=" << n << " k=" << h.extra_round_trips;
      }
    }
  }
}

}  // namespace
}  // namespace hfsim
