// RunProgress::Render on hand-computed cases: simulated time against the analytical estimate,
// events and their rate, and the time left at that pace.
#include "sim/runs/run-progress.h"

#include <gtest/gtest.h>

namespace hfsim {
namespace {

TEST(RunProgress, AQuarterOfTheWayAfterTenSeconds) {
  // 1 ms of an expected 4 ms after 10 s: 3 ms more at that pace take 30 s. 2.5 M events in
  // 10 s: 250 k events/s.
  EXPECT_EQ(RunProgress::Render("packet engine", 1e6, 4e6, 2500000, 10.0),
            "packet engine: 1.000 ms simulated of about 4.000 ms (25%), 2500000 events, "
            "250.0 k events/s, about 0:00:30 left");
}

TEST(RunProgress, PastTheEstimateNoTimeLeftIsPromised) {
  EXPECT_EQ(RunProgress::Render("packet engine", 5e6, 4e6, 3000000, 2.0),
            "packet engine: 5.000 ms simulated, past the analytical 4.000 ms, 3000000 events, "
            "1.50 M events/s");
}

TEST(RunProgress, WithoutAnEstimateTimeAndRateOnly) {
  EXPECT_EQ(RunProgress::Render("run", 812.0, 0.0, 4096, 0.5),
            "run: 812 ns simulated, 4096 events, 8.2 k events/s");
  EXPECT_EQ(RunProgress::Render("run", 2.5e9, 0.0, 1, 2.0),
            "run: 2.500 s simulated, 1 event, 2.0 s/event");
}

}  // namespace
}  // namespace hfsim
