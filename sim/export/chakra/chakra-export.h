// An execution graph -> Chakra execution traces: one PREFIX.RANK.et per rank and ASTRA-sim's
// communicator-group JSON, so that ASTRA-sim (or hfsim's own reader) can run any hfsim job,
// including the generated training graphs. docs/chakra.md §5 has the mapping; what ASTRA-sim
// cannot express (streams beyond its resources, sub-microsecond durations, phases) travels in
// attributes named hfsim_* that ASTRA-sim ignores and hfsim's reader honours.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/expected.h"
#include "workloads/graph/execution-graph.h"

namespace hfsim {

/// Receives each rank's file contents, in rank order.
using EtSink = std::function<std::optional<std::string>(uint32_t rank, const std::string& bytes)>;

struct ChakraExportCounts {
  uint64_t files = 0;
  uint64_t nodes = 0;
  uint64_t bytes = 0;
  /// What the traces say differently from the graph, for the user (a communicator whose
  /// dimensions are not in ascending order, which Chakra's involved_dim cannot express).
  std::vector<std::string> notes;
};

/// Writes every rank's trace through `sink` (a sink's error stops the export and is returned)
/// and returns the communicator-group JSON. Refused, naming the node: an all-gather whose
/// buffer does not split evenly over its group (Chakra's size is each NPU's share).
Expected<nlohmann::json> ExportChakra(const ExecutionGraph& graph, const EtSink& sink,
                                      ChakraExportCounts& counts);

}  // namespace hfsim
