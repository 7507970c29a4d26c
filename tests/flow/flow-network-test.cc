// Messages as fluid flows, timed by hand on one Switch dimension (50 bytes/ns per NPU, 500 ns
// per hop: two hops between NPUs): a lone message drains at the link rate and arrives a route
// latency later; messages into one NPU share its down-link; a message that starts later gets
// its share from then on; links carry every byte of every flow that crosses them.
#include "sim/flow/flow-network.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

namespace hfsim {
namespace {

FabricGraph OneSwitch(uint32_t npus) {
  return FabricGraph(Topology({{DimensionKind::kSwitch, npus, 50.0, 500.0}}));
}

// Plays the network to the end: each message's arrival time.
std::map<FlowNetwork::FlowId, double> Arrivals(FlowNetwork& network) {
  std::map<FlowNetwork::FlowId, double> at;
  while (network.NextEvent() < std::numeric_limits<double>::infinity()) {
    for (const auto id : network.AdvanceTo(network.NextEvent())) at[id] = network.Now();
  }
  return at;
}

TEST(FlowNetwork, ALoneMessageDrainsAtTheLinkRateThenTakesTheRouteLatency) {
  const FabricGraph fabric = OneSwitch(2);
  FlowNetwork network(fabric);
  const auto id = network.Start(0, 1, 8000);
  EXPECT_DOUBLE_EQ(network.NextEvent(), 160.0);  // drained
  EXPECT_DOUBLE_EQ(Arrivals(network).at(id), 160.0 + 2 * 500.0);
}

TEST(FlowNetwork, MessagesIntoOneNpuShareItsDownLink) {
  const FabricGraph fabric = OneSwitch(3);
  FlowNetwork network(fabric);
  const auto a = network.Start(0, 2, 10'000), b = network.Start(1, 2, 10'000);
  const auto at = Arrivals(network);
  EXPECT_DOUBLE_EQ(at.at(a), 10'000 / 25.0 + 1000.0);
  EXPECT_DOUBLE_EQ(at.at(b), 10'000 / 25.0 + 1000.0);
  // Each crossed two links with all its bytes; NPU 2's down-link carried both at once.
  double total = 0.0;
  uint32_t peak = 0;
  for (size_t l = 0; l < fabric.LinkCount(); ++l) {
    total += network.LinkBytes()[l];
    peak = std::max(peak, network.LinkPeakFlows()[l]);
  }
  EXPECT_DOUBLE_EQ(total, 4 * 10'000.0);
  EXPECT_EQ(peak, 2u);
}

// A alone for 100 ns (5,000 bytes), then A and B at 25 each: A drains at 300, B alone again at
// 50 for its last 5,000 bytes: 400.
TEST(FlowNetwork, ALaterMessageGetsItsShareFromThenOn) {
  const FabricGraph fabric = OneSwitch(3);
  FlowNetwork network(fabric);
  const auto a = network.Start(0, 2, 10'000);
  network.AdvanceTo(100.0);
  const auto b = network.Start(1, 2, 10'000);
  const auto at = Arrivals(network);
  EXPECT_DOUBLE_EQ(at.at(a), 300.0 + 1000.0);
  EXPECT_DOUBLE_EQ(at.at(b), 400.0 + 1000.0);
}

TEST(FlowNetwork, EmptyMessagesTakeTheLatencyOnly) {
  const FabricGraph fabric = OneSwitch(2);
  FlowNetwork network(fabric);
  const auto empty = network.Start(0, 1, 0), self = network.Start(1, 1, 4096);
  const auto at = Arrivals(network);
  EXPECT_DOUBLE_EQ(at.at(empty), 1000.0);
  EXPECT_DOUBLE_EQ(at.at(self), 0.0);
  EXPECT_THROW(network.AdvanceTo(-1.0), std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
