// Runs an execution graph (workloads/graph/execution-graph.h) message by message: every rank
// plays its class's program, collectives run on the CollectiveExecutor over their groups, sends
// and receives as single messages on a transport, compute as timers. The same semantics the
// analytical engine prices in closed form (docs/graph.md):
//   - a node starts when its dependencies have finished and the node before it on its stream
//     has finished; of several that can start, the earlier in the program starts first;
//   - the k-th collective a rank issues on a communicator is the k-th of its group; the group's
//     executor collective exists from the first member's arrival and each member enters it
//     when it gets there (no barrier: the schedule's steps wait for what they need);
//   - a send and its receive (same source, destination and tag, in order) are matched; the
//     message leaves after the endpoint delay once both are issued; the receive ends at
//     delivery, the send when the sender learns of it (its acknowledgement).
//
// A communicator whose groups are whole dimensions and whose every program issues the same
// collectives on it runs each of them as one executor collective over the whole fabric, which
// serves every group at once; any other communicator runs one executor collective per group.
// Holds no ns-3 type.
#pragma once

#include <cstdint>
#include <string>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "sim/messages/collective-executor.h"
#include "sim/messages/event-clock.h"
#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// What one rank class's representative (its first rank) did, node by node.
struct MeasuredProgram {
  std::vector<double> start_ns;  ///< per node: when it started at the representative
  std::vector<double> end_ns;    ///< per node: when it finished there
  /// Per node: the executor collectives it ran, one per repetition (collectives only; none
  /// for a group of one rank).
  std::vector<std::vector<CollectiveId>> collectives;
  /// Per node, per repetition: how long it took there. Compute: its duration as given (the
  /// clock may round it); a collective: from entering to its part being done; a send or
  /// receive: from its match (both ends issued) to its end. Kept per repetition so that sums of them add in
  /// the order the time was spent.
  std::vector<std::vector<double>> took_ns;
};

class GraphDriver {
 public:
  /// `graph` must have passed CheckGraph and compile for the analytical engine (its groups are
  /// products of coordinates). `point_to_point` carries sends; the executor runs on another
  /// transport of the same fabric. All must outlive the run's events.
  GraphDriver(const Topology& topology, const ExecutionGraph& graph, CollectiveExecutor& executor,
              MessageTransport& point_to_point, EventClock& clock, double endpoint_delay_ns);
  GraphDriver(const GraphDriver&) = delete;
  GraphDriver& operator=(const GraphDriver&) = delete;

  /// Starts every rank's program now, rank by rank. Run the clock's event loop to the end.
  /// Throws std::logic_error when called twice.
  void Start();

  bool Finished() const { return m_finished_ranks == m_rank_count; }
  /// From Start until the last rank's last node finished (valid once Finished()).
  double TotalNs() const;
  /// A class's representative's iteration breakdown, summed in program order as the analytical
  /// engine sums its priced durations (sim/analytical/graph-pricing.h): each node's own time,
  /// not the wait before it could start; gradient communication on the main stream all exposed,
  /// on a background stream only the tail after the main stream's end at that rank.
  IterationTimeline Breakdown(uint32_t rank_class) const;
  /// Per rank class: its representative's node times.
  const std::vector<MeasuredProgram>& Measured() const { return m_measured; }

  /// Bytes of point-to-point messages the graph puts on the fabric, and those sent and
  /// delivered (conservation).
  uint64_t PointToPointBytesPlanned() const { return m_p2p_bytes_planned; }
  uint64_t PointToPointBytesSent() const { return m_p2p_bytes_sent; }
  uint64_t PointToPointBytesDelivered() const { return m_p2p_bytes_delivered; }
  uint64_t PointToPointMessages() const { return m_p2p_messages; }
  /// What did not add up once the loop drained: ranks not finished (the first named, with the
  /// node it waits at), sends without receives, messages in flight. Empty when clean.
  std::vector<std::string> CheckComplete() const;

 private:
  struct RankState {
    uint32_t rank_class = 0;
    uint32_t nodes_done = 0;
    std::vector<uint32_t> next;    ///< per stream: index into the class's stream list
    std::vector<uint8_t> busy;     ///< per stream: its current node has started, not finished
    std::vector<uint32_t> issued;  ///< per communicator: collectives issued so far
    bool finished = false;
    bool starting = false;  ///< inside TryStart: a nested call only asks for another pass
    bool again = false;
  };
  struct ClassInfo {
    std::vector<std::vector<uint32_t>> streams;  ///< per stream: node positions, program order
    std::vector<uint32_t> stream_of;             ///< per node: index into `streams`
    std::vector<uint32_t> ordinal;  ///< per send or receive: its place among its (peer, tag)
    uint32_t representative = 0;
  };
  /// A send or a receive waiting for its match.
  struct Pending {
    uint32_t rank;
    uint32_t node;
  };
  struct Message {
    uint32_t src_rank, src_node, dst_rank, dst_node;  ///< dst_node kNoNode: receive not issued yet
    uint64_t bytes;
    double matched_ns;  ///< when both ends were issued (eager sends: when the send was)
    bool delivered = false;
  };
  static constexpr uint32_t kNoNode = UINT32_MAX;

  void TryStart(uint32_t rank);
  void StartNode(uint32_t rank, uint32_t node);
  void RunCollective(uint32_t rank, uint32_t node, uint32_t repetition);
  void Issue(uint32_t rank, uint32_t node);
  void Transfer(const Pending& send, const Pending& receive);
  /// Eager sends (ExecutionGraph::eager_sends): a send leaves at once; its receive binds to it
  /// when issued and ends once it has arrived.
  void IssueEager(uint32_t rank, uint32_t node);
  void Finish(uint32_t rank, uint32_t node);
  /// A send's or receive's time, from the match to its end, at a class representative.
  void RecordTransfer(uint32_t rank, uint32_t node, double took_ns);
  CollectiveId CollectiveFor(uint32_t rank, const GraphNode& node, uint32_t sequence);
  const CollectiveMembers& MembersOf(uint32_t communicator, uint32_t rank);
  uint8_t& Done(uint32_t rank, uint32_t node) { return m_done[m_done_offset[rank] + node]; }
  const GraphNode& NodeOf(uint32_t rank, uint32_t node) const {
    return m_graph.classes[m_ranks[rank].rank_class].program[node];
  }
  void OnDelivered(uint64_t id);
  void OnAcknowledged(uint64_t id);

  const Topology& m_topology;
  const ExecutionGraph& m_graph;
  CollectiveExecutor& m_executor;
  MessageTransport& m_p2p;
  EventClock& m_clock;
  double m_endpoint_delay_ns;
  uint32_t m_rank_count;

  std::vector<ClassInfo> m_classes;
  std::vector<RankState> m_ranks;
  std::vector<uint64_t> m_done_offset;  ///< per rank, into m_done
  std::vector<uint8_t> m_done;          ///< per (rank, node)
  std::vector<double> m_rank_end_ns;  ///< per rank: when it finished, on the clock
  std::vector<MeasuredProgram> m_measured;
  uint32_t m_finished_ranks = 0;
  bool m_started = false;
  double m_start_ns = 0.0;

  // Collectives. Per communicator: whether one executor collective serves all its groups, and
  // then the executor collective of each sequence number; otherwise per (group, sequence).
  std::vector<uint8_t> m_uniform;
  std::vector<uint8_t> m_uniform_alone;  ///< a uniform communicator whose groups are one rank
  std::vector<std::vector<CollectiveId>> m_uniform_ids;
  std::vector<std::unique_ptr<GroupIndex>> m_group_index;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, CollectiveId> m_group_ids;
  std::map<std::pair<uint32_t, uint32_t>, CollectiveMembers> m_members;  ///< (comm, group)

  // Sends and receives, matched by (source, destination, tag, ordinal).
  PeerResolver m_peers;
  /// Sends and receives waiting for their match, by (source, destination, tag, ordinal).
  using PointToPointKey = std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>;
  /// Each key is one send and one receive (the ordinal tells repeats apart): one waits here.
  std::map<PointToPointKey, Pending> m_sends, m_receives;
  std::vector<Message> m_messages;  ///< by message id
  /// Eager sends (message ids) whose receive is not issued yet.
  std::map<PointToPointKey, uint64_t> m_unbound;
  uint64_t m_p2p_bytes_planned = 0;
  uint64_t m_p2p_bytes_sent = 0;
  uint64_t m_p2p_bytes_delivered = 0;
  uint64_t m_p2p_messages = 0;
  uint64_t m_p2p_acknowledged = 0;
  uint64_t m_p2p_delivered = 0;
};

}  // namespace hfsim
