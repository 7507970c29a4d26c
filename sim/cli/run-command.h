// `hfsim run`: simulate one scenario and write its report.
#pragma once

#include <CLI/CLI.hpp>

#include "sim/cli/astra-options.h"
#include "sim/cli/chakra-options.h"

namespace hfsim {

/// Adds the subcommand to `app`; the returned flag-holder runs it when selected.
struct RunCommand {
  std::string scenario_path;
  std::string out_dir;
  std::string format;  ///< empty: not given (json)
  std::string engine;
  int64_t seed = -1;
  bool quiet = false;
  bool plot = false;     ///< --plot: the default with --out, kept for older scripts
  bool no_plot = false;  ///< --no-plot: no breakdown.png (and no gnuplot needed)
  /// --trace FILE: the timeline as Chrome trace-event JSON (Perfetto, chrome://tracing).
  std::string trace_path;
  /// Override the scenario's communication.pricing: hfsim or astra_sim.
  std::string pricing;
  /// --graph FILE: an execution graph (docs/graph.md §4) that replaces the scenario's workload.
  std::string graph_path;
  /// ASTRA-sim inputs (docs/astra-sim.md): network YAML and system JSON, with the scenario file
  /// giving only the workload, or a single collective.
  AstraOptions astra;
  /// --chakra PREFIX: a Chakra trace (docs/chakra.md) that replaces the scenario's workload.
  ChakraOptions chakra;

  void Register(CLI::App& app);
  /// Exit code: 0 success, 2 bad input, 1 could not write output.
  int Execute() const;
};

}  // namespace hfsim
