// The whole hfsim command line, apart from what each subcommand then does: the subcommands,
// their options and the checks on their values. main() parses with it and runs the chosen
// subcommand; the CLI fuzzer (tests/fuzz/cli-fuzz.cc) parses with it and runs nothing.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include "sim/cli/convert-command.h"
#include "sim/cli/optimize-command.h"
#include "sim/cli/p4-command.h"
#include "sim/cli/run-command.h"
#include "sim/cli/sweep-command.h"
#include "sim/cli/topology-command.h"
#include "sim/cli/validate-command.h"

namespace hfsim {

/// Each subcommand's options, filled in by parsing.
struct Commands {
  RunCommand run;
  TopologyCommand topology;
  OptimizeCommand optimize;
  SweepCommand sweep;
  ConvertCommand convert;
  P4Command p4;
  ValidateCommand validate;
};

/// Defines every subcommand and option of `app`, bound to `commands`.
void DefineCommandLine(CLI::App& app, Commands& commands);

/// Parses argv into `app`: nullopt when a subcommand should run, otherwise the exit code
/// (0 after --help or --version, 2 for a usage error, its message already printed).
std::optional<int> ParseCommandLine(CLI::App& app, int argc, const char* const* argv);

}  // namespace hfsim
