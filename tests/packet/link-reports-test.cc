// The one per-link filler of packet reports (sim/packet/link-reports.h) and the busy time taken
// from links (sim/report/link-rows.h), on counters written by hand. Before it there were three
// fillers, and the in-network all-reduce's dropped every link's ECN marks and their total.
#include "sim/packet/link-reports.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/report/link-rows.h"
#include "topologies/fabric-graph.h"
#include "topologies/topology.h"

namespace hfsim {
namespace {

// A Switch of 2 NPUs at 10 B/ns: links 0..3 join NPU 0 and NPU 1 to the switch, both ways.
Topology TwoOnASwitch() { return Topology({Dimension{DimensionKind::kSwitch, 2, 10.0, 100.0}}); }

TEST(LinkReports, EveryCounterReachesItsRowAndTheTotals) {
  const Topology topology = TwoOnASwitch();
  const FabricGraph graph(topology);
  ASSERT_EQ(graph.LinkCount(), 4u);
  ASSERT_EQ(graph.Link(1).bandwidth_Bpns, 10.0);  // a Switch's links carry the NPU's bandwidth
  std::vector<LinkCounters> counters(4);
  counters[1] = {/*packets=*/3, /*bytes=*/4000, /*queue_peak_bytes=*/900, /*drops_queue_full=*/2,
                 /*drops_injected=*/1, /*ecn_marks=*/5};
  counters[2] = {7, 1000, 1200, 0, 4, 6};
  PacketReport packet;
  FillLinkReports(graph, counters, /*simulated_ns=*/200.0, packet);
  ASSERT_EQ(packet.links.size(), 4u);
  const LinkReport& one = packet.links[1];
  EXPECT_EQ(one.link, 1u);
  EXPECT_EQ(one.source, graph.Link(1).source);
  EXPECT_EQ(one.target, graph.Link(1).target);
  EXPECT_EQ(one.dimension, 0u);
  EXPECT_EQ(one.packets, 3u);
  EXPECT_EQ(one.bytes, 4000u);
  EXPECT_EQ(one.utilisation, 4000.0 / (10.0 * 200.0));  // 2: the link was busy twice over
  EXPECT_EQ(one.queue_peak_bytes, 900u);
  EXPECT_EQ(one.drops_queue_full, 2u);
  EXPECT_EQ(one.drops_injected, 1u);
  EXPECT_EQ(one.ecn_marks, 5u);
  EXPECT_EQ(packet.links[2].ecn_marks, 6u);
  EXPECT_EQ(packet.links[0].ecn_marks, 0u);
  // Totals: drops and marks summed, the deepest queue.
  EXPECT_EQ(packet.drops_queue_full, 2u);
  EXPECT_EQ(packet.drops_injected, 5u);
  EXPECT_EQ(packet.ecn_marks, 11u);
  EXPECT_EQ(packet.queue_peak_bytes, 1200u);
}

TEST(LinkReports, AnEmptyRunHasNoUtilisation) {
  const Topology topology = TwoOnASwitch();
  const FabricGraph graph(topology);
  std::vector<LinkCounters> counters(4);
  counters[0].bytes = 100;
  PacketReport packet;
  FillLinkReports(graph, counters, 0.0, packet);
  EXPECT_EQ(packet.links[0].utilisation, 0.0);
}

// Busy time is the busiest link's: utilisation 0.5 and 0.25 of a 1000 ns iteration give 500 ns,
// and a dimension already busier keeps its own.
TEST(LinkReports, BusyTimeIsTheBusiestLinksUtilisationTimesTheIteration) {
  Report report;
  report.iteration.total_ns = 1000.0;
  report.dimensions.resize(2);
  report.dimensions[1].busy_ns = 700.0;
  report.packet.emplace();
  LinkReport a, b, c;
  a.dimension = 0, a.utilisation = 0.5;
  b.dimension = 0, b.utilisation = 0.25;
  c.dimension = 1, c.utilisation = 0.5;
  report.packet->links = {a, b, c};
  TakeBusiestPacketLinks(report);
  EXPECT_EQ(report.dimensions[0].busy_ns, 500.0);
  EXPECT_EQ(report.dimensions[1].busy_ns, 700.0);
}

}  // namespace
}  // namespace hfsim
