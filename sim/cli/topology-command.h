// `hfsim topology`: build a scenario's physical fabric graph, check that every NPU reaches every
// other, and show its size, its diameter and (on request) the route between two NPUs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hfsim {

struct TopologyCommand {
  std::string scenario_path;
  std::string out_dir;
  std::vector<uint64_t> route;  // two NPU ids, or empty

  void Register(CLI::App& app);
  /// Exit code: 0 success, 2 bad input (scenario, NPU ids, graph too large), 1 unreachable NPUs
  /// or output that could not be written.
  int Execute() const;
};

}  // namespace hfsim
