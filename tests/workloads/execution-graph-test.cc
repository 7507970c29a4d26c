// The execution graph's checks and schedule against hand-worked timings: rendezvous of a send
// and its receive, a collective across rank classes that waits for the slowest member, a
// background stream, deadlocks and malformed graphs refused naming the node.
#include <gtest/gtest.h>

#include "tests/workloads/graph-test-util.h"
#include "workloads/graph/graph-check.h"
#include "workloads/graph/graph-schedule.h"

namespace hfsim {
namespace {

using test::Compute;
using test::PointToPoint;

GraphNode Collective(uint64_t id, uint32_t communicator, std::initializer_list<uint32_t> deps = {}) {
  GraphNode node;
  node.kind = GraphNodeKind::kCollective;
  node.id = id;
  node.communicator = communicator;
  node.size_bytes = 4096;
  node.deps.assign(deps.begin(), deps.end());
  return node;
}

ExecutionGraph Ranks(uint32_t count) {
  ExecutionGraph graph;
  graph.rank_count = count;
  graph.dimension_sizes = {count};
  return graph;
}

// Plays the schedule with compute at its duration and every other unit at `comm_ns`; returns
// each class's last end.
struct Played {
  std::vector<double> start, end;
  double total = 0.0;
};
Played Play(const ExecutionGraph& graph, const GraphSchedule& schedule, double comm_ns) {
  Played played;
  schedule.Play<double>(
      [&](uint32_t unit) {
        const GraphSchedule::Member u = schedule.MemberOf(unit);
        const GraphNode& node = graph.classes[u.rank_class].program[u.position];
        return node.kind == GraphNodeKind::kCompute ? node.duration_ns : comm_ns;
      },
      played.start, played.end);
  played.total = schedule.Total(played.end);
  return played;
}

GraphSchedule BuildOrDie(const ExecutionGraph& graph) {
  EXPECT_FALSE(CheckGraph(graph).has_value()) << CheckGraph(graph)->ToString();
  GraphSchedule schedule;
  const auto error = GraphSchedule::Build(graph, schedule);
  EXPECT_FALSE(error.has_value()) << error->ToString();
  return schedule;
}

// Rank 0: compute 10, send, compute 5. Rank 1: compute 30, receive, compute 1. The transfer
// (7 ns) starts when both are posted, at 30: rank 0 ends at 30 + 7 + 5 = 42, rank 1 at 38.
TEST(ExecutionGraph, SendAndReceiveStartTogether) {
  ExecutionGraph graph = Ranks(2);
  graph.classes.push_back({{0}, {Compute(1, 10), PointToPoint(GraphNodeKind::kSend, 2, 1, {0}),
                                 Compute(3, 5, {1})}});
  graph.classes.push_back({{1}, {Compute(1, 30), PointToPoint(GraphNodeKind::kRecv, 2, 0, {0}),
                                 Compute(3, 1, {1})}});
  const GraphSchedule schedule = BuildOrDie(graph);
  ASSERT_EQ(schedule.UnitOf(0, 1), schedule.UnitOf(1, 1));  // one unit: they start together
  const Played played = Play(graph, schedule, 7);
  EXPECT_EQ(played.start[schedule.UnitOf(0, 1)], 30.0);
  EXPECT_EQ(played.end[schedule.UnitOf(0, 2)], 42.0);
  EXPECT_EQ(played.end[schedule.UnitOf(1, 2)], 38.0);
  EXPECT_EQ(played.total, 42.0);
}

// Four ranks in two classes, one group of all four: the collective starts when the slower
// class (compute 100) issues it, so both classes end at 100 + 20.
TEST(ExecutionGraph, CollectiveWaitsForItsSlowestMember) {
  ExecutionGraph graph = Ranks(4);
  Communicator all;
  all.name = "all";
  all.groups = {{0, 1, 2, 3}};
  graph.communicators.push_back(all);
  graph.classes.push_back({{0, 1}, {Compute(1, 10), Collective(2, 0, {0})}});
  graph.classes.push_back({{2, 3}, {Compute(1, 100), Collective(2, 0, {0})}});
  const GraphSchedule schedule = BuildOrDie(graph);
  const Played played = Play(graph, schedule, 20);
  EXPECT_EQ(played.end[schedule.UnitOf(0, 1)], 120.0);
  EXPECT_EQ(played.end[schedule.UnitOf(1, 1)], 120.0);
  EXPECT_EQ(played.total, 120.0);
}

// Dimension-aligned communicators on a 2 x 3 fabric: rank 4 has coordinates (0, 2), so along
// dimension 1 its group is (0, 0..2) = ranks 0, 2, 4 and along dimension 0 it is (0..1, 2) = 4, 5.
TEST(ExecutionGraph, DimensionAlignedGroupsFollowTheCoordinates) {
  ExecutionGraph graph;
  graph.rank_count = 6;
  graph.dimension_sizes = {2, 3};
  Communicator along1;
  along1.name = "along1";
  along1.dimensions = {1};
  Communicator along0;
  along0.name = "along0";
  along0.dimensions = {0};
  graph.communicators = {along1, along0};
  EXPECT_EQ(GroupIndex(graph, 0).Members(4), (std::vector<uint32_t>{0, 2, 4}));
  EXPECT_EQ(GroupIndex(graph, 0).Members(3), (std::vector<uint32_t>{1, 3, 5}));
  EXPECT_EQ(GroupIndex(graph, 1).Members(4), (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(GroupIndex(graph, 0).GroupOf(2), GroupIndex(graph, 0).GroupOf(4));
  EXPECT_NE(GroupIndex(graph, 0).GroupOf(2), GroupIndex(graph, 0).GroupOf(3));
}

// Stream 1 runs beside stream 0: compute 10, then a 50 ns background node that waits for it,
// then compute 20 on stream 0 that does not: stream 0 ends at 30, the job at 60.
TEST(ExecutionGraph, BackgroundStreamOverlapsTheMainStream) {
  ExecutionGraph graph = Ranks(1);
  Communicator self;
  self.name = "self";
  graph.communicators.push_back(self);  // every rank alone
  GraphNode background = Collective(2, 0, {0});
  background.stream = 1;
  graph.classes.push_back({{0}, {Compute(1, 10), background, Compute(3, 20, {0})}});
  const GraphSchedule schedule = BuildOrDie(graph);
  const Played played = Play(graph, schedule, 50);
  EXPECT_EQ(played.end[schedule.MainStreamEnd(0)], 30.0);
  EXPECT_EQ(played.total, 60.0);
}

// Each rank receives before it sends: neither can start.
TEST(ExecutionGraph, RanksWaitingOnEachOtherAreRefusedNamingANode) {
  ExecutionGraph graph = Ranks(2);
  graph.classes.push_back({{0}, {PointToPoint(GraphNodeKind::kRecv, 7, 1),
                                 PointToPoint(GraphNodeKind::kSend, 8, 1, {0})}});
  graph.classes.push_back({{1}, {PointToPoint(GraphNodeKind::kRecv, 7, 0),
                                 PointToPoint(GraphNodeKind::kSend, 8, 0, {0})}});
  ASSERT_FALSE(CheckGraph(graph).has_value());
  GraphSchedule schedule;
  const auto error = GraphSchedule::Build(graph, schedule);
  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->node == 7u || error->node == 8u) << error->ToString();
  EXPECT_NE(error->message.find("circle"), std::string::npos) << error->ToString();
}

TEST(ExecutionGraph, SendWithoutReceiveIsRefusedNamingTheSend) {
  ExecutionGraph graph = Ranks(2);
  graph.classes.push_back({{0}, {PointToPoint(GraphNodeKind::kSend, 5, 1)}});
  graph.classes.push_back({{1}, {Compute(1, 1)}});
  const auto error = CheckGraph(graph);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rank, 0u);
  EXPECT_EQ(error->node, 5u);
  EXPECT_NE(error->message.find("no matching receive"), std::string::npos) << error->ToString();
}

TEST(ExecutionGraph, GroupNamingAMissingRankIsRefused) {
  ExecutionGraph graph = Ranks(4);
  Communicator bad;
  bad.name = "bad";
  bad.groups = {{0, 9}};
  graph.communicators.push_back(bad);
  graph.classes.push_back({{0, 1, 2, 3}, {Compute(1, 1)}});
  const auto error = CheckGraph(graph);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("rank 9, which does not exist"), std::string::npos)
      << error->ToString();
}

TEST(ExecutionGraph, MembersIssuingDifferentCollectivesAreRefused) {
  ExecutionGraph graph = Ranks(2);
  Communicator pair;
  pair.name = "pair";
  pair.groups = {{0, 1}};
  graph.communicators.push_back(pair);
  GraphNode bigger = Collective(4, 0);
  bigger.size_bytes = 8192;
  graph.classes.push_back({{0}, {Collective(3, 0)}});
  graph.classes.push_back({{1}, {bigger}});
  const auto error = CheckGraph(graph);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("no matching call"), std::string::npos) << error->ToString();
}

TEST(ExecutionGraph, ADependencyOnALaterNodeIsRefused) {
  ExecutionGraph graph = Ranks(1);
  graph.classes.push_back({{0}, {Compute(1, 1, {1}), Compute(2, 1)}});
  const auto error = CheckGraph(graph);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->node, 1u);
}

TEST(ExecutionGraph, EveryRankNeedsExactlyOneProgram) {
  ExecutionGraph graph = Ranks(3);
  graph.classes.push_back({{0, 1}, {Compute(1, 1)}});
  ASSERT_TRUE(CheckGraph(graph).has_value());
  EXPECT_EQ(CheckGraph(graph)->rank, 2u);
  graph.classes.push_back({{1, 2}, {Compute(1, 1)}});
  ASSERT_TRUE(CheckGraph(graph).has_value());
  EXPECT_NE(CheckGraph(graph)->message.find("two programs"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
