#include "workloads/graph/rank-classes.h"

#include <algorithm>
#include <map>
#include <set>

#include "workloads/graph/group-shape.h"

namespace hfsim {

namespace {

// What a group looks like from inside: the classes in it, and its shape (empty when it is not
// a product of coordinates; the engine refuses that later, naming it).
struct GroupView {
  std::vector<uint32_t> classes;
  GroupShape shape;
  auto operator<=>(const GroupView& other) const {
    if (auto c = classes <=> other.classes; c != 0) return c;
    if (auto c = shape.dimensions <=> other.shape.dimensions; c != 0) return c;
    return shape.sizes <=> other.shape.sizes;
  }
  bool operator==(const GroupView&) const = default;
};

bool HasPointToPoint(const RankClass& rank_class) {
  return std::any_of(rank_class.program.begin(), rank_class.program.end(), IsPointToPoint);
}

// Classes of several ranks whose sends pair them position by position (PeerResolver) split
// only together. Rather than keep those pairings through a split, such classes and every class
// they talk to become classes of one rank each, with their peers written out: exact, and only
// hand-written graphs whose pairings do not hold come here (generators give pairings that do).
// Returns false, changing nothing, when the graph would then hold more than `max_nodes` nodes.
bool SeparateRanks(ExecutionGraph& graph, std::vector<uint32_t> classes, uint64_t max_nodes) {
  const std::vector<uint32_t> class_of = ClassOfRanks(graph);
  // Close the set over pairings, both ways (a receive names its sender's class).
  std::vector<bool> chosen(graph.classes.size(), false);
  for (const uint32_t c : classes) chosen[c] = true;
  for (size_t next = 0; next < classes.size(); ++next) {
    for (const GraphNode& node : graph.classes[classes[next]].program) {
      if (!IsPointToPoint(node)) continue;
      const uint32_t peer_class = class_of[node.peer];
      if (!chosen[peer_class]) {
        chosen[peer_class] = true;
        classes.push_back(peer_class);
      }
    }
  }
  uint64_t nodes = 0;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    nodes += rank_class.program.size() * (chosen[c] ? rank_class.ranks.size() : 1);
  }
  if (nodes > max_nodes) return false;
  // Peers are read from the graph as it is, so the separated programs are written first and
  // the others moved after.
  const PeerResolver peers(graph);
  std::vector<RankClass> refined;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    if (!chosen[c] || rank_class.ranks.size() == 1) continue;
    for (const uint32_t rank : rank_class.ranks) {
      RankClass& alone = refined.emplace_back(RankClass{{rank}, rank_class.program});
      for (GraphNode& node : alone.program) {
        if (IsPointToPoint(node)) {
          node.peer = peers.PeerOf(rank, node);
        }
      }
    }
  }
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    if (!chosen[c] || graph.classes[c].ranks.size() == 1) {
      refined.push_back(std::move(graph.classes[c]));
    }
  }
  std::sort(refined.begin(), refined.end(), [](const RankClass& a, const RankClass& b) {
    return a.ranks.front() < b.ranks.front();
  });
  graph.classes = std::move(refined);
  return true;
}

// Classes of several ranks with sends or receives whose ranks do not all reach their peers
// the same way (the same offset along every dimension): the engines price a class's sends
// through its first rank, so those ranks must be told apart. A class's ranks pair with the
// same positions of every class it talks to, so each pair of classes is checked once.
std::vector<uint32_t> UnevenRoutes(const ExecutionGraph& graph, const Topology& topology) {
  const std::vector<uint32_t> class_of = ClassOfRanks(graph);
  const uint32_t dims = topology.DimensionCount();
  auto offset = [&](uint32_t rank, uint32_t peer, uint32_t d) {
    const uint32_t size = topology.Dim(d).size;
    return (topology.Coordinate(peer, d) + size - topology.Coordinate(rank, d)) % size;
  };
  std::vector<uint32_t> uneven;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    if (rank_class.ranks.size() == 1) continue;
    std::set<uint32_t> peer_classes;
    for (const GraphNode& node : rank_class.program) {
      if (IsPointToPoint(node)) {
        peer_classes.insert(class_of[node.peer]);
      }
    }
    bool even = true;
    for (const uint32_t p : peer_classes) {
      const auto& peers = graph.classes[p].ranks;
      if (peers.size() != rank_class.ranks.size()) continue;  // CheckGraph refuses it
      for (size_t i = 1; i < peers.size() && even; ++i) {
        for (uint32_t d = 0; d < dims && even; ++d) {
          even =
              offset(rank_class.ranks[i], peers[i], d) == offset(rank_class.ranks[0], peers[0], d);
        }
      }
    }
    if (!even) uneven.push_back(c);
  }
  return uneven;
}

enum class Pass { kStable, kSplit, kTooBig };

// One pass: splits what it must, unless the graph would then hold more than `max_nodes` nodes.
Pass SplitOnce(ExecutionGraph& graph, const Topology& topology, uint64_t max_nodes) {
  const std::vector<uint32_t> class_of = ClassOfRanks(graph);
  // Communicators each class uses.
  std::vector<std::set<uint32_t>> uses(graph.classes.size());
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    for (const GraphNode& node : graph.classes[c].program) {
      if (node.kind == GraphNodeKind::kCollective) uses[c].insert(node.communicator);
    }
  }
  // Per communicator, an id for each distinct view, and the view id of each rank's group.
  std::map<GroupView, uint32_t> view_ids;
  std::vector<std::vector<uint32_t>> view_of(graph.communicators.size());
  for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
    const GroupIndex index(graph, k);
    std::map<uint32_t, uint32_t> view_of_group;
    view_of[k].assign(graph.rank_count, UINT32_MAX);
    for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
      if (uses[class_of[rank]].count(k) == 0) continue;
      const uint32_t group = index.GroupOf(rank);
      if (group == GroupIndex::kNoGroup) continue;
      auto found = view_of_group.find(group);
      if (found == view_of_group.end()) {
        GroupView view;
        const std::vector<uint32_t> members = index.Members(rank);
        for (const uint32_t member : members) view.classes.push_back(class_of[member]);
        std::sort(view.classes.begin(), view.classes.end());
        view.classes.erase(std::unique(view.classes.begin(), view.classes.end()),
                           view.classes.end());
        auto shape = ShapeOfGroup(topology, members);
        if (auto* ok = std::get_if<GroupShape>(&shape)) view.shape = *ok;
        const uint32_t id =
            view_ids.emplace(view, static_cast<uint32_t>(view_ids.size())).first->second;
        found = view_of_group.emplace(group, id).first;
      }
      view_of[k][rank] = found->second;
    }
  }
  std::vector<std::map<std::vector<uint32_t>, std::vector<uint32_t>>> parts_of(
      graph.classes.size());  // per class: signature -> ranks
  std::vector<uint32_t> paired;  // classes to split whose sends pair them with others
  bool split = false;
  uint64_t nodes = 0;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    auto& parts = parts_of[c];
    for (const uint32_t rank : graph.classes[c].ranks) {
      std::vector<uint32_t> signature;
      for (const uint32_t k : uses[c]) signature.push_back(view_of[k][rank]);
      parts[signature].push_back(rank);
    }
    split |= parts.size() > 1;
    if (parts.size() > 1 && HasPointToPoint(graph.classes[c])) paired.push_back(c);
    nodes += graph.classes[c].program.size() * parts.size();
  }
  if (!paired.empty()) {
    return SeparateRanks(graph, std::move(paired), max_nodes) ? Pass::kSplit : Pass::kTooBig;
  }
  if (!split) return Pass::kStable;
  if (nodes > max_nodes) return Pass::kTooBig;
  std::vector<RankClass> refined;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    for (auto& [signature, ranks] : parts_of[c]) {
      refined.push_back(RankClass{std::move(ranks), graph.classes[c].program});
    }
  }
  std::sort(refined.begin(), refined.end(), [](const RankClass& a, const RankClass& b) {
    return a.ranks.front() < b.ranks.front();
  });
  graph.classes = std::move(refined);
  return Pass::kSplit;
}

}  // namespace

bool RefineRankClasses(ExecutionGraph& graph, const Topology& topology, uint64_t max_nodes) {
  if (auto uneven = UnevenRoutes(graph, topology); !uneven.empty()) {
    if (!SeparateRanks(graph, std::move(uneven), max_nodes)) return false;
  }
  // Each pass splits at least one class or stops: at most one pass per rank.
  for (uint32_t pass = 0; pass <= graph.rank_count; ++pass) {
    switch (SplitOnce(graph, topology, max_nodes)) {
      case Pass::kStable:
        return true;
      case Pass::kTooBig:
        return false;
      case Pass::kSplit:
        break;
    }
  }
  return true;
}

}  // namespace hfsim
