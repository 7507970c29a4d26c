// Chakra traces written by hand for the tests, through the same protobuf schema the reader
// uses, and the ET record framing (a varint length before each message).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/import/chakra/et-def.pb.h"

namespace hfsim::test {

using EtNodeProto = hfsim_chakra::Node;

inline void AppendVarint(uint64_t value, std::string& out) {
  do {
    uint8_t byte = value & 0x7F;
    value >>= 7;
    if (value != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (value != 0);
}

inline void AppendMessage(const google::protobuf::MessageLite& message, std::string& out) {
  const std::string bytes = message.SerializeAsString();
  AppendVarint(bytes.size(), out);
  out += bytes;
}

/// A file's bytes: the metadata, then the nodes.
inline std::string EtBytes(const std::vector<EtNodeProto>& nodes) {
  std::string out;
  hfsim_chakra::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  AppendMessage(metadata, out);
  for (const EtNodeProto& node : nodes) AppendMessage(node, out);
  return out;
}

inline void WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

inline void IntAttr(EtNodeProto& node, const std::string& name, int64_t value) {
  auto* attr = node.add_attr();
  attr->set_name(name);
  attr->set_int64_val(value);
}

inline EtNodeProto Compute(uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {}) {
  EtNodeProto node;
  node.set_id(id);
  node.set_name("compute");
  node.set_type(hfsim_chakra::COMP_NODE);
  node.set_duration_micros(micros);
  for (const uint64_t dep : deps) node.add_data_deps(dep);
  return node;
}

inline EtNodeProto Collective(uint64_t id, int64_t comm_type, int64_t bytes,
                              std::vector<uint64_t> deps = {}) {
  EtNodeProto node;
  node.set_id(id);
  node.set_type(hfsim_chakra::COMM_COLL_NODE);
  IntAttr(node, "comm_type", comm_type);
  IntAttr(node, "comm_size", bytes);
  for (const uint64_t dep : deps) node.add_data_deps(dep);
  return node;
}

/// A send (`send` true) to, or a receive from, `peer`.
inline EtNodeProto PointToPoint(uint64_t id, bool send, int64_t peer, int64_t tag, int64_t bytes,
                                std::vector<uint64_t> deps = {}) {
  EtNodeProto node;
  node.set_id(id);
  node.set_type(send ? hfsim_chakra::COMM_SEND_NODE : hfsim_chakra::COMM_RECV_NODE);
  IntAttr(node, send ? "comm_dst" : "comm_src", peer);
  IntAttr(node, "comm_tag", tag);
  IntAttr(node, "comm_size", bytes);
  for (const uint64_t dep : deps) node.add_data_deps(dep);
  return node;
}

}  // namespace hfsim::test
