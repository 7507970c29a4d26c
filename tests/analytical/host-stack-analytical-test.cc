// communication.host_stack: the loader (names, overrides, errors naming the JSON path, echo) and
// the analytical engine's host terms against closed forms, including S4's RDMA-vs-gRPC shape.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::CollectiveScenario;
using test::ParseOrDie;

nlohmann::json Dim(const std::string& kind, int size, double bandwidth_GBps, double latency_ns) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", bandwidth_GBps},
          {"latency_ns", latency_ns}};
}

nlohmann::json WithHost(nlohmann::json doc, const nlohmann::json& host_stack) {
  doc["communication"]["host_stack"] = host_stack;
  return doc;
}

double RunTime(const nlohmann::json& doc) {
  return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
}

// The loader's error for `doc`, or "" when it loads.
std::string ErrorOf(const nlohmann::json& doc) {
  auto result = ParseScenario(doc);
  return result ? "" : result.Error().ToString();
}

const nlohmann::json kRing8 =
    CollectiveScenario(nlohmann::json::array({Dim("Ring", 8, 100, 500)}), "all_reduce", 8 << 20);

TEST(HostStackScenario, NameGivesThePreset) {
  for (HostStackKind kind : {HostStackKind::kNone, HostStackKind::kRdma, HostStackKind::kRdmaCopy,
                             HostStackKind::kGrpc}) {
    const Scenario s = ParseOrDie(WithHost(kRing8, std::string(ToString(kind))));
    EXPECT_EQ(s.communication.host, HostStack::Preset(kind)) << ToString(kind);
  }
}

TEST(HostStackScenario, ObjectOverridesThePreset) {
  const Scenario s = ParseOrDie(WithHost(
      kRing8, {{"kind", "rdma"}, {"extra_round_trips", 1}, {"receive_per_byte_ns", 0.25}}));
  HostStack expected = HostStack::Preset(HostStackKind::kRdma);
  expected.extra_round_trips = 1;
  expected.receive_per_byte_ns = 0.25;
  EXPECT_EQ(s.communication.host, expected);
}

TEST(HostStackScenario, EchoRoundTrips) {
  for (const nlohmann::json& host :
       {nlohmann::json("grpc"), nlohmann::json("none"),
        nlohmann::json{{"kind", "none"}, {"receive_per_message_ns", 7}},
        nlohmann::json{
            {"kind", "rdma_copy"}, {"send_per_message_ns", 0}, {"extra_round_trips", 2}}}) {
    const nlohmann::json echo = ScenarioToJson(ParseOrDie(WithHost(kRing8, host)));
    EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo) << host.dump();
  }
  // Without host_stack the echo is what it always was: host_overhead_ns_per_message only.
  nlohmann::json old = kRing8;
  old["communication"]["host_overhead_ns_per_message"] = 1500;
  const nlohmann::json echo = ScenarioToJson(ParseOrDie(old));
  EXPECT_EQ(echo["communication"]["host_overhead_ns_per_message"], 1500.0);
  EXPECT_FALSE(echo["communication"].contains("host_stack"));
  const nlohmann::json grpc_echo = ScenarioToJson(ParseOrDie(WithHost(kRing8, "grpc")));
  EXPECT_EQ(grpc_echo["communication"]["host_stack"]["kind"], "grpc");
  EXPECT_FALSE(grpc_echo["communication"].contains("host_overhead_ns_per_message"));
}

TEST(HostStackScenario, BadInputNamesThePath) {
  std::string e = ErrorOf(WithHost(kRing8, "tcp"));
  EXPECT_NE(e.find("communication.host_stack"), std::string::npos) << e;
  EXPECT_NE(e.find("rdma_copy"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, {{"kind", "infiniband"}}));
  EXPECT_NE(e.find("communication.host_stack.kind"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, {{"kind", "grpc"}, {"send_per_byte_ns", -0.5}}));
  EXPECT_NE(e.find("communication.host_stack.send_per_byte_ns"), std::string::npos) << e;
  EXPECT_NE(e.find("-0.5"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, {{"kind", "rdma"}, {"extra_round_trips", 17}}));
  EXPECT_NE(e.find("communication.host_stack.extra_round_trips"), std::string::npos) << e;
  EXPECT_NE(e.find("16"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, {{"send_per_byte_ns", 1}}));
  EXPECT_NE(e.find("communication.host_stack.kind"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, {{"kind", "rdma"}, {"latency_ns", 1}}));
  EXPECT_NE(e.find("communication.host_stack.latency_ns"), std::string::npos) << e;
  e = ErrorOf(WithHost(kRing8, 3));
  EXPECT_NE(e.find("communication.host_stack"), std::string::npos) << e;
  nlohmann::json both = WithHost(kRing8, "rdma");
  both["communication"]["host_overhead_ns_per_message"] = 100;
  e = ErrorOf(both);
  EXPECT_NE(e.find("communication.host_stack"), std::string::npos) << e;
  EXPECT_NE(e.find("host_overhead_ns_per_message"), std::string::npos) << e;
}

TEST(HostStackScenario, PostingOnlyStackIsTheOldKeyExactly) {
  nlohmann::json old = kRing8;
  old["communication"]["host_overhead_ns_per_message"] = 1500;
  const nlohmann::json stack =
      WithHost(kRing8, {{"kind", "none"}, {"send_per_message_ns", 1500}});
  EXPECT_EQ(RunTime(old), RunTime(stack));
  EXPECT_EQ(ParseOrDie(old).communication.host, ParseOrDie(stack).communication.host);
}

TEST(HostStackAnalytical, RingAllReduceClosedFormForEveryPreset) {
  // Ring 8 all-reduce, S = 8 MiB, B = 100, a = 500: 14 steps, 2 messages of S/16 each way per
  // step, 1 hop. Base = 14 a + 1.75 S / B; host = 14 (2 o_s + 2 o_r + (p_s + p_r) S/8 + 2 k a).
  const double S = 8 << 20;
  const double base = 14 * 500 + 1.75 * S / 100;
  for (const char* name : {"none", "rdma", "rdma_copy", "grpc"}) {
    for (int k : {0, 1}) {
      HostStack h = HostStack::Preset(*ParseHostStackKind(name));
      h.extra_round_trips = k;
      const double host = 14 * (2 * h.send_per_message_ns + 2 * h.receive_per_message_ns +
                                (h.send_per_byte_ns + h.receive_per_byte_ns) * S / 8 +
                                2.0 * k * 500);
      const double t = RunTime(WithHost(kRing8, {{"kind", name}, {"extra_round_trips", k}}));
      EXPECT_NEAR(t, base + host, 1e-9 * (base + host)) << name << " k=" << k;
    }
  }
}

TEST(HostStackAnalytical, DirectAllToAllClosedForm) {
  // Direct all-to-all on a Switch of 8, S = 8 MiB: each NPU sends 7 messages of S/8 and
  // receives 7; base = 2a + 7/8 S / B per step structure, so compare host parts only.
  const nlohmann::json doc = [] {
    nlohmann::json d = CollectiveScenario(nlohmann::json::array({Dim("Switch", 8, 50, 1000)}),
                                          "all_to_all", 8 << 20);
    d["communication"]["algorithms"] = {{"all_to_all", "direct"}};
    return d;
  }();
  const double S = 8 << 20;
  const double base = RunTime(doc);
  for (const char* name : {"rdma", "rdma_copy", "grpc"}) {
    const HostStack h = HostStack::Preset(*ParseHostStackKind(name));
    const double host = 7 * (h.send_per_message_ns + h.receive_per_message_ns) +
                        (h.send_per_byte_ns + h.receive_per_byte_ns) * 7 * S / 8;
    EXPECT_NEAR(RunTime(WithHost(doc, name)) - base, host, 1e-9 * (base + host)) << name;
  }
}

TEST(HostStackAnalytical, S4RdmaIsOverTenTimesFasterThanGrpcWhenCommunicationBound) {
  // A ResNet-50-size gradient all-reduce (100 MB) over 8 workers on a 100 Gb/s (12.5 GB/s)
  // Switch: wire time 2 (7/8) 100 MB / 12.5 GB/s = 14 ms; gRPC adds 14 steps x 1.111 ns/B x
  // 12.5 MB ~ 194 ms of serialisation and copies, zero-copy RDMA ~ 14 x 6 us.
  const nlohmann::json doc =
      CollectiveScenario(nlohmann::json::array({Dim("Switch", 8, 12.5, 2000)}), "all_reduce",
                         100000000);
  const double rdma = RunTime(WithHost(doc, "rdma"));
  const double copy = RunTime(WithHost(doc, "rdma_copy"));
  const double grpc = RunTime(WithHost(doc, "grpc"));
  const double none = RunTime(doc);
  EXPECT_GT(grpc / rdma, 10.0);
  EXPECT_LT(rdma, copy);
  EXPECT_LT(copy, grpc);
  EXPECT_LT(none, rdma);
  EXPECT_LT(rdma / none, 1.01);  // zero-copy RDMA costs under 1% here
}

}  // namespace
}  // namespace hfsim
