// The message runtime's event loop (sim/messages/event-loop.h), which the flow engine's clock and
// the fake network both run on: time order, ties in the order scheduled, events that schedule
// events, a bounded run, bad delays refused, and the progress hook.
#include "sim/messages/event-loop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hfsim {
namespace {

TEST(EventLoop, RunsEventsInTimeOrderAndTiesInTheOrderScheduled) {
  EventLoop loop;
  std::string ran;
  loop.ScheduleNs(5.0, [&] { ran += "c"; });
  loop.ScheduleNs(1.0, [&] { ran += "a"; });
  loop.ScheduleNs(5.0, [&] { ran += "d"; });  // same time as "c", scheduled after it
  loop.ScheduleNs(2.5, [&] { ran += "b"; });
  EXPECT_EQ(loop.Run(), 4u);
  EXPECT_EQ(ran, "abcd");
  EXPECT_EQ(loop.NowNs(), 5.0);
}

// An event scheduled from an event counts from that event's time: 1 + 2 = 3, then 3 + 0 = 3
// (after the event already due at 3, scheduled earlier).
TEST(EventLoop, EventsScheduleLaterEventsFromTheirOwnTime) {
  EventLoop loop;
  std::vector<std::pair<char, double>> ran;
  loop.ScheduleNs(3.0, [&] { ran.emplace_back('x', loop.NowNs()); });
  loop.ScheduleNs(1.0, [&] {
    ran.emplace_back('a', loop.NowNs());
    loop.ScheduleNs(2.0, [&] {
      ran.emplace_back('b', loop.NowNs());
      loop.ScheduleNs(0.0, [&] { ran.emplace_back('c', loop.NowNs()); });
    });
  });
  EXPECT_EQ(loop.Run(), 4u);
  const std::vector<std::pair<char, double>> expected = {{'a', 1.0}, {'x', 3.0}, {'b', 3.0},
                                                         {'c', 3.0}};
  EXPECT_EQ(ran, expected);
}

TEST(EventLoop, StopsAfterMaxEventsAndGoesOnWhereItStopped) {
  EventLoop loop;
  int ran = 0;
  for (int i = 0; i < 5; ++i) loop.ScheduleNs(i, [&] { ++ran; });
  EXPECT_EQ(loop.Run(2), 2u);
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(loop.NowNs(), 1.0);
  EXPECT_EQ(loop.Run(), 3u);
  EXPECT_EQ(ran, 5);
  EXPECT_EQ(loop.Run(), 0u);  // nothing left
}

TEST(EventLoop, RefusesANegativeOrNaNDelay) {
  EventLoop loop;
  EXPECT_THROW(loop.ScheduleNs(-1e-9, [] {}), std::invalid_argument);
  EXPECT_THROW(loop.ScheduleNs(std::nan(""), [] {}), std::invalid_argument);
  EXPECT_EQ(loop.Run(), 0u);
}

// With no wall-clock wait, the hook is asked every 4,096 events: before events 0 and 4096 of
// 10,000 (event 8192 too), with the time of the event that ran last.
TEST(EventLoop, TellsTheProgressHookEvery4096Events) {
  EventLoop loop;
  std::vector<std::pair<double, uint64_t>> seen;
  loop.SetProgress([&](double ns, uint64_t events) { seen.emplace_back(ns, events); },
                   std::chrono::milliseconds(0));
  for (int i = 0; i < 10000; ++i) loop.ScheduleNs(i + 1.0, [] {});
  EXPECT_EQ(loop.Run(), 10000u);
  const std::vector<std::pair<double, uint64_t>> expected = {
      {0.0, 0}, {4096.0, 4096}, {8192.0, 8192}};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace hfsim
