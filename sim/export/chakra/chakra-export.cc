#include "sim/export/chakra/chakra-export.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "sim/import/chakra/et-def.pb.h"
#include "sim/import/chakra/et-file.h"

namespace hfsim {

namespace {

using hfsim_chakra::AttributeProto;
using hfsim_chakra::Node;

void AppendRecord(const google::protobuf::MessageLite& message, std::string& out) {
  std::string bytes;
  message.SerializeToString(&bytes);
  uint64_t length = bytes.size();
  do {
    uint8_t byte = length & 0x7F;
    length >>= 7;
    if (length != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (length != 0);
  out += bytes;
}

AttributeProto* Attr(Node& node, const char* name) {
  AttributeProto* attr = node.add_attr();
  attr->set_name(name);
  return attr;
}

// Chakra's CollectiveCommType for hfsim's kinds.
int64_t CommType(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return static_cast<int64_t>(EtCollective::kAllReduce);
    case CollectiveKind::kReduceScatter:
      return static_cast<int64_t>(EtCollective::kReduceScatter);
    case CollectiveKind::kAllGather:
      return static_cast<int64_t>(EtCollective::kAllGather);
    case CollectiveKind::kAllToAll:
      return static_cast<int64_t>(EtCollective::kAllToAll);
  }
  return 0;
}

// The streams hfsim's reader gives a node from its Chakra type alone (chakra-import.cc); an
// hfsim_stream attribute is written only where the graph's stream differs.
uint32_t DefaultStream(const GraphNode& node) {
  switch (node.kind) {
    case GraphNodeKind::kCompute:
      return node.stream == 0 ? 0 : 2;
    case GraphNodeKind::kCollective:
    case GraphNodeKind::kSend:
      return 1;
    case GraphNodeKind::kRecv:
      return UINT32_MAX;  // receives rotate: always written
  }
  return 0;
}

// The dimensions a group of ranks spans, as involved_dim marks them, when it is exactly the
// ranks that differ from one of them only along those dimensions (every combination of their
// coordinates there, the others fixed): a whole-dimension group. nullopt otherwise, and for a
// group of one rank (no dimension to mark: ASTRA-sim's involved_dim all false is no group).
std::optional<std::vector<bool>> WholeDimensions(const std::vector<uint32_t>& members,
                                                 const std::vector<uint32_t>& sizes) {
  std::vector<bool> spans(sizes.size(), false);
  std::vector<uint64_t> stride(sizes.size(), 1);
  for (size_t d = 1; d < sizes.size(); ++d) stride[d] = stride[d - 1] * sizes[d - 1];
  auto coordinate = [&](uint32_t rank, size_t d) { return rank / stride[d] % sizes[d]; };
  uint64_t product = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    for (const uint32_t r : members) {
      spans[d] = spans[d] || coordinate(r, d) != coordinate(members[0], d);
    }
    if (spans[d]) product *= sizes[d];
  }
  // Members are distinct ranks differing only along the spanned dimensions, so as many of them
  // as those dimensions' product are all of its combinations.
  if (product == 1 || product != members.size()) return std::nullopt;
  return spans;
}

}  // namespace

Expected<nlohmann::json> ExportChakra(const ExecutionGraph& graph, const EtSink& sink,
                                      ChakraExportCounts& counts) {
  // A group that is whole dimensions is written as the default group over them (involved_dim),
  // which ASTRA-sim runs with its configured algorithm per dimension, as hfsim prices it. Any
  // other group gets an ASTRA-sim group id 1, 2, ... (in communicator and group order), which
  // ASTRA-sim runs as a ring over its members whatever the algorithm configured
  // (CommunicatorGroup::get_collective_plan; docs/chakra.md §5).
  std::vector<std::vector<int64_t>> group_id(graph.communicators.size());
  std::vector<std::vector<uint64_t>> group_size(graph.communicators.size());
  std::vector<std::vector<std::optional<std::vector<bool>>>> group_dims(
      graph.communicators.size());
  nlohmann::json groups = nlohmann::json::object();
  int64_t next_id = 1;
  for (size_t c = 0; c < graph.communicators.size(); ++c) {
    const Communicator& comm = graph.communicators[c];
    if (comm.DimensionAligned()) continue;
    group_id[c].assign(graph.rank_count, 0);
    group_size[c].assign(graph.rank_count, 1);
    group_dims[c].assign(graph.rank_count, std::nullopt);
    uint64_t rings = 0;
    for (const std::vector<uint32_t>& members : comm.groups) {
      const auto whole = WholeDimensions(members, graph.dimension_sizes);
      for (const uint32_t r : members) {
        group_size[c][r] = members.size();
        group_dims[c][r] = whole;
        if (!whole) group_id[c][r] = next_id;
      }
      if (whole) continue;
      if (members.size() > 1) ++rings;
      groups[std::to_string(next_id++)] = members;
    }
    if (rings > 0) {
      counts.notes.push_back(fmt::format(
          "communicator \"{}\" has {} group{} that {} not whole dimensions of the fabric; they "
          "are written as explicit groups (pg_name), which ASTRA-sim runs as a ring over the "
          "group's members whatever its configured algorithm, so its time for them may differ "
          "from hfsim's (docs/chakra.md §5)",
          comm.name, rings, rings == 1 ? "" : "s", rings == 1 ? "is" : "are"));
    }
  }
  for (const Communicator& comm : graph.communicators) {
    if (comm.DimensionAligned() &&
        !std::is_sorted(comm.dimensions.begin(), comm.dimensions.end())) {
      counts.notes.push_back(fmt::format(
          "communicator \"{}\" visits dimensions {} in that order; a Chakra trace marks them with "
          "involved_dim, which ASTRA-sim and hfsim's reader visit in ascending order, so the "
          "trace's collectives on it may take another time",
          comm.name, fmt::join(comm.dimensions, ", ")));
    }
  }
  const std::vector<uint32_t> class_of = ClassOfRanks(graph);
  const PeerResolver peers(graph);
  // The NPUs of the group a collective of `rank` runs over.
  auto members_of = [&](const GraphNode& node, uint32_t rank) {
    const Communicator& comm = graph.communicators[node.communicator];
    if (!comm.DimensionAligned()) return group_size[node.communicator][rank];
    uint64_t members = 1;
    for (const uint32_t d : comm.dimensions) members *= graph.dimension_sizes[d];
    return members;
  };
  // Every rank's file must be one a reader takes (collectives of count k are k nodes there).
  const uint64_t max_nodes = EtLimits{}.max_nodes;
  for (const RankClass& rank_class : graph.classes) {
    uint64_t nodes = 0;
    for (const GraphNode& node : rank_class.program) {
      nodes += node.kind == GraphNodeKind::kCollective ? node.count : 1;
    }
    if (nodes > max_nodes) {
      return UserError{fmt::format("rank {}", rank_class.ranks.front()),
                       fmt::format("its trace would hold {} nodes (a collective of count k is k "
                                   "nodes); accepted: at most {} per rank file",
                                   nodes, max_nodes)};
    }
  }
  // Every all-gather must split evenly (Chakra gives each NPU's share): checked before any
  // file is written, so a refused job leaves no traces behind.
  for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
    for (const GraphNode& node : graph.classes[class_of[rank]].program) {
      if (node.kind != GraphNodeKind::kCollective ||
          node.collective != CollectiveKind::kAllGather) {
        continue;
      }
      const uint64_t members = members_of(node, rank);
      if (node.size_bytes % members != 0) {
        return UserError{fmt::format("rank {}: node {}", rank, node.id),
                         fmt::format("an all-gather of {} bytes over {} NPUs: Chakra gives each "
                                     "NPU's share, and {} bytes do not split evenly",
                                     node.size_bytes, members, node.size_bytes)};
      }
    }
  }
  std::string bytes;
  for (uint32_t rank = 0; rank < graph.rank_count; ++rank) {
    const RankClass& rank_class = graph.classes[class_of[rank]];
    const std::vector<GraphNode>& program = rank_class.program;
    bytes.clear();
    hfsim_chakra::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    AttributeProto* source = metadata.add_attr();
    source->set_name("producer");
    source->set_string_val("hfsim");
    AttributeProto* sends = metadata.add_attr();
    sends->set_name("hfsim_sends");
    sends->set_string_val(graph.eager_sends ? "eager" : "rendezvous");
    AppendRecord(metadata, bytes);
    // Nodes are numbered 0, 1, 2, ... in program order: readers (hfsim's, and ASTRA-sim when
    // choosing among ready nodes) go by ascending id, so the order survives. A collective of
    // count k becomes k nodes in a row; dependents wait for the last.
    uint64_t next_id = 0;
    std::vector<uint64_t> last_id(program.size());
    std::map<uint32_t, uint64_t> stream_tail;  // the last node written on each stream
    Node out;
    for (uint32_t i = 0; i < program.size(); ++i) {
      const GraphNode& node = program[i];
      const uint32_t copies = node.kind == GraphNodeKind::kCollective ? node.count : 1;
      for (uint32_t copy = 0; copy < copies; ++copy) {
        out.Clear();
        const uint64_t id = next_id++;
        out.set_id(id);
        if (node.layer != kNoLayer) out.set_name(graph.layers[node.layer]);
        if (copy == 0) {
          for (const uint32_t dep : node.deps) out.add_data_deps(last_id[dep]);
        } else {
          out.add_data_deps(last_id[i]);
        }
        // The stream's order, which ASTRA-sim would not otherwise keep.
        if (const auto tail = stream_tail.find(node.stream); tail != stream_tail.end()) {
          const auto& data = out.data_deps();
          if (std::find(data.begin(), data.end(), tail->second) == data.end()) {
            out.add_ctrl_deps(tail->second);
          }
        }
        stream_tail[node.stream] = id;
        last_id[i] = id;
        if (copy == 0 && node.continues_step) Attr(out, "hfsim_continues_step")->set_bool_val(true);
        // hfsim's reader folds the copies back into one node of count k.
        if (copy == 0 && copies > 1) Attr(out, "hfsim_count")->set_int64_val(copies);
        if (copy > 0) Attr(out, "hfsim_repeat")->set_bool_val(true);
        if (node.stream != DefaultStream(node))
          Attr(out, "hfsim_stream")->set_int32_val(static_cast<int32_t>(node.stream));
        const bool accelerator_compute = node.kind == GraphNodeKind::kCompute && node.stream == 0;
        if (node.phase != (accelerator_compute ? GraphPhase::kStep : GraphPhase::kCollective)) {
          Attr(out, "hfsim_phase")->set_string_val(std::string(ToString(node.phase)));
        }
        switch (node.kind) {
          case GraphNodeKind::kCompute: {
            out.set_type(hfsim_chakra::COMP_NODE);
            Attr(out, "is_cpu_op")->set_bool_val(node.stream != 0);
            // ASTRA-sim replays whole microseconds; the exact time travels beside them.
            out.set_duration_micros(static_cast<uint64_t>(std::llround(node.duration_ns / 1000.0)));
            Attr(out, "hfsim_duration_ns")->set_double_val(node.duration_ns);
            break;
          }
          case GraphNodeKind::kCollective: {
            out.set_type(hfsim_chakra::COMM_COLL_NODE);
            Attr(out, "is_cpu_op")->set_bool_val(false);
            Attr(out, "comm_type")->set_int64_val(CommType(node.collective));
            const Communicator& comm = graph.communicators[node.communicator];
            Attr(out, "hfsim_communicator")->set_string_val(comm.name);
            const std::optional<std::vector<bool>>& whole =
                comm.DimensionAligned() ? std::nullopt : group_dims[node.communicator][rank];
            if (comm.DimensionAligned() || whole) {
              // The default group over the communicator's (or the group's) dimensions
              // (ASTRA-sim visits them in ascending order, as hfsim's reader does).
              AttributeProto* involved = Attr(out, "involved_dim");
              std::vector<bool> dims(graph.dimension_sizes.size(), false);
              if (whole) {
                dims = *whole;
              } else {
                for (const uint32_t d : comm.dimensions) dims[d] = true;
              }
              for (const bool on : dims) involved->mutable_bool_list()->add_values(on);
              Attr(out, "pg_name")->set_string_val("");
            } else {
              Attr(out, "pg_name")
                  ->set_string_val(std::to_string(group_id[node.communicator][rank]));
            }
            uint64_t size = node.size_bytes;
            if (node.collective == CollectiveKind::kAllGather) size /= members_of(node, rank);
            Attr(out, "comm_size")->set_int64_val(static_cast<int64_t>(size));
            break;
          }
          case GraphNodeKind::kSend:
          case GraphNodeKind::kRecv: {
            const bool send = node.kind == GraphNodeKind::kSend;
            const uint32_t peer = peers.PeerOf(rank, node);
            out.set_type(send ? hfsim_chakra::COMM_SEND_NODE : hfsim_chakra::COMM_RECV_NODE);
            Attr(out, "is_cpu_op")->set_bool_val(false);
            Attr(out, "comm_src")->set_int32_val(static_cast<int32_t>(send ? rank : peer));
            Attr(out, "comm_dst")->set_int32_val(static_cast<int32_t>(send ? peer : rank));
            if (node.tag <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
              Attr(out, "comm_tag")->set_int32_val(static_cast<int32_t>(node.tag));
            } else {
              Attr(out, "comm_tag")->set_int64_val(static_cast<int64_t>(node.tag));
            }
            Attr(out, "comm_size")->set_int64_val(static_cast<int64_t>(node.size_bytes));
            break;
          }
        }
        AppendRecord(out, bytes);
        ++counts.nodes;
      }
    }
    if (auto problem = sink(rank, bytes)) return UserError{fmt::format("rank {}", rank), *problem};
    ++counts.files;
    counts.bytes += bytes.size();
  }
  return groups;
}

}  // namespace hfsim
