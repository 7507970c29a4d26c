// One Chakra execution-trace file (one rank's PREFIX.RANK.et) read into plain structs: the
// stream of length-prefixed protobuf records, the node fields and the attributes ASTRA-sim
// reads, with every problem reported as the file, the node id and what is wrong
// (docs/chakra.md §1 and §5). What the nodes mean for a job is chakra-import's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"

namespace hfsim {

/// Chakra's NodeType values.
enum class EtNodeType : int32_t {
  kInvalid = 0,
  kMetadata = 1,
  kMemLoad = 2,
  kMemStore = 3,
  kCompute = 4,
  kSend = 5,
  kRecv = 6,
  kCollective = 7,
};

/// Chakra's CollectiveCommType values.
enum class EtCollective : int32_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};

std::string_view EtNodeTypeName(int32_t type);
std::string_view EtCollectiveName(int64_t type);

struct EtNode {
  uint64_t id = 0;
  std::string name;
  int32_t type = 0;  ///< an EtNodeType, or an unknown value (refused by the importer)
  std::vector<uint64_t> ctrl_deps;
  std::vector<uint64_t> data_deps;
  uint64_t duration_micros = 0;
  bool is_cpu_op = false;
  // The attributes ASTRA-sim reads; absent ones stay empty.
  std::optional<int64_t> comm_type, comm_size, comm_src, comm_dst, comm_tag, num_ops, tensor_size;
  std::optional<std::string> pg_name;
  std::optional<std::vector<bool>> involved_dim;
  /// hfsim's own attributes (written by its exporter, ignored by ASTRA-sim): the graph's
  /// stream, phase, exact duration, communicator name and step continuation.
  std::optional<int64_t> hfsim_stream;
  std::optional<std::string> hfsim_phase;
  std::optional<double> hfsim_duration_ns;
  std::optional<std::string> hfsim_communicator;
  bool hfsim_continues_step = false;
  /// A collective of count k written as k nodes: k on the first, hfsim_repeat on the others.
  std::optional<int64_t> hfsim_count;
  bool hfsim_repeat = false;
  /// A METADATA node's inputs.values (process groups recorded by PyTorch), else empty.
  std::string metadata_groups;
};

/// One rank's file.
struct EtFile {
  std::string path;
  uint64_t bytes = 0;
  std::string version;  ///< GlobalMetadata.version (often empty: converters leave it out)
  /// The metadata's hfsim_sends attribute ("rendezvous" in traces hfsim wrote of a graph whose
  /// sends wait for their receives), else empty: ASTRA-sim's eager sends.
  std::string sends;
  std::vector<EtNode> nodes;
};

struct EtLimits {
  /// Largest record (one node or the metadata) accepted, in bytes.
  uint64_t max_record_bytes = uint64_t{64} << 20;
  /// Most nodes read from one file.
  uint64_t max_nodes = uint64_t{1} << 22;
};

/// Reads `data` (the bytes of the file `path`, for messages) as a Chakra ET. Errors name the
/// file, the record or node and the problem: a truncated record, a length varint longer than
/// 5 bytes, a record that is not a valid message, an attribute of the wrong type.
Expected<EtFile> ParseEtFile(const std::string& path, std::string_view data,
                             const EtLimits& limits = {});

/// "FILE: node ID": the place of an error about a node.
UserError NodeError(const EtFile& file, const EtNode& node, std::string message);

/// Every dependency names a node of the file, no id is used twice and there is no cycle
/// (with `data_only`, data_deps alone count). Errors name the node.
Expected<bool> CheckEtDependencies(const EtFile& file, bool data_only);

/// The file `path` into `data` (at most 4 GiB), or why it cannot be read. It is read in blocks
/// while its records' lengths are walked: reading stops one block after a length of 0 or above
/// `limits.max_record_bytes` (which ParseEtFile then refuses), so a length that claims 2 GiB
/// costs a block of memory, not 2 GiB.
std::optional<UserError> ReadEtBytes(const std::string& path, std::string& data,
                                     const EtLimits& limits = {});

/// Reads the file `path` (into one buffer, then parses it as ParseEtFile).
Expected<EtFile> ReadEtFile(const std::string& path, const EtLimits& limits = {});

}  // namespace hfsim
