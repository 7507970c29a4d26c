// Sends and receives in programs run by several ranks: the i-th rank of one program talks to
// the i-th rank of its peer's program (PeerResolver). Checked against hand-worked pairings and
// timings, against CheckGraph's refusals of pairings that cannot hold, and against the same
// graph with every rank given its own program (RefineRankClasses's fallback, and what the
// pipeline generator wrote before its stages shared programs).
#include <gtest/gtest.h>

#include <map>

#include "topologies/topology.h"
#include "tests/workloads/graph-test-util.h"
#include "workloads/graph/graph-check.h"
#include "workloads/graph/graph-schedule.h"
#include "workloads/graph/rank-classes.h"

namespace hfsim {
namespace {

using test::Compute;
using test::PointToPoint;

ExecutionGraph Ring(uint32_t count) {
  ExecutionGraph graph;
  graph.rank_count = count;
  graph.dimension_sizes = {count};
  return graph;
}

Topology RingTopology(uint32_t count) {
  return Topology({{DimensionKind::kRing, count, 100.0, 0.0}});
}

// Senders compute 10 then send; receivers compute 30, receive, compute 1.
ExecutionGraph SendersAndReceivers(std::vector<uint32_t> senders, std::vector<uint32_t> receivers,
                                   uint32_t ranks) {
  ExecutionGraph graph = Ring(ranks);
  graph.classes.push_back(
      {senders, {Compute(1, 10), PointToPoint(GraphNodeKind::kSend, 2, receivers[0], {0})}});
  graph.classes.push_back({receivers,
                           {Compute(1, 30), PointToPoint(GraphNodeKind::kRecv, 2, senders[0], {0}),
                            Compute(3, 1, {1})}});
  return graph;
}

TEST(PeerClasses, TheIthRankOfAProgramTalksToTheIthOfItsPeers) {
  const ExecutionGraph graph = SendersAndReceivers({0, 1}, {2, 3}, 4);
  ASSERT_FALSE(CheckGraph(graph).has_value()) << CheckGraph(graph)->ToString();
  const PeerResolver peers(graph);
  const GraphNode& send = graph.classes[0].program[1];
  const GraphNode& recv = graph.classes[1].program[1];
  EXPECT_EQ(peers.PeerOf(0, send), 2u);
  EXPECT_EQ(peers.PeerOf(1, send), 3u);
  EXPECT_EQ(peers.PeerOf(2, recv), 0u);
  EXPECT_EQ(peers.PeerOf(3, recv), 1u);
  // Timed as two ranks: the message (7 ns) starts at 30, the receivers end at 38.
  GraphSchedule schedule;
  ASSERT_FALSE(GraphSchedule::Build(graph, schedule).has_value());
  std::vector<double> end;
  schedule.PlayEnds<double>(
      [&](uint32_t unit) {
        const GraphSchedule::Member u = schedule.MemberOf(unit);
        const GraphNode& node = graph.classes[u.rank_class].program[u.position];
        return node.kind == GraphNodeKind::kCompute ? node.duration_ns : 7.0;
      },
      end);
  EXPECT_DOUBLE_EQ(end[schedule.UnitOf(0, 1)], 37.0);
  EXPECT_DOUBLE_EQ(schedule.Total(end), 38.0);
}

TEST(PeerClasses, PairingsThatCannotHoldAreRefusedNamingTheNode) {
  auto error_of = [](const ExecutionGraph& graph) {
    const auto error = CheckGraph(graph);
    return error ? error->ToString() : std::string();
  };
  // The peer's program runs on one rank, this one on two.
  ExecutionGraph uneven = Ring(4);
  uneven.classes.push_back({{0, 1}, {PointToPoint(GraphNodeKind::kSend, 7, 2)}});
  uneven.classes.push_back({{2}, {PointToPoint(GraphNodeKind::kRecv, 8, 0)}});
  uneven.classes.push_back({{3}, {}});
  EXPECT_EQ(error_of(uneven),
            "rank 0, node 7: send to rank 2 from a program of 2 ranks: the peer must be the first "
            "rank of a program of as many ranks (the i-th rank of one talks to the i-th of the "
            "other), but rank 2 is rank 0 of a program of 1");
  // The peer is not its program's first rank: rank 1 would talk to nobody.
  ExecutionGraph not_first = SendersAndReceivers({0, 1}, {2, 3}, 4);
  not_first.classes[0].program[1].peer = 3;
  EXPECT_NE(error_of(not_first).find("rank 0, node 2: send to rank 3 from a program of 2 ranks"),
            std::string::npos)
      << error_of(not_first);
  // Rank 1 of a program sending to rank 0 of the same program would send to itself.
  ExecutionGraph same = Ring(2);
  same.classes.push_back({{0, 1},
                          {PointToPoint(GraphNodeKind::kSend, 1, 1),
                           PointToPoint(GraphNodeKind::kRecv, 2, 1)}});
  EXPECT_EQ(error_of(same),
            "rank 0, node 1: send to rank 1, which runs this same program: its other ranks would "
            "talk to themselves");
}

// Rank i of one program reaching rank i of another by different offsets along a dimension is
// priced differently: RefineRankClasses gives each of those ranks (and their peers) a program
// of its own, with its peer written out.
TEST(PeerClasses, UnevenRoutesGetProgramsOfTheirOwn) {
  // A ring of 6: 0 -> 3 is 3 hops, 1 -> 5 is 4 hops (offsets 3 and 4). Ranks 2 and 4 wait.
  ExecutionGraph graph = SendersAndReceivers({0, 1}, {3, 5}, 6);
  graph.classes.push_back({{2, 4}, {Compute(1, 5)}});
  ASSERT_FALSE(CheckGraph(graph).has_value()) << CheckGraph(graph)->ToString();
  RefineRankClasses(graph, RingTopology(6));
  ASSERT_EQ(graph.classes.size(), 5u);
  std::map<uint32_t, uint32_t> peer_of;
  for (const RankClass& rank_class : graph.classes) {
    if (rank_class.ranks.size() > 1) {
      EXPECT_EQ(rank_class.ranks, (std::vector<uint32_t>{2, 4}));  // untouched: no sends
      continue;
    }
    for (const GraphNode& node : rank_class.program) {
      if (node.kind == GraphNodeKind::kSend || node.kind == GraphNodeKind::kRecv) {
        peer_of[rank_class.ranks[0]] = node.peer;
      }
    }
  }
  EXPECT_EQ(peer_of, (std::map<uint32_t, uint32_t>{{0, 3}, {1, 5}, {3, 0}, {5, 1}}));
  EXPECT_FALSE(CheckGraph(graph).has_value());

  // Even offsets (0 -> 3, 1 -> 4: 3 hops each) keep the programs shared.
  ExecutionGraph even = SendersAndReceivers({0, 1}, {3, 4}, 6);
  even.classes.push_back({{2, 5}, {Compute(1, 5)}});
  RefineRankClasses(even, RingTopology(6));
  EXPECT_EQ(even.classes.size(), 3u);
}

// A program with sends that must split for its groups' sake (here: rank 0's group of 2, rank
// 1's group of 1) splits with the programs it talks to, each rank on its own.
TEST(PeerClasses, AProgramWithSendsSplitsWithItsPeers) {
  ExecutionGraph graph = SendersAndReceivers({0, 1}, {2, 3}, 4);
  Communicator& comm = graph.communicators.emplace_back();
  comm.name = "pair";
  comm.groups = {{0, 2}, {1}, {3}};
  GraphNode all_reduce;
  all_reduce.kind = GraphNodeKind::kCollective;
  all_reduce.id = 9;
  all_reduce.size_bytes = 64;
  all_reduce.deps = {1};
  graph.classes[0].program.push_back(all_reduce);
  graph.classes[1].program.push_back(all_reduce);
  graph.classes[1].program.back().deps = {2};
  ASSERT_FALSE(CheckGraph(graph).has_value()) << CheckGraph(graph)->ToString();
  RefineRankClasses(graph, RingTopology(4));
  ASSERT_EQ(graph.classes.size(), 4u);
  for (uint32_t c = 0; c < 4; ++c) {
    EXPECT_EQ(graph.classes[c].ranks, std::vector<uint32_t>{c});
    EXPECT_EQ(graph.classes[c].program[1].peer, (c + 2) % 4) << "rank " << c;
  }
  EXPECT_FALSE(CheckGraph(graph).has_value());
}

}  // namespace
}  // namespace hfsim
