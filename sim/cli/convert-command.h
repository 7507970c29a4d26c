// `hfsim convert`: writes LIBRA's inputs (network YAML, ASTRA-sim 1.0 text workload,
// communicator YAML, cost-model YAML) or ASTRA-sim's (network YAML, system JSON, workload or one
// collective) or a Chakra trace out as one hfsim scenario JSON, to migrate once and edit; or,
// with --to chakra, any job that runs as an execution graph out as Chakra traces for ASTRA-sim.
// LibraOptions are shared with `hfsim optimize`, which also reads LIBRA's inputs directly.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/astra-options.h"
#include "sim/cli/chakra-options.h"
#include "sim/import/libra-inputs.h"

namespace hfsim {

/// --libra-network, --libra-workload, --libra-comm, --libra-cost, --objective, --total,
/// --total-mode.
struct LibraOptions {
  LibraFiles files;
  LibraProblem problem;
  double total = 0.0;  ///< --total as given (0: not given)
  /// The options as registered (owned by the command's CLI::App), to ask whether each was given.
  CLI::Option* cost_option = nullptr;
  CLI::Option* objective_option = nullptr;
  CLI::Option* total_option = nullptr;
  CLI::Option* total_mode_option = nullptr;

  /// Adds the options to `command`; the network, workload and communicator files go together.
  void Register(CLI::App& command);
  bool Given() const { return !files.network.empty(); }
  /// The options that state LIBRA's problem (--libra-cost, --objective, --total, --total-mode)
  /// given on the command line, by name: they do nothing without LIBRA's inputs.
  std::vector<std::string> ProblemOptionsGiven() const;
  /// Those of --objective and --total-mode given, which shape the "optimize" section that
  /// --total adds (nothing without it).
  std::vector<std::string> OptimizeOptionsGiven() const;
  /// The problem with --total applied.
  LibraProblem Problem() const;
};

/// "--a", "--a and --b", "--a, --b and --c": option names for a message.
std::string JoinOptions(const std::vector<std::string>& names);

struct ConvertCommand {
  LibraOptions libra;
  AstraOptions astra;
  /// A Chakra trace as the workload (docs/chakra.md).
  ChakraOptions chakra;
  /// A scenario file: with the ASTRA-sim inputs the workload only (none with --collective or
  /// --chakra); with --chakra alone the fabric; otherwise the job itself (for --to chakra).
  std::string workload_path;
  std::string out_path;
  /// What to write: "scenario" (one scenario JSON file) or "chakra" (per-rank traces and the
  /// communicator-group JSON in the directory --out).
  std::string to = "scenario";

  void Register(CLI::App& app);
  /// Exit code: 0 written, 2 bad input (an imported file or an option), 1 could not write.
  int Execute() const;
};

}  // namespace hfsim
