// Imports LIBRA's inputs (Won et al.; docs/optimize.md §12) into an hfsim scenario JSON document,
// which the normal loader (ParseScenario) then validates: data flows one way, LIBRA files ->
// scenario JSON -> Scenario. What each LIBRA quantity becomes is in docs/libra-import.md.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/expected.h"

namespace hfsim {

/// Paths of LIBRA's input files.
struct LibraFiles {
  std::string network;       ///< network YAML: Topology, NpusCount, CostDimension
  std::string workload;      ///< ASTRA-sim 1.0 text workload (one line per layer)
  std::string communicator;  ///< communicator YAML: Forward, InputGrad, WeightGrad
  std::string cost;          ///< cost-model YAML; empty: hfsim's default cost classes
};

/// The optimisation problem, which LIBRA states in Python (its constraints and objective) rather
/// than in a file; the command line gives it.
struct LibraProblem {
  std::string objective = "time";            ///< "time" or "time_x_cost"
  std::optional<double> total_GBps_per_npu;  ///< total bandwidth per NPU; absent: no "optimize"
  std::string total = "equal";               ///< "equal" or "at_most"
};

/// The scenario document for the given files, or the first problem (file, line or key, value,
/// what is accepted). The document is deterministic: the same files give the same bytes.
Expected<nlohmann::json> ImportLibra(const LibraFiles& files, const LibraProblem& problem);

}  // namespace hfsim
