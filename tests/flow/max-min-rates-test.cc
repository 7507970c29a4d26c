// Max-min fair rates against link sets solved by hand.
#include "sim/flow/max-min-rates.h"

#include <gtest/gtest.h>

namespace hfsim {
namespace {

// Three flows through one link of 30: 10 each.
TEST(MaxMinRates, ABottleneckSharedByThreeFlows) {
  const std::vector<double> rates = MaxMinRates({30.0}, {{{0}}, {{0}}, {{0}}});
  EXPECT_EQ(rates, (std::vector<double>{10.0, 10.0, 10.0}));
}

// The parking lot: links 0, 1, 2 of capacity 1 in a row; one long flow over all three and one
// short flow on each. Every link has two flows: 1/2 each.
TEST(MaxMinRates, ParkingLot) {
  const std::vector<double> rates =
      MaxMinRates({1.0, 1.0, 1.0}, {{{0, 1, 2}}, {{0}}, {{1}}, {{2}}});
  for (const double r : rates) EXPECT_DOUBLE_EQ(r, 0.5);
}

// Link A of 10 carries f0 and f1; link B of 4 carries f1 and f2. B binds first at 2 each; f0
// then takes what A has left: 8.
TEST(MaxMinRates, AFrozenFlowLeavesItsShareToTheOthers) {
  const std::vector<double> rates = MaxMinRates({10.0, 4.0}, {{{0}}, {{0, 1}}, {{1}}});
  EXPECT_DOUBLE_EQ(rates[0], 8.0);
  EXPECT_DOUBLE_EQ(rates[1], 2.0);
  EXPECT_DOUBLE_EQ(rates[2], 2.0);
}

// A flow capped below its fair share (a slow sender) leaves the rest to the others: 3 flows on
// 30, one capped at 4, the two others 13 each. A flow crossing no link takes its cap.
TEST(MaxMinRates, CapsAndFlowsWithoutLinks) {
  const std::vector<double> rates = MaxMinRates({30.0}, {{{0}, 4.0}, {{0}}, {{0}}, {{}, 7.0}});
  EXPECT_DOUBLE_EQ(rates[0], 4.0);
  EXPECT_DOUBLE_EQ(rates[1], 13.0);
  EXPECT_DOUBLE_EQ(rates[2], 13.0);
  EXPECT_DOUBLE_EQ(rates[3], 7.0);
}

// Conservation: no link carries more than its capacity, and every flow crosses a saturated
// link or runs at its cap (the max-min condition), on a random-looking but fixed instance.
TEST(MaxMinRates, NoLinkOverfilledAndEveryFlowBottlenecked) {
  const std::vector<double> capacity = {5.0, 7.0, 3.0, 11.0, 2.0};
  const std::vector<FlowDemand> flows = {{{0, 1}}, {{1, 2, 3}}, {{3}},      {{0, 4}},
                                         {{2}},    {{1, 3}},    {{4}, 0.5}, {{0, 2, 4}}};
  const std::vector<double> rates = MaxMinRates(capacity, flows);
  std::vector<double> load(capacity.size(), 0.0);
  for (size_t f = 0; f < flows.size(); ++f) {
    for (const uint32_t l : flows[f].links) load[l] += rates[f];
  }
  for (size_t l = 0; l < capacity.size(); ++l) EXPECT_LE(load[l], capacity[l] * (1 + 1e-12));
  for (size_t f = 0; f < flows.size(); ++f) {
    bool bound = rates[f] >= flows[f].cap;
    for (const uint32_t l : flows[f].links) {
      // A bottleneck: saturated, and no flow on it gets more than this one.
      if (load[l] < capacity[l] * (1 - 1e-9)) continue;
      bool largest = true;
      for (size_t g = 0; g < flows.size(); ++g) {
        for (const uint32_t m : flows[g].links) {
          if (m == l && rates[g] > rates[f] * (1 + 1e-9)) largest = false;
        }
      }
      bound = bound || largest;
    }
    EXPECT_TRUE(bound) << "flow " << f;
  }
}

}  // namespace
}  // namespace hfsim
