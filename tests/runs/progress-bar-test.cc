// ProgressBar::Render on hand-computed cases: bar, percentage, counts, rate and time left.
#include "sim/runs/progress-bar.h"

#include <gtest/gtest.h>

namespace hfsim {
namespace {

const std::string kEmpty(30, '.');

TEST(SweepProgressBar, NothingDoneYet) {
  EXPECT_EQ(ProgressBar::Render("sweep", 0, 100, 0, 0.0),
            "sweep [" + kEmpty + "]   0.0% 0/100 - points/s left ?");
}

TEST(SweepProgressBar, HalfwayAtFivePerSecond) {
  // 50 of 100 in 10 s: 5 points/s, 50 left take 10 s; 15 of 30 characters filled.
  EXPECT_EQ(ProgressBar::Render("sweep", 50, 100, 0, 10.0),
            "sweep [" + std::string(15, '#') + std::string(15, '.') +
                "]  50.0% 50/100 5.0 points/s left 0:00:10");
}

TEST(SweepProgressBar, ResumedPointsDoNotCountTowardsTheRate) {
  // 60 done, 50 of them from the earlier run: 10 in 2 s is 5/s; 40 left take 8 s. 60% is 18 of
  // 30 characters.
  EXPECT_EQ(ProgressBar::Render("sweep", 60, 100, 50, 2.0),
            "sweep [" + std::string(18, '#') + std::string(12, '.') +
                "]  60.0% 60/100 5.0 points/s left 0:00:08");
}

TEST(SweepProgressBar, ThousandsMillionsAndHours) {
  // 2500 of 10000 in 1 s: 2.5 k/s, 7500 left take 3 s.
  EXPECT_EQ(ProgressBar::Render("s", 2500, 10000, 0, 1.0),
            "s [#######" + std::string(23, '.') + "]  25.0% 2500/10000 2.5 k points/s left 0:00:03");
  // 3 M of 4 M in 1 s: 1 M left, a third of a second, shown as 0:00:00.
  EXPECT_EQ(ProgressBar::Render("s", 3000000, 4000000, 0, 1.0),
            "s [" + std::string(22, '#') + std::string(8, '.') +
                "]  75.0% 3000000/4000000 3.00 M points/s left 0:00:00");
  // 1 of 10000 after 1 s: 9999 s = 2 h 46 min 39 s.
  EXPECT_EQ(ProgressBar::Render("s", 1, 10000, 0, 1.0),
            "s [" + kEmpty + "]   0.0% 1/10000 1.0 points/s left 2:46:39");
}

TEST(SweepProgressBar, SlowerThanOneASecondShowsSecondsEach) {
  // 1 of 10 packet points after 4 s: 0.25 points/s, shown as 4.0 s/point; 9 left take 36 s.
  EXPECT_EQ(ProgressBar::Render("sweep", 1, 10, 0, 4.0),
            "sweep [###" + std::string(27, '.') + "]  10.0% 1/10 4.0 s/point left 0:00:36");
  EXPECT_EQ(RateText(0.5, "point"), "2.0 s/point");
  EXPECT_EQ(RateText(1234.0, "event"), "1.2 k events/s");
}

TEST(SweepProgressBar, Finished) {
  EXPECT_EQ(ProgressBar::Render("sweep", 8, 8, 0, 4.0),
            "sweep [" + std::string(30, '#') + "] 100.0% 8/8 2.0 points/s left 0:00:00");
  // An empty sweep is complete.
  EXPECT_EQ(ProgressBar::Render("sweep", 0, 0, 0, 0.0),
            "sweep [" + std::string(30, '#') + "] 100.0% 0/0 - points/s left ?");
}

}  // namespace
}  // namespace hfsim
