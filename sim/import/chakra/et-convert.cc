#include "sim/import/chakra/et-convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "sim/scenario/graph-section.h"

namespace hfsim {

namespace {

constexpr double kMaxDurationNs = 1e15;

// Streams of a rank, after ASTRA-sim's resources (docs/chakra.md §3): one for accelerator
// compute, one for communication (collectives and sends, one at a time), one for host (CPU)
// operations; receives hold no resource there, so they rotate over the remaining streams.
constexpr uint32_t kComputeStream = 0;
constexpr uint32_t kCommStream = 1;
constexpr uint32_t kHostStream = 2;
constexpr uint32_t kFirstRecvStream = 3;
constexpr uint32_t kStreams = 64;

// hfsim's name of the collectives it models ("all_reduce", ...), or nullptr.
const char* HfsimKind(int64_t comm_type) {
  if (comm_type == static_cast<int64_t>(EtCollective::kAllReduce)) return "all_reduce";
  if (comm_type == static_cast<int64_t>(EtCollective::kAllGather)) return "all_gather";
  if (comm_type == static_cast<int64_t>(EtCollective::kAllToAll)) return "all_to_all";
  if (comm_type == static_cast<int64_t>(EtCollective::kReduceScatter)) return "reduce_scatter";
  return nullptr;
}

// The duration ASTRA-sim replays: duration_micros in ns, and 1 ns for 0 (Workload::issue_replay).
Expected<double> ReplayNs(const EtFile& file, const EtNode& node) {
  const double ns =
      node.duration_micros == 0 ? 1.0 : static_cast<double>(node.duration_micros) * 1000.0;
  if (ns > kMaxDurationNs) {
    return NodeError(file, node,
                     fmt::format("duration_micros is {}; accepted: at most {:g}",
                                 node.duration_micros, kMaxDurationNs / 1000.0));
  }
  return ns;
}

}  // namespace

namespace {

// A send's or receive's other end: its own end must be the rank, the other a rank of the
// fabric other than itself.
Expected<uint32_t> PeerOf(const EtFile& file, const EtNode& node, uint32_t rank, uint64_t ranks) {
  const bool send = node.type == static_cast<int32_t>(EtNodeType::kSend);
  const std::optional<int64_t>& self = send ? node.comm_src : node.comm_dst;
  const std::optional<int64_t>& other = send ? node.comm_dst : node.comm_src;
  const char* self_key = send ? "comm_src" : "comm_dst";
  const char* other_key = send ? "comm_dst" : "comm_src";
  if (self && *self != rank) {
    return NodeError(file, node,
                     fmt::format("{} is {} in rank {}'s file; accepted: {} (a rank sends and "
                                 "receives as itself)",
                                 self_key, *self, rank, rank));
  }
  if (!other) return NodeError(file, node, fmt::format("has no {} attribute", other_key));
  if (*other < 0 || static_cast<uint64_t>(*other) >= ranks) {
    return NodeError(file, node,
                     fmt::format("{} is {}: the fabric has {} NPUs (ranks 0 to {})", other_key,
                                 *other, ranks, ranks - 1));
  }
  if (*other == rank) {
    return NodeError(file, node, fmt::format("{} is the rank itself ({})", other_key, rank));
  }
  return static_cast<uint32_t>(*other);
}

// The group id a collective's pg_name names (nullopt: the default group), checked to exist and
// to hold the rank.
Expected<std::optional<int64_t>> GroupOf(const EtFile& file, const EtNode& node, uint32_t rank,
                                         const EtGroups& groups, const std::string& groups_path) {
  const std::string pg = node.pg_name.value_or("");
  if (pg.empty() || pg == "0") return std::optional<int64_t>();
  const std::optional<int64_t> named = groups.Named(node.pg_name);
  if (!named) {
    return NodeError(file, node,
                     fmt::format("pg_name \"{}\" names no communicator group{}; accepted: \"\" or "
                                 "\"0\" (all NPUs, over involved_dim) or a key of the groups file",
                                 pg,
                                 groups_path.empty() ? " (no --chakra-groups file was given)"
                                                     : " of " + groups_path));
  }
  const std::vector<uint32_t>& members = groups.members.at(*named);
  if (!std::binary_search(members.begin(), members.end(), rank)) {
    return NodeError(file, node,
                     fmt::format("pg_name \"{}\" names a group that does not hold rank {} (its "
                                 "ranks: {})",
                                 pg, rank, fmt::join(members, ", ")));
  }
  return named;
}

}  // namespace

EtConverter::EtConverter(const ChakraInputs& inputs, const std::vector<uint32_t>& sizes,
                         EtGroups groups)
    : m_inputs(inputs), m_sizes(sizes), m_groups(std::move(groups)) {
  m_ranks = 1;
  for (const uint32_t size : sizes) m_ranks *= size;
}

/// One rank's program as graph nodes, in ascending id order (the order in which ASTRA-sim
/// issues ready nodes).
Expected<nlohmann::json> EtConverter::Program(const EtFile& file, uint32_t rank) {
  nlohmann::json program = nlohmann::json::array();
  uint32_t next_recv_stream = kFirstRecvStream;
  // hfsim's exporter writes a collective of count k as k nodes in a row; they fold back into
  // one, and whoever waits for a copy waits for that node.
  m_alias.clear();
  const EtNode* repeated = nullptr;
  int64_t repeats_left = 0;
  auto too_few_copies = [&] {
    return NodeError(
        file, *repeated,
        fmt::format("hfsim_count promises {} more copies than follow it", repeats_left));
  };
  uint64_t next_id = file.nodes.empty() ? 0 : file.nodes.back().id + 1;  // for custom expansions
  for (const EtNode& node : file.nodes) {
    if (CustomOf(node) != nullptr) {
      auto expanded = ExpandCustom(file, node, rank, next_id, next_recv_stream);
      if (!expanded) return expanded.Error();
      for (nlohmann::json& entry : expanded.Value()) program.push_back(std::move(entry));
      continue;
    }
    // Copies of a repeated collective fold back (not with custom implementations, whose
    // expansions keep every copy).
    if (node.hfsim_repeat && m_inputs.custom.empty()) {
      if (repeats_left == 0 || node.type != repeated->type ||
          node.comm_type != repeated->comm_type || node.comm_size != repeated->comm_size ||
          node.pg_name != repeated->pg_name) {
        return NodeError(file, node,
                         "hfsim_repeat on a node that does not repeat the "
                         "collective before it (hfsim_count)");
      }
      --repeats_left;
      m_alias[node.id] = repeated->id;
      continue;
    }
    if (repeats_left > 0) return too_few_copies();
    auto entry = Node(file, node, rank, next_recv_stream);
    if (!entry) return entry.Error();
    if (node.hfsim_count && m_inputs.custom.empty()) {
      if (*node.hfsim_count < 1 || *node.hfsim_count > (1 << 20) ||
          entry.Value()["type"] != "collective") {
        return NodeError(file, node,
                         fmt::format("hfsim_count is {}; accepted: 1 to 2^20, on "
                                     "a collective",
                                     *node.hfsim_count));
      }
      if (*node.hfsim_count > 1) entry.Value()["count"] = *node.hfsim_count;
      repeated = &node;
      repeats_left = *node.hfsim_count - 1;
    }
    program.push_back(std::move(entry).Value());
  }
  if (repeats_left > 0) return too_few_copies();
  return program;
}

std::optional<UserError> EtConverter::CheckRank(const EtFile& file, uint32_t rank,
                                                std::vector<uint32_t>& peers) const {
  peers.clear();
  for (const EtNode& node : file.nodes) {
    if (node.type == static_cast<int32_t>(EtNodeType::kSend) ||
        node.type == static_cast<int32_t>(EtNodeType::kRecv)) {
      auto peer = PeerOf(file, node, rank, m_ranks);
      if (!peer) return peer.Error();
      peers.push_back(peer.Value());
    } else if (node.type == static_cast<int32_t>(EtNodeType::kCollective) && !node.is_cpu_op) {
      auto group = GroupOf(file, node, rank, m_groups, m_inputs.groups_path);
      if (!group) return group.Error();
    }
  }
  return std::nullopt;
}

nlohmann::json EtConverter::Communicators() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [key, name] : m_dimension_communicators) {
    const uint32_t mask = key.first;
    // Dimension-aligned: every group is the ranks differing only in these dimensions.
    nlohmann::json groups = nlohmann::json::array();
    std::vector<uint64_t> stride(m_sizes.size(), 1);
    for (size_t d = 1; d < m_sizes.size(); ++d) stride[d] = stride[d - 1] * m_sizes[d - 1];
    std::vector<bool> seen(m_ranks, false);
    for (uint64_t r = 0; r < m_ranks; ++r) {
      if (seen[r]) continue;
      std::vector<uint64_t> members = {r};
      for (size_t d = 0; d < m_sizes.size(); ++d) {
        if ((mask >> d & 1) == 0) continue;
        std::vector<uint64_t> grown;
        for (const uint64_t m : members) {
          const uint64_t base = m - (m / stride[d] % m_sizes[d]) * stride[d];
          for (uint32_t k = 0; k < m_sizes[d]; ++k) grown.push_back(base + k * stride[d]);
        }
        members = std::move(grown);
      }
      std::sort(members.begin(), members.end());
      members.erase(std::unique(members.begin(), members.end()), members.end());
      for (const uint64_t m : members) seen[m] = true;
      groups.push_back(members);
    }
    list.push_back({{"name", name}, {"groups", std::move(groups)}});
  }
  for (size_t family = 0; family < m_groups.families.size(); ++family) {
    if (!m_family_used.count(family)) continue;
    nlohmann::json groups = nlohmann::json::array();
    for (const int64_t id : m_groups.families[family]) groups.push_back(m_groups.members.at(id));
    list.push_back({{"name", m_family_names.at(family)}, {"groups", std::move(groups)}});
  }
  return list;
}

// The name hfsim's exporter recorded, unless another communicator has it already; else
// `fallback`.
std::string EtConverter::Unique(const std::optional<std::string>& recorded,
                                const std::string& fallback) {
  std::string name =
      recorded && !recorded->empty() && !m_names.count(*recorded) ? *recorded : fallback;
  while (!m_names.insert(name).second) name += "'";
  return name;
}

std::string EtConverter::FamilyName(size_t family) const {
  std::string name = "pg";
  for (const int64_t id : m_groups.families[family]) name += fmt::format(" {}", id);
  return name;
}

// The communicator a collective runs on, and the size of its group.
Expected<std::pair<std::string, uint64_t>> EtConverter::CommunicatorOf(const EtFile& file,
                                                                       const EtNode& node,
                                                                       uint32_t rank) {
  auto group = GroupOf(file, node, rank, m_groups, m_inputs.groups_path);
  if (!group) return group.Error();
  if (group.Value()) {
    const int64_t id = *group.Value();
    const std::vector<uint32_t>& members = m_groups.members.at(id);
    const size_t family = m_groups.family_of.at(id);
    if (m_family_used.insert(family).second) {
      m_family_names[family] = Unique(node.hfsim_communicator, FamilyName(family));
    }
    return std::make_pair(m_family_names.at(family), static_cast<uint64_t>(members.size()));
  }
  // The default group: every NPU, over the dimensions involved_dim names (ASTRA-sim's
  // Workload::issue_coll_comm; absent means the first four).
  std::vector<bool> involved = node.involved_dim.value_or(std::vector<bool>(4, true));
  if (involved.size() < m_sizes.size()) {
    return NodeError(
        file, node,
        fmt::format("involved_dim has {} entr{}{} but the fabric has {} dimensions; accepted: "
                    "one bool per dimension (ASTRA-sim would read past the list)",
                    involved.size(), involved.size() == 1 ? "y" : "ies",
                    node.involved_dim ? "" : " (it is absent: ASTRA-sim's default covers four)",
                    m_sizes.size()));
  }
  uint32_t mask = 0;
  uint64_t size = 1;
  std::string name = "dims";
  for (size_t d = 0; d < m_sizes.size(); ++d) {
    if (!involved[d]) continue;
    mask |= 1u << d;
    size *= m_sizes[d];
    name += fmt::format(" {}", d);
  }
  if (mask == 0) name = "dims none";
  const auto [it, added] = m_dimension_communicators.emplace(
      std::make_pair(mask, node.hfsim_communicator.value_or("")), name);
  if (added) it->second = Unique(node.hfsim_communicator, name);
  return std::make_pair(it->second, size);
}

// A node as Chakra types it, then hfsim's own attributes where present (docs/chakra.md §5).
Expected<nlohmann::json> EtConverter::Node(const EtFile& file, const EtNode& node, uint32_t rank,
                                           uint32_t& next_recv_stream) {
  auto entry = Convert(file, node, rank, next_recv_stream);
  if (!entry) return entry;
  nlohmann::json& json = entry.Value();
  if (node.hfsim_stream) {
    if (*node.hfsim_stream < 0 || *node.hfsim_stream >= kStreams) {
      return NodeError(
          file, node,
          fmt::format("hfsim_stream is {}; accepted: 0 to {}", *node.hfsim_stream, kStreams - 1));
    }
    json.erase("stream");
    if (*node.hfsim_stream != 0) json["stream"] = *node.hfsim_stream;
  }
  if (node.hfsim_phase) json["phase"] = *node.hfsim_phase;  // the loader checks the name
  if (node.hfsim_continues_step) json["continues_step"] = true;
  if (node.hfsim_duration_ns && json["type"] == "compute") {
    if (!(*node.hfsim_duration_ns >= 0.0 && *node.hfsim_duration_ns <= kMaxDurationNs)) {
      return NodeError(file, node,
                       fmt::format("hfsim_duration_ns is {:g}; accepted: 0 to {:g}",
                                   *node.hfsim_duration_ns, kMaxDurationNs));
    }
    json["duration_ns"] = *node.hfsim_duration_ns;
  }
  return entry;
}

Expected<nlohmann::json> EtConverter::Convert(const EtFile& file, const EtNode& node, uint32_t rank,
                                              uint32_t& next_recv_stream) {
  nlohmann::json entry = {{"id", node.id}};
  if (!node.name.empty()) entry["name"] = node.name;
  const std::vector<uint64_t> deps = DependenciesOf(node);
  if (!deps.empty()) entry["deps"] = deps;
  auto replay = [&](uint32_t stream) -> Expected<nlohmann::json> {
    auto ns = ReplayNs(file, node);
    if (!ns) return ns.Error();
    entry["type"] = "compute";
    entry["duration_ns"] = ns.Value();
    if (stream != kComputeStream) entry["stream"] = stream;
    return entry;
  };
  auto size_of = [&]() -> Expected<uint64_t> {
    if (!node.comm_size) return NodeError(file, node, "has no comm_size attribute");
    if (*node.comm_size < 1 || *node.comm_size > (int64_t{1} << 50)) {
      return NodeError(file, node,
                       fmt::format("comm_size is {}; accepted: 1 to 2^50 bytes", *node.comm_size));
    }
    return static_cast<uint64_t>(*node.comm_size);
  };
  switch (static_cast<EtNodeType>(node.type)) {
    case EtNodeType::kCompute: {
      if (node.is_cpu_op) {
        return replay(kHostStream);
      }
      if (!m_inputs.roofline.enabled) return replay(kComputeStream);
      // ASTRA-sim's roofline (Workload::issue_comp, Roofline::get_perf).
      if (!node.num_ops || !node.tensor_size) {
        return NodeError(file, node,
                         "roofline-enabled needs num_ops and tensor_size on every "
                         "accelerator COMP_NODE");
      }
      if (*node.num_ops < 0 || *node.tensor_size < 0) {
        return NodeError(file, node, "num_ops and tensor_size must be 0 or more");
      }
      double ns = 0.0;  // tensor_size 0: ASTRA-sim skips the node
      if (*node.tensor_size > 0 && *node.num_ops > 0) {
        const double intensity =
            static_cast<double>(*node.num_ops) / static_cast<double>(*node.tensor_size);
        const double flops_per_s = std::min(m_inputs.roofline.memory_GBps * 1e9 * intensity,
                                            m_inputs.roofline.peak_tflops * 1e12);
        ns = static_cast<double>(*node.num_ops) / flops_per_s * 1e9;
      }
      if (!(ns <= kMaxDurationNs)) {
        return NodeError(
            file, node,
            fmt::format("the roofline gives {:g} ns; accepted: at most {:g}", ns, kMaxDurationNs));
      }
      entry["type"] = "compute";
      entry["duration_ns"] = ns;
      return entry;
    }
    case EtNodeType::kCollective: {
      if (node.is_cpu_op) {
        if (!m_inputs.legacy) {
          return NodeError(file, node,
                           "a COMM_COLL_NODE on the host (is_cpu_op): ASTRA-sim "
                           "refuses it (\"Comm node should not be on CPU\"); "
                           "--chakra-legacy replays such host-side calls by their "
                           "duration, as Chakra's first feeder did");
        }
        return replay(kHostStream);
      }
      if (!node.comm_type) return NodeError(file, node, "a COMM_COLL_NODE without comm_type");
      const int64_t type = *node.comm_type;
      if (type == static_cast<int64_t>(EtCollective::kBroadcast)) {
        return replay(kCommStream);  // ASTRA-sim replays a broadcast's recorded duration
      }
      const char* kind = HfsimKind(type);
      if (kind == nullptr) {
        return NodeError(
            file, node,
            fmt::format(
                "comm_type {} ({}) is not modelled; accepted: ALL_REDUCE (0), ALL_GATHER (2), "
                "ALL_TO_ALL (6), REDUCE_SCATTER (7), and BROADCAST (5), replayed by its duration "
                "(ASTRA-sim refuses the others too)",
                type, EtCollectiveName(type)));
      }
      auto size = size_of();
      if (!size) return size.Error();
      auto communicator = CommunicatorOf(file, node, rank);
      if (!communicator) return communicator.Error();
      const auto& [name, members] = communicator.Value();
      // ASTRA-sim's all-gather comm_size is each NPU's input; hfsim's size is the gathered
      // buffer (docs/chakra.md §4).
      uint64_t bytes = size.Value();
      if (type == static_cast<int64_t>(EtCollective::kAllGather)) {
        // Checked before multiplying: the product could wrap.
        if (bytes > (uint64_t{1} << 50) / members) {
          return NodeError(file, node,
                           fmt::format("the gathered buffer is {} bytes x {} NPUs; accepted: at "
                                       "most 2^50 bytes",
                                       bytes, members));
        }
        bytes *= members;
      }
      entry["type"] = "collective";
      entry["kind"] = kind;
      entry["size_bytes"] = bytes;
      entry["communicator"] = name;
      entry["stream"] = kCommStream;
      return entry;
    }
    case EtNodeType::kSend:
    case EtNodeType::kRecv: {
      const bool send = node.type == static_cast<int32_t>(EtNodeType::kSend);
      if (node.is_cpu_op) {
        return NodeError(file, node,
                         fmt::format("a {} on the host (is_cpu_op): ASTRA-sim refuses "
                                     "communication on the CPU",
                                     EtNodeTypeName(node.type)));
      }
      auto peer = PeerOf(file, node, rank, m_ranks);
      if (!peer) return peer.Error();
      if (!node.comm_tag) return NodeError(file, node, "has no comm_tag attribute");
      if (*node.comm_tag < 0) {
        return NodeError(file, node,
                         fmt::format("comm_tag is {}; accepted: 0 or more", *node.comm_tag));
      }
      auto size = size_of();
      if (!size) return size.Error();
      entry["type"] = send ? "send" : "recv";
      entry["peer"] = peer.Value();
      entry["tag"] = *node.comm_tag;
      entry["size_bytes"] = size.Value();
      if (send) {
        entry["stream"] = kCommStream;
      } else {
        entry["stream"] = next_recv_stream;
        next_recv_stream =
            next_recv_stream + 1 == kStreams ? kFirstRecvStream : next_recv_stream + 1;
      }
      return entry;
    }
    case EtNodeType::kMetadata:
      if (!node.metadata_groups.empty()) {
        return NodeError(file, node,
                         "a METADATA_NODE listing process groups: hfsim does not "
                         "read groups from the trace; give them with --chakra-groups "
                         "(ASTRA-sim's comm-group JSON)");
      }
      [[fallthrough]];
    case EtNodeType::kInvalid:
      // ASTRA-sim finishes both at once.
      entry["type"] = "compute";
      entry["duration_ns"] = 0.0;
      entry["stream"] = kCommStream;
      return entry;
    case EtNodeType::kMemLoad:
    case EtNodeType::kMemStore:
      return NodeError(
          file, node,
          fmt::format(
              "{} (remote memory) is not modelled: hfsim has no remote-memory model (ASTRA-sim's "
              "example configuration refuses it too)",
              EtNodeTypeName(node.type)));
  }
  return NodeError(
      file, node,
      fmt::format("node type {} is not a Chakra NodeType; accepted: 0 to 7", node.type));
}

std::vector<uint64_t> EtConverter::DependenciesOf(const EtNode& node) const {
  std::vector<uint64_t> deps = node.data_deps;
  if (!m_inputs.legacy) deps.insert(deps.end(), node.ctrl_deps.begin(), node.ctrl_deps.end());
  for (uint64_t& dep : deps) {
    if (const auto alias = m_alias.find(dep); alias != m_alias.end()) dep = alias->second;
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

const std::string* EtConverter::CustomOf(const EtNode& node) const {
  if (m_inputs.custom.empty() || node.type != static_cast<int32_t>(EtNodeType::kCollective) ||
      node.is_cpu_op || !node.comm_type) {
    return nullptr;
  }
  const char* kind = HfsimKind(*node.comm_type);
  if (kind == nullptr) return nullptr;
  const auto custom = m_inputs.custom.find(kind);
  return custom == m_inputs.custom.end() ? nullptr : &custom->second;
}

Expected<const EtFile*> EtConverter::CustomFile(const std::string& prefix, uint32_t position) {
  const auto key = std::make_pair(prefix, position);
  if (const auto found = m_custom_files.find(key); found != m_custom_files.end()) {
    return &found->second;
  }
  const std::string path = fmt::format("{}.{}.et", prefix, position);
  auto file = ReadEtFile(path);
  if (!file) return file.Error();
  if (auto checked = CheckEtDependencies(file.Value(), false); !checked) return checked.Error();
  for (const EtNode& node : file.Value().nodes) {
    const auto type = static_cast<EtNodeType>(node.type);
    if (type != EtNodeType::kCompute && type != EtNodeType::kSend && type != EtNodeType::kRecv) {
      return NodeError(file.Value(), node,
                       fmt::format("a {} in a custom collective implementation: ASTRA-sim runs "
                                   "only sends, receives and compute there (it would never "
                                   "finish this one)",
                                   EtNodeTypeName(node.type)));
    }
  }
  return &m_custom_files.emplace(key, std::move(file).Value()).first->second;
}

Expected<std::vector<nlohmann::json>> EtConverter::ExpandCustom(const EtFile& file,
                                                                const EtNode& node, uint32_t rank,
                                                                uint64_t& next_id,
                                                                uint32_t& next_stream) {
  // The group, and this rank's place in it: ASTRA-sim's CustomAlgorithm opens PREFIX.POS.et and
  // maps the trace's peers (positions) to ranks of the group; the default group is every NPU
  // in rank order (involved_dim does not apply to custom implementations).
  auto group = GroupOf(file, node, rank, m_groups, m_inputs.groups_path);
  if (!group) return group.Error();
  // Positions in the group: a named group's ranks in ascending order; in the default group
  // position p is rank p (no list is built: a fabric may have a million ranks).
  const std::vector<uint32_t>* members =
      group.Value() ? &m_groups.members.at(*group.Value()) : nullptr;
  const uint64_t group_size = members ? members->size() : m_ranks;
  auto rank_at = [&](uint64_t position) {
    return members ? (*members)[position] : static_cast<uint32_t>(position);
  };
  const auto position = static_cast<uint32_t>(
      members ? std::lower_bound(members->begin(), members->end(), rank) - members->begin() : rank);
  auto custom = CustomFile(*CustomOf(node), position);
  if (!custom) return custom.Error();
  const EtFile& implementation = *custom.Value();
  // The expansion's fresh ids stay within hfsim's graph ids.
  if (next_id > static_cast<uint64_t>(INT64_MAX) - implementation.nodes.size() - 2) {
    return NodeError(file, node,
                     "the trace's ids leave no room for a custom implementation's "
                     "nodes; accepted: ids well below 2^63");
  }
  // Expansions count against the graph's node limit before they are built.
  m_expanded_nodes += implementation.nodes.size() + 2;
  if (m_expanded_nodes > kMaxGraphNodes) {
    return NodeError(file, node,
                     fmt::format("custom implementations expand the trace past {} nodes; "
                                 "accepted: at most {} in all",
                                 kMaxGraphNodes, kMaxGraphNodes));
  }
  std::vector<nlohmann::json> out;
  // A start holding the communication stream, as the collective would.
  const uint64_t start = next_id++;
  nlohmann::json first = {
      {"id", start}, {"type", "compute"}, {"duration_ns", 0.0}, {"stream", kCommStream}};
  if (!node.name.empty()) first["name"] = node.name;
  if (const auto deps = DependenciesOf(node); !deps.empty()) first["deps"] = deps;
  out.push_back(std::move(first));
  std::unordered_map<uint64_t, uint64_t> id_of;
  for (const EtNode& n : implementation.nodes) id_of.emplace(n.id, next_id++);
  std::vector<uint64_t> all;
  for (const EtNode& n : implementation.nodes) {
    nlohmann::json entry = {{"id", id_of.at(n.id)}};
    if (!n.name.empty()) entry["name"] = n.name;
    std::vector<uint64_t> deps = {start};
    for (const auto* list : {&n.data_deps, &n.ctrl_deps}) {
      for (const uint64_t dep : *list) deps.push_back(id_of.at(dep));
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    entry["deps"] = deps;
    // No resource limits there: every node takes the next stream of the rotation.
    entry["stream"] = next_stream;
    next_stream = next_stream + 1 == kStreams ? kFirstRecvStream : next_stream + 1;
    if (n.type == static_cast<int32_t>(EtNodeType::kCompute)) {
      auto ns = ReplayNs(implementation, n);
      if (!ns) return ns.Error();
      entry["type"] = "compute";
      entry["duration_ns"] = ns.Value();
    } else {
      const bool send = n.type == static_cast<int32_t>(EtNodeType::kSend);
      const std::optional<int64_t>& other = send ? n.comm_dst : n.comm_src;
      if (!other || *other < 0 || static_cast<uint64_t>(*other) >= group_size ||
          rank_at(*other) == rank) {
        return NodeError(implementation, n,
                         fmt::format("{} must be another position of the group (0 to {}), got {}",
                                     send ? "comm_dst" : "comm_src", group_size - 1,
                                     other ? std::to_string(*other) : "nothing"));
      }
      if (!n.comm_tag || *n.comm_tag < 0 || !n.comm_size || *n.comm_size < 1 ||
          *n.comm_size > (int64_t{1} << 50)) {
        return NodeError(implementation, n,
                         "needs comm_tag (0 or more) and comm_size (1 to 2^50 bytes)");
      }
      entry["type"] = send ? "send" : "recv";
      entry["peer"] = rank_at(*other);
      entry["tag"] = *n.comm_tag;
      entry["size_bytes"] = *n.comm_size;
    }
    all.push_back(id_of.at(n.id));
    out.push_back(std::move(entry));
  }
  // The end keeps the collective's id, so what waits for the collective waits for all of it.
  all.push_back(start);
  std::sort(all.begin(), all.end());
  nlohmann::json last = {{"id", node.id},
                         {"type", "compute"},
                         {"duration_ns", 0.0},
                         {"stream", kCommStream},
                         {"deps", all}};
  if (!node.name.empty()) last["name"] = node.name;
  out.push_back(std::move(last));
  return out;
}

}  // namespace hfsim
