// LIBRA's four input files read into plain structs, each checked where it stands (file, line,
// key, value, what is accepted). Internal to the importer (sim/import/libra-inputs.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "workloads/collective-kind.h"

namespace hfsim {

/// The largest LIBRA input file read (bytes); a bigger one is refused before it is read.
constexpr uint64_t kMaxLibraFileBytes = 64ull << 20;

struct LibraNetwork {
  std::vector<std::string> kinds;  ///< "Ring", "FullyConnected", "Switch"
  std::vector<uint64_t> sizes;     ///< NpusCount
  std::vector<std::string> cost_dimensions;  ///< CostDimension (may be empty)
  std::vector<int> lines;          ///< line of each NpusCount entry, for messages
};

/// Dimensions each phase's collectives span (LIBRA's communicator, -1 entries dropped).
/// Per phase, how many of each dimension's NPUs its group holds (1 for LIBRA's -1, not used),
/// and the dimensions where that is more than one.
struct LibraCommunicator {
  std::vector<uint32_t> forward;
  std::vector<uint32_t> input_grad;
  std::vector<uint32_t> weight_grad;
  std::vector<uint32_t> forward_npus;
  std::vector<uint32_t> input_grad_npus;
  std::vector<uint32_t> weight_grad_npus;
};

/// Unit prices of one cost dimension, $ per GB/s (absent elements: not given).
struct LibraCostEntry {
  std::optional<double> link, switch_, nic;
};
using LibraCostTable = std::map<std::string, LibraCostEntry>;

/// One phase of a layer: compute time and the collective (none when size is 0 or type NONE).
struct LibraPhase {
  double compute = 0.0;  ///< as written (ASTRA-sim 1.0 cycles; imported as ns)
  std::optional<CollectiveKind> kind;
  uint64_t size_bytes = 0;  ///< as written (all-gather: the per-NPU shard, LIBRA's convention)
};

struct LibraLayer {
  std::string name;
  int line = 0;
  LibraPhase forward, input_grad, weight_grad;
};

struct LibraWorkload {
  std::string parallelism;  ///< the optional first line (e.g. DATA, HYBRID_TRANSFORMER)
  std::vector<LibraLayer> layers;
};

Expected<LibraNetwork> ReadLibraNetwork(const std::string& path);
Expected<LibraCommunicator> ReadLibraCommunicator(const std::string& path,
                                                  const LibraNetwork& network);
Expected<LibraCostTable> ReadLibraCost(const std::string& path);
Expected<LibraWorkload> ReadLibraWorkload(const std::string& path);

// The same for a file's text (each Read* above reads the file and calls these); messages name
// `path` where they would name the file.
Expected<LibraNetwork> ParseLibraNetworkText(const std::string& text, const std::string& path);
Expected<LibraCommunicator> ParseLibraCommunicatorText(const std::string& text, const std::string& path,
                                                       const LibraNetwork& network);
Expected<LibraCostTable> ParseLibraCostText(const std::string& text, const std::string& path);
Expected<LibraWorkload> ParseLibraWorkloadText(const std::string& text, const std::string& path);

/// The file's text, or an error naming it (missing, unreadable, a directory, too big).
Expected<std::string> ReadLibraFile(const std::string& path);

}  // namespace hfsim
