// `hfsim sweep`: evaluates every point of a scenario's "sweep" section (allocations x parameter
// values) with the analytical or the packet engine on all cores, streaming the results to CSV
// so an interrupted sweep can --resume; under mpirun the points are sharded over the ranks.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace hfsim {

struct SweepCommand {
  std::string scenario_path;
  std::string out_dir;
  std::string engine;
  uint32_t jobs = 0;  ///< 0: all cores (shared among the ranks on one machine)
  bool resume = false;
  bool quiet = false;
  bool no_plot = false;

  void Register(CLI::App& app);
  /// Exit code: 0 done, 2 bad input, 1 a file could not be written or a worker failed,
  /// 130 interrupted (the finished points are kept for --resume).
  int Execute() const;
};

}  // namespace hfsim
