// Gossip exchanges at packet level: the driver on the fake network (hand-computed step times,
// local messages, a duplicate and a lost message caught), and the packet engine on ns-3 against
// the analytical engine's price of the same steps, with conservation and the same learning.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/messages/gossip-driver.h"
#include "sim/packet/packet-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/messages/fake-network.h"
#include "tests/packet/packet-test-util.h"

namespace hfsim {
namespace {

using test::FakeTransport;
using test::FakeTransportOptions;

// Three steps: step 0 sends 0 -> 1 (100 B) and 1 -> 0 (300 B), step 1 nothing, step 2 sends
// 2 -> 3 (200 B), where nodes 2 and 3 share an NPU (the elastic centre on a worker's NPU).
GossipTrace ThreeSteps() {
  GossipTrace trace;
  trace.messages = {{0, 0, 1, 100}, {0, 1, 0, 300}, {2, 2, 3, 200}};
  trace.total_bytes = 600;
  return trace;
}

// Every message alone on its channel: 10 ns latency, then 1 byte per ns.
FakeTransportOptions TenNanoseconds() {
  FakeTransportOptions options;
  options.latency_ns = 10.0;
  options.bandwidth_Bpns = 1.0;
  return options;
}

TEST(GossipDriver, StepsEndWhenTheirLastMessageArrives) {
  EventLoop clock;
  // Every message on its own channel: 10 ns latency + bytes / (1 B/ns).
  FakeTransport transport(clock, TenNanoseconds());
  const GossipTrace trace = ThreeSteps();
  GossipDriver driver(clock, transport, trace, {0, 1, 2, 2}, 3, 1000.0);
  driver.Start();
  clock.Run();
  EXPECT_TRUE(driver.CheckComplete()) << (driver.Errors().empty() ? "" : driver.Errors()[0]);
  // Step 0: compute to 1000, the slower message (300 B) arrives at 1000 + 10 + 300 = 1310.
  // Step 1: compute only, 2310. Step 2: compute to 3310; the local message arrives at once.
  ASSERT_EQ(driver.StepEndNs().size(), 3u);
  EXPECT_DOUBLE_EQ(driver.StepEndNs()[0], 1310.0);
  EXPECT_DOUBLE_EQ(driver.StepEndNs()[1], 2310.0);
  EXPECT_DOUBLE_EQ(driver.StepEndNs()[2], 3310.0);
  // The local message never touches the fabric, but is delivered (merged) once like the others.
  EXPECT_EQ(driver.NetworkMessagesSent(), 2u);
  EXPECT_EQ(driver.NetworkBytesSent(), 400u);
  EXPECT_EQ(driver.NetworkBytesDelivered(), 400u);
  EXPECT_EQ(driver.MessagesDelivered(), 3u);
}

TEST(GossipDriver, DuplicateAndLostMessagesAreErrors) {
  {
    EventLoop clock;
    FakeTransportOptions options = TenNanoseconds();
    options.duplicate_message = 0;
    options.duplicate_after_ns = 1.0;
    FakeTransport transport(clock, options);
    const GossipTrace trace = ThreeSteps();
    GossipDriver driver(clock, transport, trace, {0, 1, 2, 2}, 3, 1000.0);
    driver.Start();
    clock.Run();
    EXPECT_FALSE(driver.CheckComplete());
    EXPECT_EQ(driver.ErrorCount(), 1u);
    EXPECT_NE(driver.Errors()[0].find("delivered twice"), std::string::npos) << driver.Errors()[0];
  }
  {
    EventLoop clock;
    FakeTransportOptions options = TenNanoseconds();
    options.lose_message = 1;
    FakeTransport transport(clock, options);
    const GossipTrace trace = ThreeSteps();
    GossipDriver driver(clock, transport, trace, {0, 1, 2, 2}, 3, 1000.0);
    driver.Start();
    clock.Run();
    EXPECT_FALSE(driver.Finished());  // step 0 waits for ever on the lost message
    EXPECT_FALSE(driver.CheckComplete());
    EXPECT_NE(driver.Errors()[0].find("0 of 3 steps"), std::string::npos) << driver.Errors()[0];
  }
}

TEST(GossipDriver, RefusesATraceOutOfStepOrder) {
  EventLoop clock;
  FakeTransport transport(clock, FakeTransportOptions{});
  GossipTrace trace;
  trace.messages = {{1, 0, 1, 10}, {0, 1, 0, 10}};
  EXPECT_THROW(GossipDriver(clock, transport, trace, {0, 1}, 2, 0.0), std::invalid_argument);
  trace.messages = {{2, 0, 1, 10}};
  EXPECT_THROW(GossipDriver(clock, transport, trace, {0, 1}, 2, 0.0), std::invalid_argument);
}

// Four workers on a 5-NPU Switch (12.5 GB/s, 1 us per hop), 1 MB exchanges, 1 ms of compute.
nlohmann::json Gossip(const std::string& rule) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "topology": {"dimensions": [{"kind": "Switch", "size": 5, "bandwidth_GBps": 12.5, "latency_ns": 1000}]},
    "workload": {"gossip": {
      "workers": [0, 1, 2, 3], "trigger": {"kind": "fixed", "period_steps": 2},
      "steps": 12, "batch": 8, "model_bytes": 1000000, "step_compute_ns": 1000000,
      "eval_every_steps": 4, "task": {"train_samples": 256, "test_samples": 64}}}
  })");
  doc["workload"]["gossip"]["rule"] = rule;
  if (rule == "elastic") doc["workload"]["gossip"]["server"] = 4;
  return doc;
}

Scenario Load(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

// The packet engine's step times against the analytical price (docs/learning.md). Exchanges
// between distinct peers share no link, so the only difference is the transport's framing:
// 62 B of headers per 4096 B packet (+1.5 %) and the acknowledgement pacing. The elastic centre
// is an incast point: the analytical engine shares its down-link fairly, as DCQCN roughly does.
TEST(GossipPacket, StepTimesMatchTheAnalyticalPriceAndEveryByteArrivesOnce) {
  for (const std::string rule : {"pull", "push_sum", "gosgd", "elastic"}) {
    SCOPED_TRACE(rule);
    const Scenario scenario = Load(Gossip(rule));
    const Report analytical = AnalyticalEngine().Run(scenario);
    const Report packet = PacketEngine().Run(scenario);
    ASSERT_TRUE(packet.gossip.has_value());
    test::ExpectConserved(packet);
    const GossipReport& a = *analytical.gossip;
    const GossipReport& p = *packet.gossip;
    // The same learning: the same messages, bytes and accuracies.
    EXPECT_EQ(p.messages, a.messages);
    EXPECT_EQ(p.total_bytes, a.total_bytes);
    EXPECT_EQ(packet.packet->reductions_scheduled, a.messages);
    ASSERT_EQ(p.evaluations.size(), a.evaluations.size());
    for (size_t i = 0; i < a.evaluations.size(); ++i) {
      EXPECT_EQ(p.evaluations[i].mean_model_accuracy, a.evaluations[i].mean_model_accuracy);
      EXPECT_EQ(p.evaluations[i].bytes, a.evaluations[i].bytes);
    }
    // Every message crosses the fabric (no worker shares the centre's NPU).
    EXPECT_EQ(packet.packet->bytes_scheduled, a.total_bytes);
    EXPECT_DOUBLE_EQ(p.compute_ns, a.compute_ns);
    EXPECT_GT(p.exchange_ns, a.exchange_ns);  // headers and acknowledgements cost something
    EXPECT_NEAR(p.exchange_ns / a.exchange_ns, 1.0, rule == "elastic" ? 0.10 : 0.05)
        << "packet " << p.exchange_ns << " ns, analytical " << a.exchange_ns << " ns";
  }
}

TEST(GossipPacket, LossIsRecoveredAndCostsTime) {
  nlohmann::json doc = Gossip("push_sum");
  const Report clean = PacketEngine().Run(Load(doc));
  doc["packet"] = {{"faults", {{"link_loss", {{{"rate", 0.005}}}}}}};
  const Report lossy = PacketEngine().Run(Load(doc));
  test::ExpectConserved(lossy);
  EXPECT_GT(lossy.packet->drops_injected, 0u);
  EXPECT_GT(lossy.gossip->total_ns, clean.gossip->total_ns);
  EXPECT_EQ(lossy.gossip->final_accuracy, clean.gossip->final_accuracy);
}

TEST(GossipPacket, SameSeedSameReport) {
  const Scenario scenario = Load(Gossip("gosgd"));
  const Report first = PacketEngine().Run(scenario);
  const Report second = PacketEngine().Run(scenario);
  EXPECT_EQ(first.gossip->total_ns, second.gossip->total_ns);
  EXPECT_EQ(first.packet->events, second.packet->events);
}

}  // namespace
}  // namespace hfsim
