#include "sim/cli/optimize-command.h"

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/gnuplot-drawing.h"
#include "sim/cli/output-files.h"
#include "sim/optimize/optimizer.h"
#include "sim/optimize/optimum-writers.h"
#include "sim/scenario-parser.h"

namespace hfsim {

void OptimizeCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "optimize",
      "Find the per-NPU bandwidth of each dimension that minimises the iteration time (analytical "
      "engine), time x network cost, or time under a cost budget, subject to the scenario's "
      "\"optimize\" section (total bandwidth, bounds, fixed dimensions, linear constraints) and "
      "priced by its \"cost\" section (LIBRA's table by default). The optimum is certified: the "
      "lower bound and the relative gap to it are reported. Prints a table; with --out writes "
      "optimum.json, frontier.csv (time x cost: the whole time-vs-cost Pareto frontier), and "
      "frontier.png with the frontier.gp gnuplot script that draws it.\n\n"
      "Example:\n"
      "  hfsim optimize configs/libra-gpt3-4d-optimize.json -o out/opt\n"
      "Infeasible constraints are reported with the ones that conflict, exit code 2.\n"
      "Keys: docs/scenario.md (\"cost\" and \"optimize\").");
  command->add_option("scenario", scenario_path,
                      "Scenario JSON file with an \"optimize\" section (e.g. "
                      "configs/libra-gpt3-4d-optimize.json)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", out_dir,
                      "Directory for optimum.json, frontier.csv, frontier.gp and frontier.png "
                      "(created if missing; files are replaced whole)");
  command->add_flag("-q,--quiet", quiet, "Do not print the table");
  command->add_flag("--no-plot", no_plot,
                    "With --out, skip frontier.png and frontier.gp (no gnuplot needed)");
}

int OptimizeCommand::Execute() const {
  auto loaded = LoadScenarioFile(scenario_path);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  const Scenario scenario = std::move(loaded).Value();
  const auto started = std::chrono::steady_clock::now();
  auto outcome = Optimize(scenario);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!outcome) {
    std::cerr << "hfsim: error: " << scenario_path << ": " << outcome.Error().ToString() << "\n";
    return 2;
  }
  const OptimizeOutcome& result = outcome.Value();
  if (!quiet) {
    std::cout << OptimumTable(result, scenario)
              << fmt::format("{:<28} {:.1f} ms, {} time-model evaluations\n", "solved in",
                             seconds * 1e3, result.evaluations);
  }
  if (out_dir.empty()) return 0;
  OutputFiles files(out_dir);
  // The solve time is left out of optimum.json so the file is the same on every run.
  files.Add("optimum.json", OptimumToJson(result, scenario).dump(2) + "\n");
  files.Add("frontier.csv", FrontierCsv(result, scenario));
  if (!no_plot) files.Add("frontier.gp", FrontierPlotScript(result, scenario, "frontier.png"));
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << *error << "\n";
    return 1;
  }
  if (!no_plot) {
    if (auto error = DrawWithGnuplot(out_dir, "frontier.gp", "frontier.png")) {
      std::cerr << "hfsim: error: " << *error << "\n";
      return 1;
    }
  }
  if (!quiet) {
    std::cout << fmt::format("\nwrote {}{}\n", files.Describe(),
                             no_plot ? "" : fmt::format(", {}/frontier.png", out_dir));
  }
  return 0;
}

}  // namespace hfsim
