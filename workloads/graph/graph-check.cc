#include "workloads/graph/graph-check.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace hfsim {

std::string GraphError::ToString() const {
  if (node) return fmt::format("rank {}, node {}: {}", rank, *node, message);
  return fmt::format("rank {}: {}", rank, message);
}

namespace {

struct CollectiveCall {
  CollectiveKind kind;
  uint64_t size_bytes;
  uint32_t count;
  bool operator==(const CollectiveCall&) const = default;
};

std::optional<GraphError> CheckClasses(const ExecutionGraph& graph,
                                       std::vector<uint32_t>& class_of) {
  class_of.assign(graph.rank_count, UINT32_MAX);
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    if (rank_class.ranks.empty()) return GraphError{0, {}, fmt::format("rank class {} has no ranks", c)};
    for (const uint32_t rank : rank_class.ranks) {
      if (rank >= graph.rank_count) {
        return GraphError{rank, {}, fmt::format("rank {} does not exist: the job has {} ranks "
                                                "(0 to {})", rank, graph.rank_count,
                                                graph.rank_count - 1)};
      }
      if (class_of[rank] != UINT32_MAX) return GraphError{rank, {}, "has two programs"};
      class_of[rank] = c;
    }
  }
  for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
    if (class_of[rank] == UINT32_MAX) return GraphError{rank, {}, "has no program"};
  }
  return std::nullopt;
}

std::optional<GraphError> CheckGroups(const ExecutionGraph& graph) {
  uint64_t product = 1;
  for (const uint32_t size : graph.dimension_sizes) product *= size;
  if (product != graph.rank_count) {
    return GraphError{0, {}, fmt::format("the dimension sizes make {} ranks, not {}", product,
                                         graph.rank_count)};
  }
  for (const Communicator& comm : graph.communicators) {
    if (comm.DimensionAligned()) {
      std::vector<bool> used(graph.dimension_sizes.size(), false);
      for (const uint32_t d : comm.dimensions) {
        if (d >= used.size() || used[d]) {
          return GraphError{0, {}, fmt::format("communicator \"{}\" lists dimension {} twice or "
                                               "beyond the fabric's {}", comm.name, d, used.size())};
        }
        used[d] = true;
      }
      continue;
    }
    std::vector<bool> seen(graph.rank_count, false);
    for (const auto& group : comm.groups) {
      if (group.empty()) {
        return GraphError{0, {}, fmt::format("communicator \"{}\" has an empty group", comm.name)};
      }
      for (const uint32_t rank : group) {
        if (rank >= graph.rank_count) {
          return GraphError{rank, {}, fmt::format("communicator \"{}\" names rank {}, which "
                                                  "does not exist: the job has {} ranks (0 to {})",
                                                  comm.name, rank, graph.rank_count,
                                                  graph.rank_count - 1)};
        }
        if (seen[rank]) {
          return GraphError{rank, {}, fmt::format("is in two groups of communicator \"{}\"",
                                                  comm.name)};
        }
        seen[rank] = true;
      }
    }
  }
  return std::nullopt;
}

std::optional<GraphError> CheckPrograms(const ExecutionGraph& graph,
                                        const std::vector<uint32_t>& class_of) {
  for (const RankClass& rank_class : graph.classes) {
    const uint32_t rank = rank_class.ranks.front();
    std::map<uint64_t, uint32_t> ids;
    for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
      const GraphNode& node = rank_class.program[i];
      auto fail = [&](std::string message) {
        return GraphError{rank, node.id, std::move(message)};
      };
      if (!ids.emplace(node.id, i).second) return fail("a second node has this id");
      for (const uint32_t dep : node.deps) {
        if (dep >= i) return fail("depends on a node that does not come before it");
      }
      if (node.layer != kNoLayer && node.layer >= graph.layers.size()) {
        return fail(fmt::format("layer {} does not exist", node.layer));
      }
      switch (node.kind) {
        case GraphNodeKind::kCompute:
          if (!(node.duration_ns >= 0.0)) return fail("a compute node needs a duration >= 0");
          break;
        case GraphNodeKind::kCollective:
          if (node.communicator >= graph.communicators.size()) {
            return fail(fmt::format("communicator {} does not exist", node.communicator));
          }
          if (node.count == 0) return fail("a collective's count must be >= 1");
          break;
        case GraphNodeKind::kSend:
        case GraphNodeKind::kRecv:
          if (node.peer >= graph.rank_count) {
            return fail(fmt::format("{} names rank {}, which does not exist: the job has {} "
                                    "ranks", ToString(node.kind), node.peer, graph.rank_count));
          }
          if (node.peer == rank) return fail(fmt::format("{} to itself", ToString(node.kind)));
          // A program of several ranks pairs its i-th rank with the i-th of the peer's
          // program (PeerResolver): that needs as many ranks there, and another program.
          if (rank_class.ranks.size() > 1) {
            const RankClass& peer_class = graph.classes[class_of[node.peer]];
            if (&peer_class == &rank_class) {
              return fail(fmt::format("{} to rank {}, which runs this same program: its other "
                                      "ranks would talk to themselves",
                                      ToString(node.kind), node.peer));
            }
            if (peer_class.ranks.size() != rank_class.ranks.size() ||
                peer_class.ranks.front() != node.peer) {
              return fail(fmt::format(
                  "{} to rank {} from a program of {} ranks: the peer must be the first rank of "
                  "a program of as many ranks (the i-th rank of one talks to the i-th of the "
                  "other), but rank {} is rank {} of a program of {}",
                  ToString(node.kind), node.peer, rank_class.ranks.size(), node.peer,
                  std::find(peer_class.ranks.begin(), peer_class.ranks.end(), node.peer) -
                      peer_class.ranks.begin(),
                  peer_class.ranks.size()));
            }
          }
          break;
      }
    }
  }
  return std::nullopt;
}

// Every member of a group must issue the same collectives, in the same order, on it; otherwise
// the k-th call of one rank would be matched with a different call of another, or wait forever.
// Ranks of one class run one program, so a single-class graph only needs its membership checked.
std::optional<GraphError> CheckCollectives(const ExecutionGraph& graph,
                                           const std::vector<uint32_t>& class_of) {
  // Per class, its calls on each communicator it uses, in program order (sparse: one pass).
  struct Calls {
    std::vector<CollectiveCall> calls;
    std::vector<uint64_t> ids;
  };
  std::vector<std::map<uint32_t, Calls>> by_class(graph.classes.size());
  std::vector<std::vector<uint32_t>> users(graph.communicators.size());  // classes calling on k
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    for (const GraphNode& node : graph.classes[c].program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      Calls& calls = by_class[c][node.communicator];
      if (calls.calls.empty()) users[node.communicator].push_back(c);
      calls.calls.push_back(CollectiveCall{node.collective, node.size_bytes, node.count});
      calls.ids.push_back(node.id);
    }
  }
  const Calls none;
  auto calls_of = [&](uint32_t c, uint32_t k) -> const Calls& {
    const auto found = by_class[c].find(k);
    return found == by_class[c].end() ? none : found->second;
  };
  for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
    if (users[k].empty()) continue;
    const Communicator& comm = graph.communicators[k];
    const GroupIndex index(graph, k);
    if (!comm.DimensionAligned()) {
      for (const uint32_t c : users[k]) {
        for (const uint32_t rank : graph.classes[c].ranks) {
          if (index.GroupOf(rank) != GroupIndex::kNoGroup) continue;
          return GraphError{rank, calls_of(c, k).ids.front(), fmt::format(
              "issues a collective on communicator \"{}\", which has no group holding this rank",
              comm.name)};
        }
      }
    }
    if (graph.classes.size() == 1) continue;
    for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
      if (index.GroupOf(rank) == GroupIndex::kNoGroup) continue;
      const uint32_t first_rank =
          comm.DimensionAligned() ? index.GroupOf(rank) : comm.groups[index.GroupOf(rank)].front();
      const Calls& a = calls_of(class_of[first_rank], k);
      const Calls& b = calls_of(class_of[rank], k);
      if (a.calls == b.calls) continue;
      size_t i = 0;
      while (i < a.calls.size() && i < b.calls.size() && a.calls[i] == b.calls[i]) ++i;
      const bool rank_short = i == b.calls.size();
      const uint32_t at_rank = rank_short ? first_rank : rank;
      const uint64_t node = rank_short ? a.ids[i] : b.ids[i];
      return GraphError{at_rank, node, fmt::format(
          "collective {} on communicator \"{}\" has no matching call on rank {}: every member "
          "of a group must issue the same collectives (kind, size, count) in the same order",
          i + 1, comm.name, rank_short ? rank : first_rank)};
    }
  }
  return std::nullopt;
}

// Sends and receives pair up by (source, destination, tag) in program order, with equal sizes.
std::optional<GraphError> CheckPointToPoint(const ExecutionGraph& graph) {
  struct Side {
    std::vector<std::pair<uint64_t, uint64_t>> sends;  // (node id, bytes)
    std::vector<std::pair<uint64_t, uint64_t>> recvs;
  };
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, Side> pairs;
  for (const RankClass& rank_class : graph.classes) {
    const uint32_t rank = rank_class.ranks.front();
    for (const GraphNode& node : rank_class.program) {
      if (node.kind == GraphNodeKind::kSend) {
        pairs[{rank, node.peer, node.tag}].sends.emplace_back(node.id, node.size_bytes);
      } else if (node.kind == GraphNodeKind::kRecv) {
        pairs[{node.peer, rank, node.tag}].recvs.emplace_back(node.id, node.size_bytes);
      }
    }
  }
  for (const auto& [key, side] : pairs) {
    const auto& [src, dst, tag] = key;
    const size_t common = std::min(side.sends.size(), side.recvs.size());
    for (size_t i = 0; i < common; ++i) {
      if (side.sends[i].second != side.recvs[i].second) {
        return GraphError{dst, side.recvs[i].first, fmt::format(
            "receives {} bytes from rank {} (tag {}), but the matching send (node {}) sends {}",
            side.recvs[i].second, src, tag, side.sends[i].first, side.sends[i].second)};
      }
    }
    if (side.sends.size() > common) {
      return GraphError{src, side.sends[common].first, fmt::format(
          "send to rank {} (tag {}) has no matching receive on rank {}", dst, tag, dst)};
    }
    if (side.recvs.size() > common) {
      return GraphError{dst, side.recvs[common].first, fmt::format(
          "receive from rank {} (tag {}) has no matching send on rank {}", src, tag, src)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<GraphError> CheckGraph(const ExecutionGraph& graph) {
  if (graph.rank_count == 0) return GraphError{0, {}, "the job has no ranks"};
  std::vector<uint32_t> class_of;
  if (auto error = CheckClasses(graph, class_of)) return error;
  if (auto error = CheckGroups(graph)) return error;
  if (auto error = CheckPrograms(graph, class_of)) return error;
  if (auto error = CheckCollectives(graph, class_of)) return error;
  return CheckPointToPoint(graph);
}

}  // namespace hfsim
