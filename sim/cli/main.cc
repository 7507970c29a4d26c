// The hfsim command line: a thin shell over the libraries. The command line is defined in
// sim/cli/command-line.cc; each subcommand's Execute loads, runs and writes, and turns
// UserErrors into a message and exit code 2.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "base/failure-message.h"
#include "sim/cli/command-line.h"
#include "sim/cli/standard-output.h"

int main(int argc, char** argv) {
  CLI::App app("", "hfsim");
  hfsim::Commands commands;
  hfsim::DefineCommandLine(app, commands);
  if (const auto exit_code = hfsim::ParseCommandLine(app, argc, argv)) return *exit_code;
  int code = 2;
  // Whatever a subcommand did not foresee ends here, named, with exit 1: never an abort.
  try {
    if (app.got_subcommand("run")) code = commands.run.Execute();
    if (app.got_subcommand("topology")) code = commands.topology.Execute();
    if (app.got_subcommand("optimize")) code = commands.optimize.Execute();
    if (app.got_subcommand("sweep")) code = commands.sweep.Execute();
    if (app.got_subcommand("convert")) code = commands.convert.Execute();
    if (app.got_subcommand("p4")) code = commands.p4.Execute();
    if (app.got_subcommand("validate")) code = commands.validate.Execute();
  } catch (const std::exception& error) {
    std::cerr << "hfsim: error: " << hfsim::FailureMessage(error) << "\n";
    return 1;
  }
  return hfsim::FinishStandardOutput(code);
}
