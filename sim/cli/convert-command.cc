#include "sim/cli/convert-command.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/scenario-parser.h"

namespace hfsim {

void LibraOptions::Register(CLI::App& command, bool required) {
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
  if (required) {
    network->required();
    workload->required();
    comm->required();
  }
}

LibraProblem LibraOptions::Problem() const {
  LibraProblem result = problem;
  if (total > 0.0) result.total_GBps_per_npu = total;
  return result;
}

void ConvertCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "convert",
      "Write LIBRA's inputs (network YAML, ASTRA-sim 1.0 text workload, communicator YAML, cost "
      "model YAML) as one hfsim scenario JSON, checked by the normal loader, to migrate once and "
      "edit. With --total the scenario gets an \"optimize\" section for 'hfsim optimize'.\n\n"
      "Example:\n"
      "  hfsim convert --libra-network configs/libra-inputs/4d-network.yml \\\n"
      "    --libra-workload configs/libra-inputs/gpt-small-4d.txt \\\n"
      "    --libra-comm configs/libra-inputs/gpt-small-4d-comm.yml \\\n"
      "    --libra-cost configs/libra-inputs/4d-cost-model.yml --total 500 -o gpt.json\n"
      "What each LIBRA quantity becomes: docs/libra-import.md.");
  libra.Register(*command, true);
  command->add_option("-o,--out", out_path, "Scenario JSON file to write (default: stdout)");
}

int ConvertCommand::Execute() const {
  auto document = ImportLibra(libra.files, libra.Problem());
  if (!document) {
    std::cerr << "hfsim: error: " << document.Error().ToString() << "\n";
    return 2;
  }
  // The loader checks what the importer wrote, so a converted file always loads.
  auto scenario = ParseScenario(document.Value());
  if (!scenario) {
    std::cerr << "hfsim: error: the scenario imported from " << libra.files.workload << ": "
              << scenario.Error().ToString() << "\n";
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
