#include "sim/import/chakra/et-file.h"

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "sim/import/chakra/et-def.pb.h"
#include "sim/scenario/input-file.h"

namespace hfsim {

std::string_view EtNodeTypeName(int32_t type) {
  switch (type) {
    case 0:
      return "INVALID_NODE";
    case 1:
      return "METADATA_NODE";
    case 2:
      return "MEM_LOAD_NODE";
    case 3:
      return "MEM_STORE_NODE";
    case 4:
      return "COMP_NODE";
    case 5:
      return "COMM_SEND_NODE";
    case 6:
      return "COMM_RECV_NODE";
    case 7:
      return "COMM_COLL_NODE";
    default:
      return "an unknown type";
  }
}

std::string_view EtCollectiveName(int64_t type) {
  static constexpr std::string_view kNames[] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  if (type < 0 || type >= static_cast<int64_t>(std::size(kNames))) return "an unknown type";
  return kNames[type];
}

namespace {

using hfsim_chakra::AttributeProto;

// Thrown inside this file only, caught by ParseEtFile: the message already names the node.
struct AttributeError {
  std::string message;
};

// A value read wide (et-def.proto) from a field Chakra declares 32 bits wide, refused beyond
// that width: protobuf's own reader would keep its low 32 bits.
int64_t Within32Bits(const AttributeProto& attr, const char* field, int64_t value, int64_t low,
                     int64_t high) {
  if (value < low || value > high) {
    throw AttributeError{fmt::format("attribute \"{}\" holds {} {}, beyond the field's 32 bits; "
                                     "accepted: {} to {} (a wider value belongs in int64_val)",
                                     attr.name(), field, value, low, high)};
  }
  return value;
}

// A bool read wide: 0 or 1 (protobuf's own reader takes any non-zero varint as true).
bool BoolOf(const std::string& name, uint64_t value) {
  if (value > 1) {
    throw AttributeError{fmt::format("attribute \"{}\" holds a bool varint of {}; accepted: 0 "
                                     "(false) or 1 (true)",
                                     name, value)};
  }
  return value == 1;
}

// An integer attribute as ASTRA-sim's feeder reads one: any integer field of the oneof, never a
// floating-point one (its feeder refuses that conversion) and never a list.
int64_t IntegerOf(const AttributeProto& attr) {
  constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  switch (attr.value_case()) {
    case AttributeProto::kInt32Val:
      return Within32Bits(attr, "int32_val", attr.int32_val(), kInt32Min, kInt32Max);
    case AttributeProto::kInt64Val:
      return attr.int64_val();
    case AttributeProto::kUint32Val:
      if (attr.uint32_val() > std::numeric_limits<uint32_t>::max()) {
        throw AttributeError{fmt::format("attribute \"{}\" holds uint32_val {}, beyond the "
                                         "field's 32 bits; accepted: 0 to {} (a wider value "
                                         "belongs in uint64_val)",
                                         attr.name(), attr.uint32_val(),
                                         std::numeric_limits<uint32_t>::max())};
      }
      return static_cast<int64_t>(attr.uint32_val());
    case AttributeProto::kSint32Val:
      return Within32Bits(attr, "sint32_val", attr.sint32_val(), kInt32Min, kInt32Max);
    case AttributeProto::kSint64Val:
      return attr.sint64_val();
    case AttributeProto::kFixed32Val:
      return attr.fixed32_val();
    case AttributeProto::kSfixed32Val:
      return attr.sfixed32_val();
    case AttributeProto::kSfixed64Val:
      return attr.sfixed64_val();
    case AttributeProto::kUint64Val:
    case AttributeProto::kFixed64Val: {
      const uint64_t value =
          attr.value_case() == AttributeProto::kUint64Val ? attr.uint64_val() : attr.fixed64_val();
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw AttributeError{
            fmt::format("attribute \"{}\" is {}; accepted: at most 2^63 - 1", attr.name(), value)};
      }
      return static_cast<int64_t>(value);
    }
    default:
      throw AttributeError{fmt::format(
          "attribute \"{}\" holds {}; accepted: an integer value (int32_val, int64_val, "
          "uint64_val, ...; ASTRA-sim converts no floating-point value or list to an integer)",
          attr.name(),
          attr.value_case() == AttributeProto::VALUE_NOT_SET
              ? std::string("no value")
              : std::string(AttributeProto::GetDescriptor()
                                ->FindFieldByNumber(attr.value_case())
                                ->name()))};
  }
}

void ReadAttribute(const AttributeProto& attr, EtNode& node) {
  const std::string& name = attr.name();
  if (name == "is_cpu_op") {
    if (attr.value_case() == AttributeProto::kBoolVal) {
      node.is_cpu_op = BoolOf(name, attr.bool_val());
    } else {
      const int64_t value = IntegerOf(attr);
      if (value != 0 && value != 1) {
        throw AttributeError{fmt::format("attribute \"is_cpu_op\" is {}; accepted: a bool", value)};
      }
      node.is_cpu_op = value == 1;
    }
  } else if (name == "comm_type") {
    node.comm_type = IntegerOf(attr);
  } else if (name == "comm_size") {
    node.comm_size = IntegerOf(attr);
  } else if (name == "comm_src") {
    node.comm_src = IntegerOf(attr);
  } else if (name == "comm_dst") {
    node.comm_dst = IntegerOf(attr);
  } else if (name == "comm_tag") {
    node.comm_tag = IntegerOf(attr);
  } else if (name == "num_ops") {
    node.num_ops = IntegerOf(attr);
  } else if (name == "tensor_size") {
    node.tensor_size = IntegerOf(attr);
  } else if (name == "pg_name") {
    if (attr.value_case() != AttributeProto::kStringVal) {
      throw AttributeError{
          "attribute \"pg_name\" is not a string_val; accepted: the "
          "communicator group's id as text, e.g. \"1\""};
    }
    node.pg_name = attr.string_val();
  } else if (name == "involved_dim") {
    if (attr.value_case() != AttributeProto::kBoolList) {
      throw AttributeError{
          "attribute \"involved_dim\" is not a bool_list; accepted: one bool "
          "per network dimension"};
    }
    std::vector<bool>& involved = node.involved_dim.emplace();
    for (const uint64_t on : attr.bool_list().values()) involved.push_back(BoolOf(name, on));
  } else if (name == "hfsim_stream") {
    node.hfsim_stream = IntegerOf(attr);
  } else if (name == "hfsim_phase") {
    if (attr.value_case() != AttributeProto::kStringVal) {
      throw AttributeError{"attribute \"hfsim_phase\" is not a string_val"};
    }
    node.hfsim_phase = attr.string_val();
  } else if (name == "hfsim_duration_ns") {
    if (attr.value_case() != AttributeProto::kDoubleVal) {
      throw AttributeError{"attribute \"hfsim_duration_ns\" is not a double_val"};
    }
    node.hfsim_duration_ns = attr.double_val();
  } else if (name == "hfsim_communicator") {
    if (attr.value_case() != AttributeProto::kStringVal) {
      throw AttributeError{"attribute \"hfsim_communicator\" is not a string_val"};
    }
    node.hfsim_communicator = attr.string_val();
  } else if (name == "hfsim_continues_step") {
    if (attr.value_case() != AttributeProto::kBoolVal) {
      throw AttributeError{"attribute \"hfsim_continues_step\" is not a bool_val"};
    }
    node.hfsim_continues_step = BoolOf(name, attr.bool_val());
  } else if (name == "hfsim_count") {
    node.hfsim_count = IntegerOf(attr);
  } else if (name == "hfsim_repeat") {
    if (attr.value_case() != AttributeProto::kBoolVal) {
      throw AttributeError{"attribute \"hfsim_repeat\" is not a bool_val"};
    }
    node.hfsim_repeat = BoolOf(name, attr.bool_val());
  }
  // Every other attribute (tid, op_schema, rf_id, ...) means nothing to the timing, as in
  // ASTRA-sim.
}

// A varint of at most 5 bytes (a 32-bit length, as Chakra's writers and readers use), or
// nullopt with `error` set.
std::optional<uint64_t> ReadLength(std::string_view data, size_t& at, std::string& error) {
  uint64_t value = 0;
  for (int i = 0; i < 5; ++i) {
    if (at >= data.size()) {
      error = "the file ends inside a record's length (truncated)";
      return std::nullopt;
    }
    const auto byte = static_cast<uint8_t>(data[at++]);
    value |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
  error =
      "a record's length is not a valid varint (more than 5 bytes; Chakra lengths are "
      "32-bit varints)";
  return std::nullopt;
}

}  // namespace

UserError NodeError(const EtFile& file, const EtNode& node, std::string message) {
  return UserError{fmt::format("{}: node {}", file.path, node.id), std::move(message)};
}

Expected<EtFile> ParseEtFile(const std::string& path, std::string_view data,
                             const EtLimits& limits) {
  EtFile file;
  file.path = path;
  file.bytes = data.size();
  size_t at = 0;
  uint64_t record = 0;
  // protobuf logs what it refuses (a string that is not UTF-8) to standard error; hfsim says
  // what is wrong itself, naming the file and record, so that log is silenced.
  static std::once_flag quiet;
  std::call_once(quiet, [] { google::protobuf::SetLogHandler(nullptr); });
  hfsim_chakra::Node proto;  // reused: parsing into it again keeps its allocations
  std::string error;
  while (at < data.size()) {
    const size_t record_start = at;
    const uint64_t index = record++;  // 0: the metadata; k: the k-th node
    auto fail = [&](const std::string& what) {
      // A record that does not parse has no node id to give: name its place, and the node
      // before it.
      std::string where = index == 0
                              ? fmt::format("{}: the metadata record (byte {})", path, record_start)
                              : fmt::format("{}: record {} (byte {}", path, index, record_start);
      if (index > 0) {
        where += file.nodes.empty() ? ", the first node)"
                                    : fmt::format(", after node {})", file.nodes.back().id);
      }
      return UserError{where, what};
    };
    const auto length = ReadLength(data, at, error);
    if (!length) return fail(error);
    if (*length == 0) {
      return fail("a record of length 0 (Chakra's reader stops there; nothing may follow)");
    }
    if (*length > limits.max_record_bytes) {
      return fail(fmt::format("a record of {} bytes; accepted: at most {} bytes", *length,
                              limits.max_record_bytes));
    }
    if (*length > data.size() - at) {
      return fail(fmt::format("the record says {} bytes but the file has only {} left (truncated)",
                              *length, data.size() - at));
    }
    const char* bytes = data.data() + at;
    at += *length;
    if (index == 0) {
      hfsim_chakra::GlobalMetadata metadata;
      if (!metadata.ParseFromArray(bytes, static_cast<int>(*length))) {
        return fail(
            "not a valid GlobalMetadata message (a field of the wrong wire type, a "
            "truncated field, or a string that is not UTF-8)");
      }
      file.version = metadata.version();
      for (const auto& attr : metadata.attr()) {
        if (attr.name() != "hfsim_sends") continue;
        // hfsim's exporter writes one of two values; anything else is no promise it could keep.
        if (attr.value_case() != AttributeProto::kStringVal ||
            (attr.string_val() != "eager" && attr.string_val() != "rendezvous")) {
          return fail(fmt::format(
              "attribute \"hfsim_sends\" is {}; accepted: the string \"eager\" (sends leave when "
              "issued, as ASTRA-sim runs them) or \"rendezvous\" (sends wait for their receives)",
              attr.value_case() == AttributeProto::kStringVal
                  ? fmt::format("\"{}\"", attr.string_val())
                  : std::string("not a string_val")));
        }
        file.sends = attr.string_val();
      }
      continue;
    }
    if (!proto.ParseFromArray(bytes, static_cast<int>(*length))) {
      return fail(
          "not a valid Node message (a field of the wrong wire type, a truncated "
          "field, or a string that is not UTF-8)");
    }
    if (file.nodes.size() >= limits.max_nodes) {
      return fail(fmt::format("more than {} nodes in one file; accepted: at most {}",
                              limits.max_nodes, limits.max_nodes));
    }
    EtNode& node = file.nodes.emplace_back();
    node.id = proto.id();
    if (node.id > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return NodeError(file, node, "accepted: ids up to 2^63 - 1 (hfsim's graph ids)");
    }
    node.name = proto.name();
    // NodeType is an enum, an int32 on the wire; read wide, so 2^32 + 4 is not taken for 4.
    if (proto.type() < std::numeric_limits<int32_t>::min() ||
        proto.type() > std::numeric_limits<int32_t>::max()) {
      return NodeError(file, node,
                       fmt::format("node type {} is beyond NodeType's 32 bits (an enum); "
                                   "accepted: 0 to 7",
                                   proto.type()));
    }
    node.type = static_cast<int32_t>(proto.type());
    node.ctrl_deps.assign(proto.ctrl_deps().begin(), proto.ctrl_deps().end());
    node.data_deps.assign(proto.data_deps().begin(), proto.data_deps().end());
    node.duration_micros = proto.duration_micros();
    if (node.type == static_cast<int32_t>(EtNodeType::kMetadata) && proto.has_inputs()) {
      node.metadata_groups = proto.inputs().values();
    }
    try {
      for (const auto& attr : proto.attr()) ReadAttribute(attr, node);
    } catch (const AttributeError& problem) {
      return NodeError(file, node, problem.message);
    }
  }
  if (record == 0)
    return UserError{path, "the file is empty; accepted: a GlobalMetadata record, then nodes"};
  // In ascending id order, the order ASTRA-sim issues ready nodes in and every reader here
  // walks them in (ids are checked unique later, with their dependencies).
  std::stable_sort(file.nodes.begin(), file.nodes.end(),
                   [](const EtNode& a, const EtNode& b) { return a.id < b.id; });
  return file;
}

// Every node's dependencies exist and hold no cycle; ids are unique. Names the node at fault.
Expected<bool> CheckEtDependencies(const EtFile& file, bool data_only) {
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
                          data_only || std::string_view(kind) == "data_deps"
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
    if (!data_only) {
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
    if (!data_only) deps.insert(deps.end(), node.ctrl_deps.begin(), node.ctrl_deps.end());
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

std::optional<UserError> ReadEtBytes(const std::string& path, std::string& data,
                                     const EtLimits& limits) {
  constexpr uint64_t kMaxFileBytes = uint64_t{4} << 30;
  constexpr uint64_t kBlock = uint64_t{1} << 20;
  auto file = InputFile::Open(path, "the Chakra trace file");
  if (!file) return file.Error();
  const std::optional<uint64_t> size = file.Value().Size();
  auto too_large = [&](uint64_t bytes) {
    return UserError{path, fmt::format("the file has {} bytes; accepted: at most 4 GiB", bytes)};
  };
  if (size && *size > kMaxFileBytes) return too_large(*size);
  data.clear();
  uint64_t next = 0;  // where the next record's length starts
  while (true) {
    // Walk the lengths read so far; stop reading at one ParseEtFile will refuse.
    while (next < data.size()) {
      uint64_t at = next;
      uint64_t length = 0;
      int i = 0;
      bool whole = false;
      for (; i < 5 && at < data.size(); ++i) {
        const auto byte = static_cast<uint8_t>(data[at++]);
        length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
        if ((byte & 0x80) == 0) {
          whole = true;
          break;
        }
      }
      if (!whole && i < 5) break;  // the length continues in the next block
      if (!whole || length == 0 || length > limits.max_record_bytes) return std::nullopt;
      next = at + length;
    }
    // A block, or what is left of a regular file and one byte more (to see its end). The
    // buffer grows by doubling, its last step to the file's size.
    uint64_t block = kBlock;
    if (size && *size >= data.size()) block = std::min(kBlock, *size - data.size() + 1);
    if (data.capacity() < data.size() + block) {
      uint64_t capacity = std::max<uint64_t>(2 * data.capacity(), data.size() + block);
      if (size) capacity = std::min(capacity, std::max<uint64_t>(*size + 1, data.size() + block));
      data.reserve(capacity);
    }
    auto got = file.Value().Read(data, block);
    if (!got) return got.Error();
    if (data.size() > kMaxFileBytes) return too_large(data.size());
    if (got.Value() < block) return std::nullopt;  // the end of the file
  }
}

Expected<EtFile> ReadEtFile(const std::string& path, const EtLimits& limits) {
  std::string data;
  if (auto problem = ReadEtBytes(path, data, limits)) return *problem;
  return ParseEtFile(path, data, limits);
}

}  // namespace hfsim
