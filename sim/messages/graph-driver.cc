#include "sim/messages/graph-driver.h"

#include "workloads/graph/graph-breakdown.h"
#include "workloads/graph/group-shape.h"

#include <algorithm>
#include <variant>
#include <stdexcept>
#include <string>

namespace hfsim {

namespace {

std::string S(uint64_t value) { return std::to_string(value); }

// A class's collectives on one communicator, adjacent repeats merged: (kind, size, count).
std::vector<std::tuple<CollectiveKind, uint64_t, uint64_t>> Sequence(const RankClass& rank_class,
                                                                     uint32_t communicator) {
  std::vector<std::tuple<CollectiveKind, uint64_t, uint64_t>> sequence;
  for (const GraphNode& node : rank_class.program) {
    if (node.kind != GraphNodeKind::kCollective || node.communicator != communicator) continue;
    if (!sequence.empty() && std::get<0>(sequence.back()) == node.collective &&
        std::get<1>(sequence.back()) == node.size_bytes) {
      std::get<2>(sequence.back()) += node.count;
    } else {
      sequence.emplace_back(node.collective, node.size_bytes, node.count);
    }
  }
  return sequence;
}

}  // namespace

GraphDriver::GraphDriver(const Topology& topology, const ExecutionGraph& graph,
                         CollectiveExecutor& executor, MessageTransport& point_to_point,
                         EventClock& clock, double endpoint_delay_ns)
    : m_topology(topology),
      m_graph(graph),
      m_executor(executor),
      m_p2p(point_to_point),
      m_clock(clock),
      m_endpoint_delay_ns(endpoint_delay_ns),
      m_rank_count(graph.rank_count),
      m_peers(graph) {
  if (m_rank_count != topology.NpuCount()) {
    throw std::invalid_argument("GraphDriver: a graph of " + S(m_rank_count) +
                                " ranks on a fabric of " + S(topology.NpuCount()) + " NPUs");
  }
  m_ranks.resize(m_rank_count);
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    ClassInfo info;
    info.representative = rank_class.ranks.front();
    std::vector<uint32_t> stream_index;  // graph stream number -> index into info.streams
    for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
      const uint32_t stream = rank_class.program[i].stream;
      auto at = std::find(stream_index.begin(), stream_index.end(), stream);
      if (at == stream_index.end()) {
        stream_index.push_back(stream);
        info.streams.emplace_back();
        at = stream_index.end() - 1;
      }
      const uint32_t index = static_cast<uint32_t>(at - stream_index.begin());
      info.streams[index].push_back(i);
      info.stream_of.push_back(index);
    }
    for (uint32_t rank : rank_class.ranks) m_ranks[rank].rank_class = c;
    // Each send and receive's ordinal among its program's sends (or receives) with the same
    // peer and tag, in program order: the j-th send pairs with the j-th receive, as the
    // analytical engine pairs them, whatever order their streams issue them in.
    std::map<std::tuple<bool, uint32_t, uint64_t>, uint32_t> seen;
    info.ordinal.assign(rank_class.program.size(), 0);
    for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
      const GraphNode& node = rank_class.program[i];
      if (!IsPointToPoint(node)) continue;
      info.ordinal[i] = seen[{node.kind == GraphNodeKind::kSend, node.peer, node.tag}]++;
    }
    // What the sends will put on the fabric, for conservation (a send to itself stays local).
    for (const GraphNode& node : rank_class.program) {
      if (node.kind != GraphNodeKind::kSend) continue;
      for (uint32_t rank : rank_class.ranks) {
        if (m_peers.PeerOf(rank, node) != rank) m_p2p_bytes_planned += node.size_bytes;
      }
    }
    MeasuredProgram measured;
    measured.start_ns.assign(rank_class.program.size(), 0.0);
    measured.end_ns.assign(rank_class.program.size(), 0.0);
    measured.collectives.resize(rank_class.program.size());
    measured.took_ns.resize(rank_class.program.size());
    m_measured.push_back(std::move(measured));
    m_classes.push_back(std::move(info));
  }
  uint64_t offset = 0;
  for (uint32_t rank = 0; rank < m_rank_count; ++rank) {
    RankState& state = m_ranks[rank];
    const ClassInfo& info = m_classes[state.rank_class];
    state.next.assign(info.streams.size(), 0);
    state.busy.assign(info.streams.size(), 0);
    state.issued.assign(graph.communicators.size(), 0);
    m_done_offset.push_back(offset);
    offset += graph.classes[state.rank_class].program.size();
  }
  m_done.assign(offset, 0);
  m_rank_end_ns.assign(m_rank_count, 0.0);

  // One executor collective for all groups where every program issues the same collectives
  // on a communicator of whole dimensions (a data x tensor job's data and tensor groups).
  for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
    const Communicator& comm = graph.communicators[k];
    bool uniform = comm.DimensionAligned() && !comm.dimensions.empty();
    for (size_t c = 1; c < graph.classes.size() && uniform; ++c) {
      uniform = Sequence(graph.classes[c], k) == Sequence(graph.classes[0], k);
    }
    m_uniform.push_back(uniform);
    bool alone = true;
    for (uint32_t d : comm.dimensions) alone &= topology.Dim(d).size < 2;
    m_uniform_alone.push_back(alone);
    m_uniform_ids.emplace_back();
    m_group_index.push_back(std::make_unique<GroupIndex>(graph, k));
  }
  m_p2p.SetHandlers({[this](uint64_t id) { OnDelivered(id); },
                     [this](uint64_t id) { OnAcknowledged(id); }});
}

void GraphDriver::Start() {
  if (m_started) throw std::logic_error("GraphDriver::Start: called twice");
  m_started = true;
  m_start_ns = m_clock.NowNs();
  for (uint32_t rank = 0; rank < m_rank_count; ++rank) {
    if (m_graph.classes[m_ranks[rank].rank_class].program.empty()) {
      m_ranks[rank].finished = true;
      ++m_finished_ranks;
      continue;
    }
    TryStart(rank);
  }
}

double GraphDriver::TotalNs() const {
  // Ranks with nothing to do end at the start.
  double end = m_start_ns;
  for (const double rank_end : m_rank_end_ns) end = std::max(end, rank_end);
  return end - m_start_ns;
}

void GraphDriver::TryStart(uint32_t rank) {
  // Starts every node that can start, the earliest in the program first. Finishing a node can
  // happen inside this loop (a 0 ns compute, a collective done at once); the nested call only
  // asks for another pass, so long chains of such nodes do not nest.
  RankState& state = m_ranks[rank];
  if (state.starting) {
    state.again = true;
    return;
  }
  state.starting = true;
  const ClassInfo& info = m_classes[state.rank_class];
  const std::vector<GraphNode>& program = m_graph.classes[state.rank_class].program;
  do {
    state.again = false;
    while (true) {
      uint32_t best = UINT32_MAX;
      for (size_t s = 0; s < info.streams.size(); ++s) {
        if (state.busy[s] || state.next[s] == info.streams[s].size()) continue;
        const uint32_t node = info.streams[s][state.next[s]];
        if (node >= best) continue;
        bool ready = true;
        for (uint32_t dep : program[node].deps) ready &= Done(rank, dep) != 0;
        if (ready) best = node;
      }
      if (best == UINT32_MAX) break;
      StartNode(rank, best);
    }
  } while (state.again);
  state.starting = false;
}

void GraphDriver::StartNode(uint32_t rank, uint32_t node) {
  RankState& state = m_ranks[rank];
  const ClassInfo& info = m_classes[state.rank_class];
  const uint32_t stream = info.stream_of[node];
  state.busy[stream] = 1;
  ++state.next[stream];
  const bool representative = rank == info.representative;
  if (representative) m_measured[state.rank_class].start_ns[node] = m_clock.NowNs();
  const GraphNode& n = NodeOf(rank, node);
  switch (n.kind) {
    case GraphNodeKind::kCompute:
      if (representative) m_measured[state.rank_class].took_ns[node].push_back(n.duration_ns);
      if (n.duration_ns <= 0.0) {
        Finish(rank, node);
      } else {
        m_clock.ScheduleNs(n.duration_ns, [this, rank, node] { Finish(rank, node); });
      }
      return;
    case GraphNodeKind::kCollective:
      RunCollective(rank, node, 0);
      return;
    case GraphNodeKind::kSend:
    case GraphNodeKind::kRecv:
      Issue(rank, node);
      return;
  }
}

void GraphDriver::RunCollective(uint32_t rank, uint32_t node, uint32_t repetition) {
  const GraphNode& n = NodeOf(rank, node);
  RankState& state = m_ranks[rank];
  const bool representative = rank == m_classes[state.rank_class].representative;
  uint32_t sequence = 0;
  // Repetitions in a group of one rank have nothing to exchange: done at once, in a loop (a
  // node may repeat a million times; recursion would not survive it).
  while (true) {
    if (repetition == n.count) {
      Finish(rank, node);
      return;
    }
    sequence = state.issued[n.communicator]++;
    // A uniform communicator's groups all have the same shape, known without a lookup.
    const bool alone = m_uniform[n.communicator]
                           ? m_uniform_alone[n.communicator]
                           : MembersOf(n.communicator, rank).dimensions.empty();
    if (!alone) break;
    if (representative) m_measured[state.rank_class].took_ns[node].push_back(0.0);
    ++repetition;
  }
  const CollectiveId id = CollectiveFor(rank, n, sequence);
  if (representative) m_measured[state.rank_class].collectives[node].push_back(id);
  const double entered_ns = m_clock.NowNs();
  m_executor.Enter(id, rank, [this, rank, node, repetition, representative, entered_ns] {
    if (representative) {
      m_measured[m_ranks[rank].rank_class].took_ns[node].push_back(m_clock.NowNs() - entered_ns);
    }
    RunCollective(rank, node, repetition + 1);
  });
}

const CollectiveMembers& GraphDriver::MembersOf(uint32_t communicator, uint32_t rank) {
  const uint32_t group = m_group_index[communicator]->GroupOf(rank);
  auto [at, added] = m_members.try_emplace({communicator, group});
  if (!added) return at->second;
  // The group's coordinates per dimension, and the dimensions it spans in the order its
  // collectives visit them: the rule the analytical engine prices by (group-shape.h).
  CollectiveMembers& members = at->second;
  const std::vector<uint32_t> ranks = m_group_index[communicator]->Members(rank);
  members.coordinates = CoordinatesOfGroup(m_topology, ranks);
  const Communicator& comm = m_graph.communicators[communicator];
  // The graph compiled, so every group is a product set its communicator's order covers.
  members.dimensions = std::get<GroupShape>(ShapeOfCoordinates(
      members.coordinates, ranks.size(), comm.DimensionAligned() ? comm.dimensions
                                                                 : std::vector<uint32_t>{}))
                           .dimensions;
  return members;
}

CollectiveId GraphDriver::CollectiveFor(uint32_t rank, const GraphNode& node, uint32_t sequence) {
  const uint32_t k = node.communicator;
  if (m_uniform[k]) {
    std::vector<CollectiveId>& ids = m_uniform_ids[k];
    if (sequence == ids.size()) {
      ids.push_back(m_executor.Create(node.collective, node.size_bytes,
                                      m_graph.communicators[k].dimensions));
    }
    return ids[sequence];
  }
  const uint32_t group = m_group_index[k]->GroupOf(rank);
  auto [at, added] = m_group_ids.try_emplace({k, group, sequence}, 0);
  if (added) at->second = m_executor.Create(node.collective, node.size_bytes, MembersOf(k, rank));
  return at->second;
}

void GraphDriver::Issue(uint32_t rank, uint32_t node) {
  if (m_graph.eager_sends) return IssueEager(rank, node);
  const GraphNode& n = NodeOf(rank, node);
  const bool send = n.kind == GraphNodeKind::kSend;
  const uint32_t peer = m_peers.PeerOf(rank, n);
  const uint32_t ordinal = m_classes[m_ranks[rank].rank_class].ordinal[node];
  const auto key = send ? std::tuple(rank, peer, n.tag, ordinal) : std::tuple(peer, rank, n.tag, ordinal);
  auto& waiting = send ? m_receives : m_sends;
  const auto found = waiting.find(key);
  if (found == waiting.end()) {
    (send ? m_sends : m_receives).emplace(key, Pending{rank, node});
    return;
  }
  const Pending other = found->second;
  waiting.erase(found);
  if (send) {
    Transfer({rank, node}, other);
  } else {
    Transfer(other, {rank, node});
  }
}

void GraphDriver::IssueEager(uint32_t rank, uint32_t node) {
  const GraphNode& n = NodeOf(rank, node);
  const uint32_t peer = m_peers.PeerOf(rank, n);
  const uint32_t ordinal = m_classes[m_ranks[rank].rank_class].ordinal[node];
  if (n.kind == GraphNodeKind::kSend) {
    const auto key = std::tuple(rank, peer, n.tag, ordinal);
    Pending receive{peer, kNoNode};
    if (const auto waiting = m_receives.find(key); waiting != m_receives.end()) {
      receive = waiting->second;
      m_receives.erase(waiting);
    } else {
      m_unbound.emplace(key, m_messages.size());  // the id Transfer gives it
    }
    Transfer({rank, node}, receive);
    return;
  }
  const auto key = std::tuple(peer, rank, n.tag, ordinal);
  const auto sent = m_unbound.find(key);
  if (sent == m_unbound.end()) {
    m_receives.emplace(key, Pending{rank, node});
    return;
  }
  const uint64_t id = sent->second;
  m_unbound.erase(sent);
  Message& m = m_messages[id];
  m.dst_node = node;
  if (m.delivered) {  // arrived before the receive was issued: it takes no time of its own
    RecordTransfer(rank, node, 0.0);
    Finish(rank, node);
  }
}

void GraphDriver::Transfer(const Pending& send, const Pending& receive) {
  const uint64_t bytes = NodeOf(send.rank, send.node).size_bytes;
  if (bytes == 0 || send.rank == receive.rank) {  // nothing crosses the fabric
    if (receive.node == kNoNode) {  // an eager send: delivered at once, its receive to come
      m_messages.push_back({send.rank, send.node, receive.rank, kNoNode, 0, m_clock.NowNs(), true});
      ++m_p2p_delivered;  // as the transport would count it
      ++m_p2p_acknowledged;
      RecordTransfer(send.rank, send.node, 0.0);
      Finish(send.rank, send.node);
      return;
    }
    RecordTransfer(send.rank, send.node, 0.0);
    RecordTransfer(receive.rank, receive.node, 0.0);
    Finish(send.rank, send.node);
    Finish(receive.rank, receive.node);
    return;
  }
  const uint64_t id = m_messages.size();
  m_messages.push_back({send.rank, send.node, receive.rank, receive.node, bytes, m_clock.NowNs()});
  auto post = [this, id] {
    const Message& m = m_messages[id];
    m_p2p_bytes_sent += m.bytes;
    ++m_p2p_messages;
    m_p2p.Send({id, m.src_rank, m.dst_rank, m.bytes});
  };
  if (m_endpoint_delay_ns > 0.0) {
    m_clock.ScheduleNs(m_endpoint_delay_ns, post);
  } else {
    post();
  }
}

void GraphDriver::RecordTransfer(uint32_t rank, uint32_t node, double took_ns) {
  const uint32_t rank_class = m_ranks[rank].rank_class;
  if (rank == m_classes[rank_class].representative) {
    m_measured[rank_class].took_ns[node].push_back(took_ns);
  }
}

void GraphDriver::OnDelivered(uint64_t id) {
  if (id >= m_messages.size()) throw std::logic_error("GraphDriver: unknown message delivered");
  Message& m = m_messages[id];
  m_p2p_bytes_delivered += m.bytes;
  ++m_p2p_delivered;
  m.delivered = true;
  if (m.dst_node == kNoNode) return;  // an eager send whose receive is not issued yet
  // An eager receive takes no time of its own (the analytical engine's rule): what it waited
  // shows as exposed time.
  RecordTransfer(m.dst_rank, m.dst_node, m_graph.eager_sends ? 0.0 : m_clock.NowNs() - m.matched_ns);
  Finish(m.dst_rank, m.dst_node);
}

void GraphDriver::OnAcknowledged(uint64_t id) {
  if (id >= m_messages.size()) throw std::logic_error("GraphDriver: unknown message acknowledged");
  ++m_p2p_acknowledged;
  const Message& m = m_messages[id];
  RecordTransfer(m.src_rank, m.src_node, m_clock.NowNs() - m.matched_ns);
  Finish(m.src_rank, m.src_node);
}

void GraphDriver::Finish(uint32_t rank, uint32_t node) {
  RankState& state = m_ranks[rank];
  uint8_t& done = Done(rank, node);
  if (done) throw std::logic_error("GraphDriver: node " + S(node) + " of rank " + S(rank) +
                                   " finished twice");
  done = 1;
  const ClassInfo& info = m_classes[state.rank_class];
  const double now = m_clock.NowNs();
  if (rank == info.representative) m_measured[state.rank_class].end_ns[node] = now;
  state.busy[info.stream_of[node]] = 0;
  if (++state.nodes_done == m_graph.classes[state.rank_class].program.size()) {
    state.finished = true;
    m_rank_end_ns[rank] = now;
    ++m_finished_ranks;
    return;
  }
  TryStart(rank);
}

IterationTimeline GraphDriver::Breakdown(uint32_t rank_class) const {
  const RankClass& reported = m_graph.classes[rank_class];
  const MeasuredProgram& measured = m_measured[rank_class];
  IterationTimeline timeline;
  timeline.total_ns = TotalNs();
  double main_stream_gradient_comm = 0.0;
  double main_end = -1.0;
  double gradient_end = -1.0;  // of gradient communication beside the main stream
  for (uint32_t i = 0; i < reported.program.size(); ++i) {
    const GraphNode& node = reported.program[i];
    if (node.stream == 0) main_end = std::max(main_end, measured.end_ns[i]);
    if (IsBackgroundGradientComm(node)) gradient_end = std::max(gradient_end, measured.end_ns[i]);
    for (const double took : measured.took_ns[i]) {
      AddToBreakdown(node, took, timeline, main_stream_gradient_comm);
    }
  }
  const double tail = main_end < 0.0 || gradient_end < 0.0 ? 0.0 : std::max(0.0, gradient_end - main_end);
  timeline.weight_grad_comm_exposed_ns = main_stream_gradient_comm + tail;
  return timeline;
}

std::vector<std::string> GraphDriver::CheckComplete() const {
  std::vector<std::string> problems;
  for (uint32_t rank = 0; rank < m_rank_count; ++rank) {
    const RankState& state = m_ranks[rank];
    if (state.finished) continue;
    const std::vector<GraphNode>& program = m_graph.classes[state.rank_class].program;
    std::string waiting;
    for (uint32_t i = 0; i < program.size() && waiting.empty(); ++i) {
      if (!m_done[m_done_offset[rank] + i]) waiting = " (first unfinished node: id " + S(program[i].id) + ")";
    }
    problems.push_back(S(m_rank_count - m_finished_ranks) + " ranks did not finish, the first rank " +
                       S(rank) + waiting);
    break;
  }
  for (const auto& [key, id] : m_unbound) {
    problems.push_back("an eager send from rank " + S(std::get<0>(key)) + " to rank " +
                       S(std::get<1>(key)) + " (tag " + S(std::get<2>(key)) +
                       ") was never received");
    break;
  }
  for (const auto& [key, pending] : m_sends) {
    problems.push_back("a send from rank " + S(std::get<0>(key)) + " to rank " + S(std::get<1>(key)) +
                       " (tag " + S(std::get<2>(key)) + ") was never received");
    break;
  }
  if (m_p2p_delivered != m_messages.size() || m_p2p_acknowledged != m_messages.size()) {
    problems.push_back(S(m_messages.size() - m_p2p_delivered) + " point-to-point messages not delivered, " +
                       S(m_messages.size() - m_p2p_acknowledged) + " not acknowledged");
  }
  return problems;
}

}  // namespace hfsim
