// `hfsim optimize`: the per-dimension bandwidth allocation that minimises a scenario's
// iteration time (or time x cost, or time under a budget) subject to its "optimize" section.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "sim/cli/convert-command.h"

namespace hfsim {

struct OptimizeCommand {
  std::string scenario_path;
  std::string out_dir;
  bool quiet = false;
  bool no_plot = false;
  /// --verify K: re-simulate the K best allocations (0: do not).
  int64_t verify = 0;
  /// --verify-engine: "packet" or "flow"; empty: the scenario's engine when it is flow, else
  /// packet.
  std::string verify_engine;
  /// LIBRA's inputs instead of a scenario file (--libra-network, ...).
  LibraOptions libra;

  void Register(CLI::App& app);
  /// Exit code: 0 success, 2 bad input (including infeasible constraints), 1 could not write,
  /// the solver's LP failed, or a checking run failed.
  int Execute() const;
};

}  // namespace hfsim
