// packet.faults.link_loss: the most specific entry sets a link's loss, whatever the order of
// the entries (a later fabric-wide entry used to overwrite an earlier per-link one).
#include "sim/packet/link-faults.h"

#include <gtest/gtest.h>

#include "topologies/fabric-graph.h"
#include "topologies/topology.h"

namespace hfsim {
namespace {

TEST(LinkFaults, TheMostSpecificEntryWinsInAnyOrder) {
  const Topology topology({Dimension{DimensionKind::kRing, 4, 100.0, 10.0},
                           Dimension{DimensionKind::kSwitch, 2, 50.0, 10.0}});
  const FabricGraph graph(topology);
  LinkId on_dimension_1 = 0;
  while (graph.Link(on_dimension_1).dimension != 1) ++on_dimension_1;
  const LinkId other_on_dimension_1 = on_dimension_1 + 1;
  ASSERT_EQ(graph.Link(other_on_dimension_1).dimension, 1u);
  LinkLoss link{std::nullopt, on_dimension_1, 0.3};
  LinkLoss dimension{1u, std::nullopt, 0.2};
  LinkLoss fabric{std::nullopt, std::nullopt, 0.1};
  for (const auto& order : {std::vector<LinkLoss>{link, dimension, fabric},
                            std::vector<LinkLoss>{fabric, dimension, link},
                            std::vector<LinkLoss>{dimension, link, fabric}}) {
    PacketSpec spec;
    spec.link_loss = order;
    const LinkFaults faults(graph, spec, 1);
    EXPECT_EQ(faults.LossRate(on_dimension_1), 0.3);
    EXPECT_EQ(faults.LossRate(other_on_dimension_1), 0.2);
    EXPECT_EQ(faults.LossRate(0), 0.1);  // a Ring link of dimension 0
  }
}

}  // namespace
}  // namespace hfsim
