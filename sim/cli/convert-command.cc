#include "sim/cli/convert-command.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/option-checks.h"
#include "sim/scenario-parser.h"

namespace hfsim {

void LibraOptions::Register(CLI::App& command) {
  auto* network = command.add_option("--libra-network", files.network,
                                     "LIBRA network YAML (Topology, NpusCount, CostDimension)");
  auto* workload = command.add_option("--libra-workload", files.workload,
                                      "LIBRA workload: ASTRA-sim 1.0 text, one 12-field line per layer");
  auto* comm = command.add_option("--libra-comm", files.communicator,
                                  "LIBRA communicator YAML (Forward, InputGrad, WeightGrad: "
                                  "NPUs used per dimension, -1 for none)");
  command.add_option("--libra-cost", files.cost,
                     "LIBRA cost-model YAML ($ per GB/s of Link, Switch, Nic per cost dimension); "
                     "default: hfsim's classes by position (docs/optimize.md §4.4)");
  command.add_option("--objective", problem.objective,
                     "With LIBRA inputs: time (LIBRA's PerfOpt) or time_x_cost (PerfPerCostOpt)")
      ->check(CLI::IsMember({"time", "time_x_cost"}));
  command.add_option("--total", total,
                     "With LIBRA inputs: total bandwidth per NPU in GB/s (LIBRA's total-bandwidth "
                     "constraint), e.g. 500")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = 0.0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc() || end != text.data() + text.size() || !(value > 0.0) ||
                value > 8e6) {
              return fmt::format("got {}; accepted: a number of GB/s per NPU above 0 and at most "
                                 "8e6", text);
            }
            return {};
          },
          "GB/s"));
  command.add_option("--total-mode", problem.total,
                     "With LIBRA inputs: equal (the whole total is used, default) or at_most")
      ->check(CLI::IsMember({"equal", "at_most"}));
  network->needs(workload)->needs(comm);
  workload->needs(network);
  comm->needs(network);
}

LibraProblem LibraOptions::Problem() const {
  LibraProblem result = problem;
  if (total > 0.0) result.total_GBps_per_npu = total;
  return result;
}

void ConvertCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "convert",
      "Write imported inputs as one hfsim scenario JSON, checked by the normal loader, to migrate "
      "once and edit. Either LIBRA's inputs (network YAML, ASTRA-sim 1.0 text workload, "
      "communicator YAML, cost model YAML; with --total the scenario gets an \"optimize\" section "
      "for 'hfsim optimize') or ASTRA-sim's (network YAML and system JSON with a workload scenario "
      "file or one collective).\n\n"
      "Examples:\n"
      "  hfsim convert --libra-network configs/libra-inputs/4d-network.yml \\\n"
      "    --libra-workload configs/libra-inputs/gpt-small-4d.txt \\\n"
      "    --libra-comm configs/libra-inputs/gpt-small-4d-comm.yml \\\n"
      "    --libra-cost configs/libra-inputs/4d-cost-model.yml --total 500 -o gpt.json\n"
      "  hfsim convert --astra-network configs/astra-sim/ring-fc-switch.yml \\\n"
      "    --astra-system configs/astra-sim/system.json --collective all_reduce --size 64MiB "
      "-o ar.json\n"
      "What each quantity becomes: docs/libra-import.md, docs/astra-sim.md.");
  libra.Register(*command);
  astra.Register(*command);
  command->add_option("workload", workload_path,
                      "With --astra-network: a scenario file giving the workload only (no "
                      "\"topology\" or \"communication\")")
      ->check(ReadableFile());
  command->add_option("-o,--out", out_path, "Scenario JSON file to write (default: stdout)")
      ->check(NonEmptyPath());
}

namespace {

// The imported document and how loader errors name its inputs.
Expected<nlohmann::json> ImportForConvert(const ConvertCommand& command, std::string* source) {
  if (command.libra.Given() == command.astra.Given()) {
    return UserError{"convert", "give either the LIBRA inputs (--libra-network, --libra-workload, "
                                "--libra-comm) or the ASTRA-sim inputs (--astra-network, "
                                "--astra-system), not both and not neither (see hfsim convert "
                                "--help)"};
  }
  if (command.astra.Given()) {
    *source = command.astra.Source(command.workload_path);
    return command.astra.Import("convert", command.workload_path);
  }
  if (!command.workload_path.empty()) {
    return UserError{"convert", "a workload scenario file goes with the ASTRA-sim inputs; with "
                                "LIBRA's the workload is --libra-workload"};
  }
  *source = "the scenario imported from " + command.libra.files.workload;
  return ImportLibra(command.libra.files, command.libra.Problem());
}

}  // namespace

int ConvertCommand::Execute() const {
  std::string source;
  auto document = ImportForConvert(*this, &source);
  if (!document) {
    std::cerr << "hfsim: error: " << document.Error().ToString() << "\n";
    return 2;
  }
  // The loader checks what the importer wrote, so a converted file always loads.
  auto scenario = ParseScenario(document.Value());
  if (!scenario) {
    std::cerr << "hfsim: error: " << source << ": " << scenario.Error().ToString() << "\n";
    return 2;
  }
  const std::string text = document.Value().dump(2) + "\n";
  if (out_path.empty()) {
    std::cout << text;
    return 0;
  }
  // Written to a temporary name and renamed, so a failed write never leaves half a file.
  const std::string temporary = out_path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::cerr << "hfsim: error: " << out_path << ": could not write\n";
      return 1;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, out_path, error);
  if (error) {
    std::cerr << "hfsim: error: " << out_path << ": could not write (" << error.message() << ")\n";
    return 1;
  }
  std::cerr << fmt::format("hfsim: wrote {}\n", out_path);
  return 0;
}

}  // namespace hfsim
