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

// One pass: returns whether some class was split.
bool SplitOnce(ExecutionGraph& graph, const Topology& topology) {
  std::vector<uint32_t> class_of(graph.rank_count, 0);
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    for (const uint32_t rank : graph.classes[c].ranks) class_of[rank] = c;
  }
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
        view.classes.erase(std::unique(view.classes.begin(), view.classes.end()), view.classes.end());
        auto shape = ShapeOfGroup(topology, members);
        if (auto* ok = std::get_if<GroupShape>(&shape)) view.shape = *ok;
        const uint32_t id = view_ids.emplace(view, static_cast<uint32_t>(view_ids.size())).first->second;
        found = view_of_group.emplace(group, id).first;
      }
      view_of[k][rank] = found->second;
    }
  }
  std::vector<RankClass> refined;
  bool split = false;
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    std::map<std::vector<uint32_t>, std::vector<uint32_t>> parts;  // signature -> ranks
    for (const uint32_t rank : graph.classes[c].ranks) {
      std::vector<uint32_t> signature;
      for (const uint32_t k : uses[c]) signature.push_back(view_of[k][rank]);
      parts[signature].push_back(rank);
    }
    split |= parts.size() > 1;
    for (auto& [signature, ranks] : parts) {
      refined.push_back(RankClass{std::move(ranks), graph.classes[c].program});
    }
  }
  if (!split) return false;
  std::sort(refined.begin(), refined.end(),
            [](const RankClass& a, const RankClass& b) { return a.ranks.front() < b.ranks.front(); });
  graph.classes = std::move(refined);
  return true;
}

}  // namespace

void RefineRankClasses(ExecutionGraph& graph, const Topology& topology) {
  // Each pass splits at least one class or stops: at most one pass per rank.
  for (uint32_t pass = 0; pass <= graph.rank_count && SplitOnce(graph, topology); ++pass) {
  }
}

}  // namespace hfsim
