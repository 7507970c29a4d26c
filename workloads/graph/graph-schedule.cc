#include "workloads/graph/graph-schedule.h"

#include <algorithm>
#include <unordered_set>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "workloads/graph/smallest-first-order.h"

namespace hfsim {

namespace {

struct UnionFind {
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t Find(uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void Join(uint32_t a, uint32_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the earliest vertex leads
  }
  std::vector<uint32_t> parent;
};

// Joins matched nodes into units: the k-th call of each class on a communicator with the k-th
// call of every class in its group, and the j-th send of each (source, destination, tag) with
// the j-th receive. A single class without sends has nothing to join: every member of its
// groups runs the very same node.
// With eager sends a send and its receive are not joined: the receive waits for the send
// instead (`receive_waits[receive vertex]` = the send's vertex).
// Returns whether anything was joined or made to wait.
bool JoinMatched(const ExecutionGraph& graph, const std::vector<uint32_t>& offset,
                 UnionFind& units, std::unordered_map<uint32_t, uint32_t>& receive_waits) {
  const uint32_t classes = static_cast<uint32_t>(graph.classes.size());
  bool joined = false;
  const std::vector<uint32_t> class_of = ClassOfRanks(graph);
  // Per class, the positions of its calls on each communicator it uses (sparse: a class uses few).
  std::vector<std::map<uint32_t, std::vector<uint32_t>>> calls(classes);
  std::vector<bool> used(graph.communicators.size(), false);
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::vector<uint32_t>> sends, recvs;
  for (uint32_t c = 0; c < classes; ++c) {
    const uint32_t rank = graph.classes[c].ranks.front();
    const auto& program = graph.classes[c].program;
    for (uint32_t i = 0; i < program.size(); ++i) {
      const GraphNode& node = program[i];
      if (node.kind == GraphNodeKind::kCollective) {
        calls[c][node.communicator].push_back(i);
        used[node.communicator] = true;
      } else if (node.kind == GraphNodeKind::kSend) {
        sends[{rank, node.peer, node.tag}].push_back(offset[c] + i);
      } else if (node.kind == GraphNodeKind::kRecv) {
        recvs[{node.peer, rank, node.tag}].push_back(offset[c] + i);
      }
    }
  }
  if (classes > 1) {
    // Every group joins its members' classes to the class of its first member seen, each pair
    // once: one pass over the ranks per communicator in use.
    for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
      if (!used[k]) continue;
      const GroupIndex index(graph, k);
      std::unordered_map<uint32_t, uint32_t> leader_of_group;
      std::set<std::pair<uint32_t, uint32_t>> joined_pairs;
      for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
        const uint32_t group = index.GroupOf(rank);
        if (group == GroupIndex::kNoGroup) continue;
        const uint32_t c = class_of[rank];
        const uint32_t leader = leader_of_group.emplace(group, c).first->second;
        if (leader == c || !joined_pairs.emplace(leader, c).second) continue;
        const auto mine = calls[c].find(k);
        const auto theirs = calls[leader].find(k);
        if (mine == calls[c].end() || theirs == calls[leader].end()) continue;
        for (size_t n = 0; n < mine->second.size() && n < theirs->second.size(); ++n) {
          units.Join(offset[c] + mine->second[n], offset[leader] + theirs->second[n]);
          joined = true;
        }
      }
    }
  }
  for (const auto& [key, send_list] : sends) {
    const auto it = recvs.find(key);
    if (it == recvs.end()) continue;
    for (size_t j = 0; j < send_list.size() && j < it->second.size(); ++j) {
      if (graph.eager_sends) {
        receive_waits.emplace(it->second[j], send_list[j]);
      } else {
        units.Join(send_list[j], it->second[j]);
      }
      joined = true;
    }
  }
  return joined;
}

// The last vertex of each stream as a program is walked in order (a program has few streams).
class StreamTails {
 public:
  /// The previous vertex on `stream`, or UINT32_MAX for the stream's first; `vertex` becomes
  /// its last.
  uint32_t Advance(uint32_t stream, uint32_t vertex) {
    if (stream < kFew) return std::exchange(m_few[stream], vertex);
    for (auto& [s, last] : m_more) {
      if (s == stream) return std::exchange(last, vertex);
    }
    m_more.emplace_back(stream, vertex);
    return UINT32_MAX;
  }
  /// Appends each stream's last vertex, in stream order; stream 0's is also `main_end`.
  void Finish(std::vector<uint32_t>& ends, uint32_t& main_end) {
    for (const uint32_t last : m_few) {
      if (last != UINT32_MAX) ends.push_back(last);
    }
    main_end = m_few[0];
    std::sort(m_more.begin(), m_more.end());
    for (const auto& [stream, last] : m_more) ends.push_back(last);
  }

 private:
  // The first streams, where nearly every node is, in an array; the rest in a list (a
  // program has few streams).
  static constexpr uint32_t kFew = 4;
  uint32_t m_few[kFew] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
  std::vector<std::pair<uint32_t, uint32_t>> m_more;  // (stream, vertex)
};

uint32_t ClassOfVertexIn(const std::vector<uint32_t>& offset, uint32_t v) {
  return static_cast<uint32_t>(std::upper_bound(offset.begin(), offset.end(), v) - offset.begin() -
                               1);
}

// Grows the wait list to at least `needed` entries; returns its data.
[[gnu::noinline]] uint32_t* GrowWaits(std::vector<uint32_t>& waits, size_t needed) {
  waits.resize(std::max(2 * waits.size(), needed));
  return waits.data();
}

// Writes the waits of a node with several dependencies from `first` on: its stream's previous
// node (UINT32_MAX: none), then each dependency (positions in a program starting at vertex
// `offset`) not already there, in order. Returns the end.
[[gnu::noinline]] uint32_t* WriteWaits(uint32_t previous, const DepList& deps, uint32_t offset,
                                       uint32_t* first) {
  uint32_t* last = first;
  if (previous != UINT32_MAX) *last++ = previous;
  if (deps.size() <= 8) {  // few: looking through them beats a table
    for (const uint32_t dep : deps) {
      const uint32_t w = offset + dep;
      if (std::find(first, last, w) == last) *last++ = w;
    }
    return last;
  }
  std::unordered_set<uint32_t> seen(first, last);
  for (const uint32_t dep : deps) {
    if (seen.insert(offset + dep).second) *last++ = offset + dep;
  }
  return last;
}

}  // namespace


uint32_t GraphSchedule::ClassOfVertex(uint32_t vertex) const {
  return ClassOfVertexIn(m_class_offset, vertex);
}

std::optional<GraphError> GraphSchedule::BuildInProgramOrder(const ExecutionGraph& graph,
                                                             GraphSchedule& out,
                                                             bool* point_to_point) {
  const uint32_t classes = static_cast<uint32_t>(graph.classes.size());
  const uint32_t vertex_count = out.m_class_offset[classes];
  out.m_in_program_order = true;
  out.m_wait_start.resize(vertex_count + 1);
  out.m_continues_step.resize(vertex_count);
  out.m_main_end.assign(classes, UINT32_MAX);
  // Written through raw pointers with room checked once per node, sizes and pointers held in
  // locals: this loop runs once per evaluation over every node, and vector bookkeeping (which
  // the compiler must reload after every byte stored, since a byte may alias anything) was
  // most of its cost.
  std::vector<uint32_t>& waits = out.m_waits;
  waits.resize(std::max<size_t>(waits.capacity(), vertex_count * 2 + 8));
  uint32_t* wait_data = waits.data();
  size_t wait_room = waits.size();
  uint32_t used = 0;
  uint32_t* const wait_start = out.m_wait_start.data();
  uint8_t* const continues_step = out.m_continues_step.data();
  for (uint32_t c = 0; c < classes; ++c) {
    const GraphNode* const nodes = graph.classes[c].program.data();
    const uint32_t node_count = static_cast<uint32_t>(graph.classes[c].program.size());
    const uint32_t offset = out.m_class_offset[c];
    StreamTails tails;
    for (uint32_t i = 0; i < node_count; ++i) {
      const GraphNode& node = nodes[i];
      if (point_to_point && IsPointToPoint(node)) {
        *point_to_point = true;
        return std::nullopt;
      }
      const uint32_t v = offset + i;
      const uint32_t dep_count = node.deps.size();
      if (used + dep_count + 1 > wait_room) {
        wait_data = GrowWaits(waits, used + dep_count + 1);
        wait_room = waits.size();
      }
      uint32_t* const first = wait_data + used;
      wait_start[v] = used;
      // The stream's previous node, then the dependencies, each once (a node may list one
      // twice, or list its stream's previous node). One dependency, by far the commonest, is
      // handled here; more out of line, which keeps this loop's registers free.
      const uint32_t previous = tails.Advance(node.stream, v);
      uint32_t* last = first;
      if (dep_count > 1) {
        last = WriteWaits(previous, node.deps, offset, first);
      } else {
        if (previous != UINT32_MAX) *last++ = previous;
        if (dep_count == 1 && offset + node.deps[0] != previous) *last++ = offset + node.deps[0];
      }
      used = static_cast<uint32_t>(last - wait_data);
      continues_step[v] = last - first == 1 && node.continues_step;
    }
    tails.Finish(out.m_stream_ends, out.m_main_end[c]);
  }
  waits.resize(used);
  wait_start[vertex_count] = used;
  return std::nullopt;
}

std::optional<GraphError> GraphSchedule::Build(const ExecutionGraph& graph, GraphSchedule& out) {
  out = GraphSchedule();
  const uint32_t classes = static_cast<uint32_t>(graph.classes.size());
  std::vector<uint32_t>& offset = out.m_class_offset;
  offset.assign(classes + 1, 0);
  for (uint32_t c = 0; c < classes; ++c) {
    offset[c + 1] = offset[c] + static_cast<uint32_t>(graph.classes[c].program.size());
  }
  const uint32_t vertex_count = offset[classes];
  if (classes == 1) {  // nothing to match unless the program sends
    bool point_to_point = false;
    auto error = BuildInProgramOrder(graph, out, &point_to_point);
    if (!point_to_point) return error;
    std::vector<uint32_t> kept = std::move(offset);
    out = GraphSchedule();
    out.m_class_offset = std::move(kept);
  }
  UnionFind units(vertex_count);
  std::unordered_map<uint32_t, uint32_t> receive_waits;
  if (!JoinMatched(graph, offset, units, receive_waits)) return BuildInProgramOrder(graph, out);

  // What each vertex waits for: the previous node on its stream, then its dependencies.
  std::vector<uint32_t> wait_start(vertex_count + 1, 0);
  std::vector<uint32_t> waits;
  waits.reserve(vertex_count * 2);
  std::vector<uint32_t> ends;
  out.m_main_end.assign(classes, UINT32_MAX);
  for (uint32_t c = 0; c < classes; ++c) {
    const auto& program = graph.classes[c].program;
    StreamTails tails;
    for (uint32_t i = 0; i < program.size(); ++i) {
      const GraphNode& node = program[i];
      const uint32_t v = offset[c] + i;
      wait_start[v] = static_cast<uint32_t>(waits.size());
      if (const uint32_t previous = tails.Advance(node.stream, v); previous != UINT32_MAX) {
        waits.push_back(previous);
      }
      for (const uint32_t dep : node.deps) waits.push_back(offset[c] + dep);
      if (!receive_waits.empty() && node.kind == GraphNodeKind::kRecv) {
        if (const auto send = receive_waits.find(v); send != receive_waits.end()) {
          waits.push_back(send->second);
        }
      }
    }
    tails.Finish(ends, out.m_main_end[c]);
  }
  wait_start[vertex_count] = static_cast<uint32_t>(waits.size());

  std::vector<uint32_t> root(vertex_count);
  for (uint32_t v = 0; v < vertex_count; ++v) root[v] = units.Find(v);
  for (uint32_t v = 0; v < vertex_count; ++v) {
    for (uint32_t w = wait_start[v]; w < wait_start[v + 1]; ++w) {
      if (root[waits[w]] != root[v]) continue;
      const uint32_t c = ClassOfVertexIn(offset, v);
      return GraphError{graph.classes[c].ranks.front(), graph.classes[c].program[v - offset[c]].id,
                        "waits for a node it must start together with (a collective or send "
                        "matched with an earlier node of the same program)"};
    }
  }

  // Units in order. When every unit waits only for units led by earlier vertices (always, for
  // one class: dependencies point backwards), that order is the vertices' own; otherwise Kahn's
  // algorithm, smallest leading vertex first, so the order is deterministic.
  std::vector<uint32_t> order;
  bool forward = true;
  for (uint32_t v = 0; v < vertex_count && forward; ++v) {
    for (uint32_t w = wait_start[v]; w < wait_start[v + 1] && forward; ++w) {
      forward = root[waits[w]] < root[v];
    }
  }
  // Members of each unit, by leading vertex (counting sort: no allocation per vertex).
  std::vector<uint32_t> member_start(vertex_count + 1, 0);
  for (uint32_t v = 0; v < vertex_count; ++v) ++member_start[root[v] + 1];
  for (uint32_t v = 0; v < vertex_count; ++v) member_start[v + 1] += member_start[v];
  std::vector<uint32_t> member_list(vertex_count);
  {
    std::vector<uint32_t> fill(member_start.begin(), member_start.end() - 1);
    for (uint32_t v = 0; v < vertex_count; ++v) member_list[fill[root[v]]++] = v;
  }
  if (forward) {
    for (uint32_t v = 0; v < vertex_count; ++v) {
      if (root[v] == v) order.push_back(v);
    }
  } else {
    std::vector<uint32_t> pending(vertex_count, 0);
    std::vector<std::vector<uint32_t>> waiters(vertex_count);  // by root: roots waiting on it
    for (uint32_t v = 0; v < vertex_count; ++v) {
      for (uint32_t w = wait_start[v]; w < wait_start[v + 1]; ++w) {
        ++pending[root[v]];
        waiters[root[waits[w]]].push_back(root[v]);
      }
    }
    order = SmallestFirstOrder(pending, waiters, [&](uint32_t v) { return root[v] == v; });
    for (uint32_t v = 0; v < vertex_count; ++v) {
      if (pending[root[v]] == 0) continue;
      const uint32_t c = ClassOfVertexIn(offset, v);
      return GraphError{graph.classes[c].ranks.front(), graph.classes[c].program[v - offset[c]].id,
                        "can never start: ranks wait on each other in a circle (a receive "
                        "before the send it needs, or collectives issued in different orders)"};
    }
  }

  std::vector<uint32_t> unit_index(vertex_count, UINT32_MAX);
  for (uint32_t u = 0; u < order.size(); ++u) unit_index[order[u]] = u;
  out.m_unit_of.resize(vertex_count);
  for (uint32_t v = 0; v < vertex_count; ++v) out.m_unit_of[v] = unit_index[root[v]];
  std::vector<uint32_t> last_added(vertex_count, 0);  // leading vertex + 1 of the last unit
  out.m_wait_start.clear();
  out.m_wait_start.reserve(order.size() + 1);
  out.m_continues_step.reserve(order.size());
  out.m_member_start.reserve(order.size() + 1);
  out.m_members.reserve(vertex_count);
  out.m_waits.reserve(waits.size());
  for (const uint32_t r : order) {
    const uint32_t first_wait = static_cast<uint32_t>(out.m_waits.size());
    out.m_wait_start.push_back(first_wait);
    out.m_member_start.push_back(static_cast<uint32_t>(out.m_members.size()));
    for (uint32_t m = member_start[r]; m < member_start[r + 1]; ++m) {
      const uint32_t v = member_list[m];
      const uint32_t vc = ClassOfVertexIn(offset, v);
      out.m_members.push_back(Member{vc, v - offset[vc]});
      for (uint32_t w = wait_start[v]; w < wait_start[v + 1]; ++w) {
        const uint32_t wu = out.m_unit_of[waits[w]];
        if (last_added[wu] == r + 1) continue;  // each unit waited for once
        last_added[wu] = r + 1;
        out.m_waits.push_back(wu);
      }
    }
    const Member leader = out.m_members[out.m_member_start.back()];
    const bool one_member = member_start[r + 1] - member_start[r] == 1;
    const bool one_wait = out.m_waits.size() - first_wait == 1;
    out.m_continues_step.push_back(
        one_member && one_wait &&
        graph.classes[leader.rank_class].program[leader.position].continues_step);
  }
  out.m_wait_start.push_back(static_cast<uint32_t>(out.m_waits.size()));
  out.m_member_start.push_back(static_cast<uint32_t>(out.m_members.size()));
  for (const uint32_t v : ends) {
    const uint32_t u = out.m_unit_of[v];
    if (std::find(out.m_stream_ends.begin(), out.m_stream_ends.end(), u) ==
        out.m_stream_ends.end()) {
      out.m_stream_ends.push_back(u);
    }
  }
  for (uint32_t& main_end : out.m_main_end) {
    if (main_end != UINT32_MAX) main_end = out.m_unit_of[main_end];
  }
  return std::nullopt;
}

}  // namespace hfsim
