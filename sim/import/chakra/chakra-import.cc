#include "sim/import/chakra/chakra-import.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "sim/import/chakra/et-file.h"
#include "sim/import/chakra/et-groups.h"

namespace hfsim {

namespace {

// The graph loader's own limit on nodes (sim/scenario/graph-section.cc), checked here while
// reading so that a huge trace is refused before it is converted.
constexpr uint64_t kMaxGraphNodes = uint64_t{1} << 22;
constexpr double kMaxDurationNs = 1e15;

// Streams of a rank, after ASTRA-sim's resources (docs/chakra.md §3): one for accelerator
// compute, one for communication (collectives and sends, one at a time), one for host (CPU)
// operations; receives hold no resource there, so they rotate over the remaining streams.
constexpr uint32_t kComputeStream = 0;
constexpr uint32_t kCommStream = 1;
constexpr uint32_t kHostStream = 2;
constexpr uint32_t kFirstRecvStream = 3;
constexpr uint32_t kStreams = 64;

UserError NodeError(const EtFile& file, const EtNode& node, std::string message) {
  return UserError{fmt::format("{}: node {}", file.path, node.id), std::move(message)};
}

std::string RankPath(const std::string& prefix, uint64_t rank) {
  return fmt::format("{}.{}.et", prefix, rank);
}

// The whole file into `data` (one rank's file at a time, the buffer reused).
std::optional<UserError> ReadFileBytes(const std::string& path, std::string& data) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return UserError{path, "cannot open the file"};
  const std::streamoff size = in.tellg();
  if (size < 0 || size > (std::streamoff{4} << 30)) {
    return UserError{path, fmt::format("the file has {} bytes; accepted: at most 4 GiB", size)};
  }
  data.resize(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(data.data(), size)) return UserError{path, "cannot read the file"};
  return std::nullopt;
}

// Every node's dependencies exist and hold no cycle; ids are unique. Names the node at fault.
Expected<bool> CheckDependencies(const EtFile& file, bool legacy) {
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(file.nodes.size());
  for (uint32_t i = 0; i < file.nodes.size(); ++i) {
    if (!index.emplace(file.nodes[i].id, i).second) {
      return NodeError(file, file.nodes[i], "a second node has this id");
    }
  }
  std::vector<uint32_t> pending(file.nodes.size(), 0);
  std::vector<std::vector<uint32_t>> waiters(file.nodes.size());
  for (uint32_t i = 0; i < file.nodes.size(); ++i) {
    const EtNode& node = file.nodes[i];
    auto follow = [&](const std::vector<uint64_t>& deps,
                      const char* kind) -> std::optional<UserError> {
      for (const uint64_t dep : deps) {
        const auto found = index.find(dep);
        if (found == index.end()) {
          return NodeError(
              file, node,
              fmt::format("depends on node {} ({}), which is not in the file{}", dep, kind,
                          legacy || std::string_view(kind) == "data_deps"
                              ? ""
                              : " (traces converted from PyTorch by Chakra's first converter put "
                                "the caller's "
                                "id in ctrl_deps; --chakra-legacy follows data_deps only, as that "
                                "converter's "
                                "feeder did)"));
        }
        ++pending[i];
        waiters[found->second].push_back(i);
      }
      return std::nullopt;
    };
    if (auto error = follow(node.data_deps, "data_deps")) return *error;
    if (!legacy) {
      if (auto error = follow(node.ctrl_deps, "ctrl_deps")) return *error;
    }
  }
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < pending.size(); ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  size_t placed = 0;
  while (!ready.empty()) {
    const uint32_t at = ready.back();
    ready.pop_back();
    ++placed;
    for (const uint32_t waiter : waiters[at]) {
      if (--pending[waiter] == 0) ready.push_back(waiter);
    }
  }
  if (placed == file.nodes.size()) return true;
  // Walk back along unfinished dependencies until a node repeats: that is a cycle.
  uint32_t at = 0;
  while (pending[at] == 0) ++at;
  std::vector<uint32_t> path;
  std::vector<bool> on_path(file.nodes.size(), false);
  while (!on_path[at]) {
    on_path[at] = true;
    path.push_back(at);
    const EtNode& node = file.nodes[at];
    std::vector<uint64_t> deps = node.data_deps;
    if (!legacy) deps.insert(deps.end(), node.ctrl_deps.begin(), node.ctrl_deps.end());
    for (const uint64_t dep : deps) {
      const uint32_t d = index.at(dep);
      if (pending[d] > 0) {
        at = d;
        break;
      }
    }
  }
  std::string cycle = std::to_string(file.nodes[at].id);
  for (auto it = std::find(path.begin(), path.end(), at) + 1; it != path.end(); ++it) {
    cycle += fmt::format(" -> {}", file.nodes[*it].id);
  }
  cycle += fmt::format(" -> {}", file.nodes[at].id);
  return NodeError(file, file.nodes[at],
                   fmt::format("is in a dependency cycle (each depends on the next): {}", cycle));
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

class Converter {
 public:
  Converter(const ChakraInputs& inputs, const std::vector<uint32_t>& sizes, EtGroups groups)
      : m_inputs(inputs), m_sizes(sizes), m_groups(std::move(groups)) {
    m_ranks = 1;
    for (const uint32_t size : sizes) m_ranks *= size;
  }

  uint64_t Ranks() const { return m_ranks; }

  /// One rank's program as graph nodes, in ascending id order (the order in which ASTRA-sim
  /// issues ready nodes).
  Expected<nlohmann::json> Program(const EtFile& file, uint32_t rank, bool& point_to_point,
                                   ChakraCounts& counts) {
    std::vector<const EtNode*> nodes;
    nodes.reserve(file.nodes.size());
    for (const EtNode& node : file.nodes) nodes.push_back(&node);
    std::sort(nodes.begin(), nodes.end(),
              [](const EtNode* a, const EtNode* b) { return a->id < b->id; });
    nlohmann::json program = nlohmann::json::array();
    uint32_t next_recv_stream = kFirstRecvStream;
    // hfsim's exporter writes a collective of count k as k nodes in a row; they fold back into
    // one, and whoever waits for a copy waits for that node.
    m_alias.clear();
    const EtNode* repeated = nullptr;
    int64_t repeats_left = 0;
    for (const EtNode* node : nodes) {
      if (node->type >= 0 && node->type < 8) ++counts.by_type[node->type];
      if (node->hfsim_repeat) {
        if (repeats_left == 0 || node->type != repeated->type ||
            node->comm_type != repeated->comm_type || node->comm_size != repeated->comm_size ||
            node->pg_name != repeated->pg_name) {
          return NodeError(file, *node,
                           "hfsim_repeat on a node that does not repeat the "
                           "collective before it (hfsim_count)");
        }
        --repeats_left;
        m_alias[node->id] = repeated->id;
        continue;
      }
      if (repeats_left > 0) {
        return NodeError(file, *repeated,
                         fmt::format("hfsim_count promises {} more copies than "
                                     "follow it",
                                     repeats_left));
      }
      auto entry = Node(file, *node, rank, next_recv_stream, point_to_point, counts);
      if (!entry) return entry.Error();
      if (node->hfsim_count) {
        if (*node->hfsim_count < 1 || *node->hfsim_count > (1 << 20) ||
            entry.Value()["type"] != "collective") {
          return NodeError(file, *node,
                           fmt::format("hfsim_count is {}; accepted: 1 to 2^20, on "
                                       "a collective",
                                       *node->hfsim_count));
        }
        if (*node->hfsim_count > 1) entry.Value()["count"] = *node->hfsim_count;
        repeated = node;
        repeats_left = *node->hfsim_count - 1;
      }
      program.push_back(std::move(entry).Value());
    }
    if (repeats_left > 0) {
      return NodeError(file, *repeated,
                       fmt::format("hfsim_count promises {} more copies than "
                                   "follow it",
                                   repeats_left));
    }
    return program;
  }

  nlohmann::json Communicators() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [mask, name] : m_dimension_communicators) {
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

 private:
  // The name hfsim's exporter recorded, unless another communicator has it already; else
  // `fallback`.
  std::string Unique(const std::optional<std::string>& recorded, const std::string& fallback) {
    std::string name =
        recorded && !recorded->empty() && !m_names.count(*recorded) ? *recorded : fallback;
    while (!m_names.insert(name).second) name += "'";
    return name;
  }

  std::string FamilyName(size_t family) const {
    std::string name = "pg";
    for (const int64_t id : m_groups.families[family]) name += fmt::format(" {}", id);
    return name;
  }

  // The communicator a collective runs on, and the size of its group.
  Expected<std::pair<std::string, uint64_t>> CommunicatorOf(const EtFile& file, const EtNode& node,
                                                            uint32_t rank) {
    const std::string pg = node.pg_name.value_or("");
    if (!pg.empty() && pg != "0") {
      int64_t id = 0;
      const auto [end, ec] = std::from_chars(pg.data(), pg.data() + pg.size(), id);
      if (ec != std::errc() || end != pg.data() + pg.size() || !m_groups.members.count(id)) {
        return NodeError(
            file, node,
            fmt::format(
                "pg_name \"{}\" names no communicator group{}; accepted: \"\" or \"0\" (all NPUs, "
                "over involved_dim) or a key of the groups file",
                pg,
                m_inputs.groups_path.empty() ? " (no --chakra-groups file was given)"
                                             : " of " + m_inputs.groups_path));
      }
      const std::vector<uint32_t>& members = m_groups.members.at(id);
      if (!std::binary_search(members.begin(), members.end(), rank)) {
        return NodeError(file, node,
                         fmt::format("pg_name \"{}\" names a group that does not hold "
                                     "rank {} (its ranks: {})",
                                     pg, rank, fmt::join(members, ", ")));
      }
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
          fmt::format(
              "involved_dim {} has {} entries but the fabric has {} dimensions; accepted: one bool "
              "per dimension (ASTRA-sim would read past the list)",
              node.involved_dim ? "" : "(absent, so ASTRA-sim's default of four)", involved.size(),
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
    const auto [it, added] = m_dimension_communicators.emplace(mask, name);
    if (added) it->second = Unique(node.hfsim_communicator, name);
    return std::make_pair(it->second, size);
  }

  // A node as Chakra types it, then hfsim's own attributes where present (docs/chakra.md §5).
  Expected<nlohmann::json> Node(const EtFile& file, const EtNode& node, uint32_t rank,
                                uint32_t& next_recv_stream, bool& point_to_point,
                                ChakraCounts& counts) {
    auto entry = Convert(file, node, rank, next_recv_stream, point_to_point, counts);
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

  Expected<nlohmann::json> Convert(const EtFile& file, const EtNode& node, uint32_t rank,
                                   uint32_t& next_recv_stream, bool& point_to_point,
                                   ChakraCounts& counts) {
    nlohmann::json entry = {{"id", node.id}};
    if (!node.name.empty()) entry["name"] = node.name;
    std::vector<uint64_t> deps = node.data_deps;
    if (!m_inputs.legacy) deps.insert(deps.end(), node.ctrl_deps.begin(), node.ctrl_deps.end());
    for (uint64_t& dep : deps) {
      if (const auto alias = m_alias.find(dep); alias != m_alias.end()) dep = alias->second;
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
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
        return NodeError(
            file, node, fmt::format("comm_size is {}; accepted: 1 to 2^50 bytes", *node.comm_size));
      }
      return static_cast<uint64_t>(*node.comm_size);
    };
    switch (static_cast<EtNodeType>(node.type)) {
      case EtNodeType::kCompute: {
        if (node.is_cpu_op) {
          ++counts.host_compute;
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
          return NodeError(file, node,
                           fmt::format("the roofline gives {:g} ns; accepted: at most {:g}", ns,
                                       kMaxDurationNs));
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
          ++counts.host_collectives;
          return replay(kHostStream);
        }
        if (!node.comm_type) return NodeError(file, node, "a COMM_COLL_NODE without comm_type");
        const int64_t type = *node.comm_type;
        if (type >= 0 && type < 10) ++counts.collectives[type];
        static const std::map<int64_t, const char*> kKinds = {
            {0, "all_reduce"}, {2, "all_gather"}, {6, "all_to_all"}, {7, "reduce_scatter"}};
        if (type == static_cast<int64_t>(EtCollective::kBroadcast)) {
          return replay(kCommStream);  // ASTRA-sim replays a broadcast's recorded duration
        }
        const auto kind = kKinds.find(type);
        if (kind == kKinds.end()) {
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
        if (type == static_cast<int64_t>(EtCollective::kAllGather)) bytes *= members;
        if (bytes > (uint64_t{1} << 50)) {
          return NodeError(file, node,
                           fmt::format("the gathered buffer is {} bytes; accepted: at "
                                       "most 2^50",
                                       bytes));
        }
        entry["type"] = "collective";
        entry["kind"] = kind->second;
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
        const std::optional<int64_t>& self = send ? node.comm_src : node.comm_dst;
        const std::optional<int64_t>& other = send ? node.comm_dst : node.comm_src;
        const char* self_key = send ? "comm_src" : "comm_dst";
        const char* other_key = send ? "comm_dst" : "comm_src";
        if (self && *self != rank) {
          return NodeError(file, node,
                           fmt::format("{} is {} in rank {}'s file; accepted: {} (a "
                                       "rank sends and receives as itself)",
                                       self_key, *self, rank, rank));
        }
        if (!other) return NodeError(file, node, fmt::format("has no {} attribute", other_key));
        if (*other < 0 || static_cast<uint64_t>(*other) >= m_ranks) {
          return NodeError(file, node,
                           fmt::format("{} is {}: the fabric has {} NPUs (ranks 0 to {})",
                                       other_key, *other, m_ranks, m_ranks - 1));
        }
        if (*other == rank) {
          return NodeError(file, node, fmt::format("{} is the rank itself ({})", other_key, rank));
        }
        if (!node.comm_tag) return NodeError(file, node, "has no comm_tag attribute");
        if (*node.comm_tag < 0) {
          return NodeError(file, node,
                           fmt::format("comm_tag is {}; accepted: 0 or more", *node.comm_tag));
        }
        auto size = size_of();
        if (!size) return size.Error();
        point_to_point = true;
        entry["type"] = send ? "send" : "recv";
        entry["peer"] = *other;
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

  const ChakraInputs& m_inputs;
  std::vector<uint32_t> m_sizes;
  uint64_t m_ranks = 1;
  EtGroups m_groups;
  std::map<uint32_t, std::string> m_dimension_communicators;  // by mask of dimensions
  std::set<size_t> m_family_used;
  std::map<size_t, std::string> m_family_names;
  std::set<std::string> m_names;                   // every communicator's name so far
  std::unordered_map<uint64_t, uint64_t> m_alias;  // a repeated collective's copies -> its node
};

// Appends a value's bytes to a key.
template <typename T>
void Put(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

void Put(std::string& key, const std::string& text) {
  Put(key, text.size());
  key += text;
}

template <typename T>
void Put(std::string& key, const std::optional<T>& value) {
  Put(key, value.has_value());
  if (value) Put(key, *value);
}

// Everything of a file that its program depends on, with node ids replaced by their positions
// in id order: equal keys, programs equal up to node ids (built from the parsed nodes: far
// cheaper than comparing the converted programs).
std::string ProgramKey(const EtFile& file) {
  std::vector<const EtNode*> nodes;
  nodes.reserve(file.nodes.size());
  for (const EtNode& node : file.nodes) nodes.push_back(&node);
  std::sort(nodes.begin(), nodes.end(),
            [](const EtNode* a, const EtNode* b) { return a->id < b->id; });
  std::unordered_map<uint64_t, uint64_t> position;
  position.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i]->id, i);
  std::string key;
  key.reserve(nodes.size() * 48);
  auto deps = [&](const std::vector<uint64_t>& ids) {
    Put(key, ids.size());
    for (const uint64_t id : ids) {
      const auto found = position.find(id);
      Put(key, found == position.end() ? UINT64_MAX : found->second);
    }
  };
  for (const EtNode* node : nodes) {
    Put(key, node->name);
    Put(key, node->type);
    deps(node->ctrl_deps);
    deps(node->data_deps);
    Put(key, node->duration_micros);
    Put(key, node->is_cpu_op);
    for (const auto* value :
         {&node->comm_type, &node->comm_size, &node->comm_src, &node->comm_dst, &node->comm_tag,
          &node->num_ops, &node->tensor_size, &node->hfsim_stream}) {
      Put(key, *value);
    }
    Put(key, node->pg_name);
    Put(key, node->involved_dim.has_value());
    if (node->involved_dim) {
      Put(key, node->involved_dim->size());
      for (const bool on : *node->involved_dim) Put(key, on);
    }
    Put(key, node->hfsim_phase);
    Put(key, node->hfsim_duration_ns);
    Put(key, node->hfsim_communicator);
    Put(key, node->hfsim_continues_step);
    Put(key, node->hfsim_count);
    Put(key, node->hfsim_repeat);
    Put(key, node->metadata_groups);
  }
  return key;
}

}  // namespace

void ChakraCounts::Repeat(const ChakraCounts& other) {
  for (size_t i = 0; i < by_type.size(); ++i) by_type[i] += other.by_type[i];
  for (size_t i = 0; i < collectives.size(); ++i) collectives[i] += other.collectives[i];
  host_compute += other.host_compute;
  host_collectives += other.host_collectives;
}

uint64_t ChakraCounts::Nodes() const {
  uint64_t total = 0;
  for (const uint64_t n : by_type) total += n;
  return total;
}

std::string ChakraCounts::Summary() const {
  std::string text =
      fmt::format("chakra: {} rank files, {} bytes, {} nodes:", files, bytes, Nodes());
  for (int32_t type = 0; type < 8; ++type) {
    if (by_type[type] == 0) continue;
    text += fmt::format(" {} {}", by_type[type], EtNodeTypeName(type));
    if (type == static_cast<int32_t>(EtNodeType::kCompute) && host_compute > 0) {
      text += fmt::format(" ({} on the host)", host_compute);
    }
    if (type == static_cast<int32_t>(EtNodeType::kCollective)) {
      std::vector<std::string> kinds;
      for (int64_t k = 0; k < 10; ++k) {
        if (collectives[k] > 0)
          kinds.push_back(fmt::format("{} {}", collectives[k], EtCollectiveName(k)));
      }
      if (host_collectives > 0)
        kinds.push_back(fmt::format("{} host-side calls", host_collectives));
      if (!kinds.empty()) text += fmt::format(" ({})", fmt::join(kinds, ", "));
    }
    text += ",";
  }
  text.back() = '\n';
  text += fmt::format(
      "chakra: {} distinct program{} after merging ranks that differ only in "
      "node ids; read and converted in {:.3f} s ({:.3g} nodes/s)\n",
      programs, programs == 1 ? "" : "s", seconds,
      seconds > 0.0 ? static_cast<double>(Nodes()) / seconds : 0.0);
  return text;
}

Expected<ChakraImport> ImportChakra(const ChakraInputs& inputs,
                                    const std::vector<uint32_t>& dimension_sizes) {
  const auto started = std::chrono::steady_clock::now();
  uint64_t ranks = 1;
  for (const uint32_t size : dimension_sizes) ranks *= size;
  EtGroups groups;
  if (!inputs.groups_path.empty()) {
    auto read = ReadEtGroups(inputs.groups_path, ranks);
    if (!read) return read.Error();
    groups = std::move(read).Value();
  }
  // Rank files for exactly the fabric's NPUs: all present, and none beyond (with --chakra-
  // replicate, rank 0's only).
  const uint64_t files = inputs.replicate ? 1 : ranks;
  for (uint64_t r = 0; r < files; ++r) {
    if (!std::filesystem::is_regular_file(RankPath(inputs.prefix, r))) {
      return UserError{RankPath(inputs.prefix, r),
                       fmt::format("no such file: the fabric has {} NPUs, so --chakra {} needs "
                                   "{} to {}",
                                   ranks, inputs.prefix, RankPath(inputs.prefix, 0),
                                   RankPath(inputs.prefix, ranks - 1))};
    }
  }
  if (!inputs.replicate && std::filesystem::exists(RankPath(inputs.prefix, ranks))) {
    return UserError{RankPath(inputs.prefix, ranks),
                     fmt::format("the trace has a rank {} but the fabric has only {} NPUs (ranks 0 "
                                 "to {}); accepted: one file per NPU of the fabric",
                                 ranks, ranks, ranks - 1)};
  }
  Converter converter(inputs, dimension_sizes, std::move(groups));
  ChakraImport result;
  ChakraCounts& counts = result.counts;
  nlohmann::json programs = nlohmann::json::array();
  std::vector<ChakraCounts> same_counts;  // each program's node counts, for ranks that repeat it
  uint64_t total_nodes = 0;
  // Distinct programs by key, and files already seen by their bytes (a symmetric job's rank
  // files are often byte for byte the same: those are neither parsed nor converted again).
  struct Seen {
    size_t program;
    bool point_to_point;
  };
  std::unordered_map<std::string, Seen> by_key;
  std::unordered_map<std::string, Seen> by_bytes;
  std::string data;
  for (uint64_t r = 0; r < files; ++r) {
    const std::string path = RankPath(inputs.prefix, r);
    if (auto read = ReadFileBytes(path, data)) return *read;
    ++counts.files;
    counts.bytes += data.size();
    if (const auto same = by_bytes.find(data);
        same != by_bytes.end() && !same->second.point_to_point) {
      // Counted as the first such file was.
      counts.Repeat(same_counts[same->second.program]);
      programs[same->second.program]["ranks"].push_back(r);
      continue;
    }
    auto file = ParseEtFile(path, data);
    if (!file) return file.Error();
    if (auto checked = CheckDependencies(file.Value(), inputs.legacy); !checked)
      return checked.Error();
    std::string key = ProgramKey(file.Value());
    if (const auto same = by_key.find(key);
        same != by_key.end() && !same->second.point_to_point && !inputs.replicate) {
      counts.Repeat(same_counts[same->second.program]);
      programs[same->second.program]["ranks"].push_back(r);
      by_bytes.emplace(data, same->second);
      continue;
    }
    bool point_to_point = false;
    ChakraCounts mine;
    auto nodes = converter.Program(file.Value(), static_cast<uint32_t>(r), point_to_point, mine);
    if (!nodes) return nodes.Error();
    counts.Repeat(mine);
    if (inputs.replicate) {
      if (point_to_point) {
        return UserError{path,
                         "--chakra-replicate runs this rank's trace on every NPU, but it "
                         "sends or receives, which only its own rank can"};
      }
      nlohmann::json all = nlohmann::json::array();
      for (uint64_t rank = 0; rank < ranks; ++rank) all.push_back(rank);
      programs.push_back({{"ranks", std::move(all)}, {"nodes", std::move(nodes).Value()}});
      break;
    }
    // Ranks whose programs are equal up to node ids share one program (a symmetric job's
    // ranks), unless they send or receive: a shared program's peers are its first rank's.
    const Seen seen{programs.size(), point_to_point};
    by_key.emplace(std::move(key), seen);
    by_bytes.emplace(data, seen);
    same_counts.push_back(mine);
    total_nodes += nodes.Value().size();
    if (total_nodes > kMaxGraphNodes) {
      return UserError{path, fmt::format("the trace's distinct programs hold more than {} nodes; "
                                         "accepted: at most {} (ranks with equal programs count "
                                         "once)",
                                         kMaxGraphNodes, kMaxGraphNodes)};
    }
    programs.push_back({{"ranks", {r}}, {"nodes", std::move(nodes).Value()}});
  }
  counts.programs = programs.size();
  result.graph = {{"communicators", converter.Communicators()}, {"programs", std::move(programs)}};
  counts.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

Expected<ChakraRoofline> ReadAstraRoofline(const std::string& system_path) {
  std::ifstream in(system_path);
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    return UserError{system_path, fmt::format("not valid JSON: {}", error.what())};
  }
  ChakraRoofline roofline;
  if (!root.is_object() || !root.contains("roofline-enabled")) return roofline;
  const nlohmann::json& enabled = root["roofline-enabled"];
  if (!enabled.is_number_integer() ||
      (enabled.get<int64_t>() != 0 && enabled.get<int64_t>() != 1)) {
    return UserError{system_path + ": roofline-enabled",
                     fmt::format("got {}; accepted: 0 or 1", enabled.dump())};
  }
  roofline.enabled = enabled.get<int64_t>() == 1;
  if (!roofline.enabled) return roofline;
  for (const auto& [key, value] :
       {std::pair<const char*, double*>{"peak-perf", &roofline.peak_tflops},
        {"local-mem-bw", &roofline.memory_GBps}}) {
    if (!root.contains(key) || !root[key].is_number() || !(root[key].get<double>() > 0.0) ||
        !(root[key].get<double>() < 1e9)) {
      return UserError{fmt::format("{}: {}", system_path, key),
                       fmt::format("got {}; accepted with roofline-enabled 1: a number above 0 "
                                   "(peak-perf in TFLOP/s, local-mem-bw in GB/s)",
                                   root.contains(key) ? root[key].dump() : "nothing")};
    }
    *value = root[key].get<double>();
  }
  return roofline;
}

}  // namespace hfsim
