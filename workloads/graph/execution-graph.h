// The execution graph: what every rank of a job does in one iteration, as a DAG of compute,
// collectives over process groups, and point-to-point sends and receives. Every workload
// generator (training, a lone collective, ...) and every reader (a hand-written JSON graph)
// produces one; every engine runs one. Nothing downstream knows which generator made it.
//
// Ranks whose programs are identical up to renaming form one *rank class*: its program is
// stored once and timed once (a symmetric data x tensor job on 4,096 NPUs is one class).
//
// Timing semantics, shared by every engine:
//   - a node is ready when every node it depends on has finished;
//   - nodes on the same stream of a rank run one at a time, in the order of the program
//     (stream 0 holds compute and blocking communication; other streams are background
//     channels, e.g. gradient all-reduces overlapping backward compute);
//   - a collective starts when every member of its group has issued it (the k-th collective
//     a rank issues on a communicator matches the k-th of every other member);
//   - a send and its receive (same source, destination and tag, in order) start together,
//     when both are issued; or, in a graph with eager sends (a Chakra trace, as ASTRA-sim runs
//     one), the send starts when it is issued and its receive ends once the send has arrived.
// Units: time in ns, sizes in bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "workloads/collective-kind.h"
#include "workloads/graph/dep-list.h"

namespace hfsim {

enum class GraphNodeKind : uint8_t { kCompute, kCollective, kSend, kRecv };

/// Which part of the report's iteration breakdown a node's time belongs to.
enum class GraphPhase : uint8_t { kForward, kInputGrad, kWeightGrad, kStep, kCollective };

/// Scenario spellings (workload.graph nodes' "type" and "phase"; a node takes the collective
/// phase from its kind, never by name, so it is listed last).
inline constexpr NameTable<GraphNodeKind, 4> kGraphNodeKindNames = {{
    {GraphNodeKind::kCompute, "compute"},
    {GraphNodeKind::kCollective, "collective"},
    {GraphNodeKind::kSend, "send"},
    {GraphNodeKind::kRecv, "recv"},
}};
inline constexpr NameTable<GraphPhase, 5> kGraphPhaseNames = {{
    {GraphPhase::kForward, "forward"},
    {GraphPhase::kInputGrad, "input_grad"},
    {GraphPhase::kWeightGrad, "weight_grad"},
    {GraphPhase::kStep, "step"},
    {GraphPhase::kCollective, "collective"},
}};
inline std::string_view ToString(GraphNodeKind kind) { return NameIn(kGraphNodeKindNames, kind); }
inline std::string_view ToString(GraphPhase phase) { return NameIn(kGraphPhaseNames, phase); }

inline constexpr uint32_t kNoLayer = UINT32_MAX;

// Fields are ordered widest first so the node packs without padding (72 bytes): a training
// graph has thousands, every pass of every evaluation reads them all, and the fewer cache
// lines they take the faster each pass is.
struct GraphNode {
  /// The id users see (in error messages, traces); unique within a rank's program.
  uint64_t id = 0;
  /// Compute: its duration.
  double duration_ns = 0.0;
  /// Collective: its buffer (collective.h's size convention); send / receive: the message.
  uint64_t size_bytes = 0;
  /// Send / receive: a tag that pairs them.
  uint64_t tag = 0;
  /// Index into ExecutionGraph::layers (kNoLayer when the node belongs to none).
  uint32_t layer = kNoLayer;
  uint32_t stream = 0;
  /// Collective: its communicator, and how many identical collectives run back to back as
  /// this one node.
  uint32_t communicator = 0;
  uint32_t count = 1;
  /// Send / receive: the other rank, as seen by the class's first rank. In a class of several
  /// ranks, the rank at position i of the class talks to the rank at position i of the peer's
  /// class (PeerResolver), so a pipeline stage's replicas share one program.
  uint32_t peer = 0;
  GraphNodeKind kind = GraphNodeKind::kCompute;
  GraphPhase phase = GraphPhase::kCollective;
  CollectiveKind collective = CollectiveKind::kAllReduce;
  /// This node follows the previous one of its stream as part of one step of a generator's
  /// timeline (a layer's compute and its blocking collective): it waits for that node only,
  /// and the step's durations are summed before they are added to the clock. In exact
  /// arithmetic nothing changes; in floating point it keeps every figure the training loop
  /// ever reported to the last digit (docs/graph.md).
  bool continues_step = false;
  /// Positions (not ids) of the nodes this one waits for, all earlier in the program. Most
  /// nodes wait for one or two: kept inline, so building a graph allocates per program, not
  /// per node.
  DepList deps;
};
static_assert(sizeof(GraphNode) == 72, "GraphNode gained padding or a field: keep it compact");

/// A family of disjoint process groups, one per rank at most (NCCL's communicator split; a
/// Chakra process group name). A group is any list of ranks: a whole dimension, part of one,
/// strided, or spanning several dimensions. Two ways to give them:
///   - `groups` empty: dimension-aligned. Each group is the ranks that differ only in
///     `dimensions` (a training job's data or tensor groups); collectives visit the dimensions
///     in that order. Empty `dimensions`: every rank alone. Costs nothing to store.
///   - `groups` given: explicit lists; collectives visit the spanned dimensions in ascending
///     order and `dimensions` is ignored.
struct Communicator {
  std::string name;
  std::vector<uint32_t> dimensions;
  std::vector<std::vector<uint32_t>> groups;
  bool DimensionAligned() const { return groups.empty(); }
};

/// Ranks with the same program, up to renaming.
struct RankClass {
  std::vector<uint32_t> ranks;  ///< ascending; ranks[0] is the representative
  std::vector<GraphNode> program;
};

struct ExecutionGraph {
  uint32_t rank_count = 0;
  /// The fabric's dimension sizes (dimension 0 varies fastest in a rank id); their product is
  /// rank_count. Dimension-aligned communicators are read against them.
  std::vector<uint32_t> dimension_sizes;
  std::vector<std::string> layers;
  std::vector<Communicator> communicators;
  std::vector<RankClass> classes;
  /// Sends do not wait for their receive: a send starts when issued and ends when its message
  /// has arrived; the receive ends then, or when it is issued if later, taking no time of its
  /// own (ASTRA-sim's semantics). Otherwise a send and its receive start together.
  bool eager_sends = false;
};

inline bool IsPointToPoint(const GraphNode& node) {
  return node.kind == GraphNodeKind::kSend || node.kind == GraphNodeKind::kRecv;
}

/// The class of every rank (the graph's classes must cover every rank once: CheckGraph).
std::vector<uint32_t> ClassOfRanks(const ExecutionGraph& graph);

/// The rank each send or receive talks to. A class of one rank talks to the `peer` its node
/// names; a class of several names its first rank's peer, and its rank at position i talks to
/// the rank at position i of that peer's class (CheckGraph: classes of equal size).
class PeerResolver {
 public:
  explicit PeerResolver(const ExecutionGraph& graph);
  /// The peer of `node` (a send or receive of `rank`'s program) for `rank`.
  uint32_t PeerOf(uint32_t rank, const GraphNode& node) const {
    const Place place = m_place[rank];
    if (place.index == 0) return node.peer;
    const Place peer = m_place[node.peer];
    return m_graph->classes[peer.rank_class].ranks[place.index];
  }

 private:
  struct Place {
    uint32_t rank_class;
    uint32_t index;  ///< position in the class's ranks
  };
  const ExecutionGraph* m_graph;
  std::vector<Place> m_place;
};

/// Which group of one communicator holds a rank, and who is in it.
class GroupIndex {
 public:
  GroupIndex(const ExecutionGraph& graph, uint32_t communicator);
  /// An id of the group holding `rank` (equal ids, same group), or kNoGroup.
  uint32_t GroupOf(uint32_t rank) const;
  /// The members of the group holding `rank` (which must have one), ascending.
  std::vector<uint32_t> Members(uint32_t rank) const;

  static constexpr uint32_t kNoGroup = UINT32_MAX;

 private:
  const ExecutionGraph* m_graph;
  const Communicator* m_comm;
  std::vector<uint64_t> m_stride;        // per dimension, dimension-aligned only
  std::vector<uint32_t> m_group_of_rank; // explicit groups only
};

}  // namespace hfsim
