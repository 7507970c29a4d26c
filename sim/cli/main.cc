// The hfsim command line: a thin shell over the libraries. Subcommands parse their options,
// call an engine, and turn UserErrors into a message and exit code 2.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "sim/cli/convert-command.h"
#include "sim/cli/optimize-command.h"
#include "sim/cli/p4-command.h"
#include "sim/cli/run-command.h"
#include "sim/cli/standard-output.h"
#include "sim/cli/sweep-command.h"
#include "sim/cli/topology-command.h"
#include "sim/version.h"

int main(int argc, char** argv) {
  CLI::App app(
      "hfsim: a simulator of hierarchical multi-dimensional training fabrics.\n\n"
      "Examples:\n"
      "  hfsim run configs/quickstart.json                 print one iteration's breakdown\n"
      "  hfsim run configs/gpt3-4d-4096.json -o out/gpt3   also write out/gpt3/report.json\n"
      "  hfsim topology configs/gpt3-4d-4096.json --route 0 4095   inspect the fabric\n"
      "  hfsim optimize configs/libra-gpt3-4d-optimize.json -o out/opt   best bandwidth split\n"
      "  hfsim sweep configs/sweep-allreduce-4d.json -o out/sweep   every split, on all cores\n"
      "  hfsim convert --libra-network N.yml --libra-workload W.txt --libra-comm C.yml -o s.json\n"
      "  hfsim convert --astra-network N.yml --astra-system S.json W.json -o s.json\n"
      "  hfsim p4 configs/p4-switchml-tofino1.json -o out/p4   Tofino program and test vectors\n"
      "Every subcommand writes its files under --out DIR (-o DIR). 'hfsim run --help' lists the "
      "run options; docs/scenario.md documents the scenario file.",
      "hfsim");
  app.set_version_flag("--version", std::string("hfsim ") + hfsim::kHfsimVersion);
  app.require_subcommand(1);
  hfsim::RunCommand run;
  run.Register(app);
  hfsim::TopologyCommand topology;
  topology.Register(app);
  hfsim::OptimizeCommand optimize;
  optimize.Register(app);
  hfsim::SweepCommand sweep;
  sweep.Register(app);
  hfsim::ConvertCommand convert;
  convert.Register(app);
  hfsim::P4Command p4;
  p4.Register(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    // Help and version are successes; every other parse problem is bad input: exit 2.
    return code == 0 ? 0 : 2;
  }
  int code = 2;
  // Whatever a subcommand did not foresee ends here, named, with exit 1: never an abort.
  try {
    if (app.got_subcommand("run")) code = run.Execute();
    if (app.got_subcommand("topology")) code = topology.Execute();
    if (app.got_subcommand("optimize")) code = optimize.Execute();
    if (app.got_subcommand("sweep")) code = sweep.Execute();
    if (app.got_subcommand("convert")) code = convert.Execute();
    if (app.got_subcommand("p4")) code = p4.Execute();
  } catch (const std::bad_alloc&) {
    std::cerr << "hfsim: error: out of memory (the scenario needs more than this machine can "
                 "give; docs/bad-input.md lists the size limits)\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "hfsim: error: " << error.what() << "\n";
    return 1;
  }
  return hfsim::FinishStandardOutput(code);
}
