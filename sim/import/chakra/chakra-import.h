// Chakra execution traces (one PREFIX.RANK.et per rank, with ASTRA-sim's communicator-group
// JSON) -> an hfsim execution graph document ({"communicators", "programs"}: what
// workload.graph holds), which the normal loader then checks like any graph. The mapping of
// every node type, attribute and size convention is docs/chakra.md §2-§4.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/expected.h"

namespace hfsim {

struct ChakraRoofline {
  bool enabled = false;
  double peak_tflops = 0.0;  ///< ASTRA-sim's peak-perf (TFLOP/s)
  double memory_GBps = 0.0;  ///< ASTRA-sim's local-mem-bw (GB/s, 10^9 B)
};

struct ChakraInputs {
  std::string prefix;       ///< files PREFIX.0.et ... PREFIX.(n-1).et
  std::string groups_path;  ///< ASTRA-sim's comm-group JSON, or empty
  /// Follow data_deps only and replay host-side collective calls by their duration, as
  /// Chakra's first feeder did (for traces whose ctrl_deps hold PyTorch's caller ids).
  bool legacy = false;
  /// Every NPU runs PREFIX.0.et: a trace recorded on one rank of a data-parallel job, run on a
  /// whole fabric (its collectives must involve all NPUs or name groups; no sends or receives).
  bool replicate = false;
  ChakraRoofline roofline;
  /// Collectives run as ASTRA-sim's custom implementations: by hfsim kind ("all_reduce", ...),
  /// the prefix of a trace of sends, receives and compute per group position (the system JSON's
  /// "*-implementation-custom"; docs/chakra.md §6).
  std::map<std::string, std::string> custom;
};

/// Node counts by type, over every rank file read.
struct ChakraCounts {
  uint64_t files = 0;
  uint64_t bytes = 0;
  std::array<uint64_t, 8> by_type{};       ///< indexed by EtNodeType
  uint64_t host_compute = 0;               ///< COMP_NODEs with is_cpu_op
  uint64_t host_collectives = 0;           ///< COMM_COLL_NODEs with is_cpu_op (legacy only)
  std::array<uint64_t, 10> collectives{};  ///< COMM_COLL_NODEs by CollectiveCommType
  uint64_t programs = 0;                   ///< distinct programs after merging identical ranks
  double seconds = 0.0;                    ///< wall time of reading and converting

  uint64_t Nodes() const;
  /// Adds another file's counts (files, bytes and programs excepted).
  void Repeat(const ChakraCounts& other);
  /// One line per fact, for the terminal.
  std::string Summary() const;
};

struct ChakraImport {
  nlohmann::json graph;  ///< what workload.graph holds
  ChakraCounts counts;
};

/// Reads the rank files for a fabric of `dimension_sizes` (rank files must exist for exactly
/// its NPUs). Errors name the file (or option), the node id and the problem.
Expected<ChakraImport> ImportChakra(const ChakraInputs& inputs,
                                    const std::vector<uint32_t>& dimension_sizes);

}  // namespace hfsim
