#include "sim/cli/convert-command.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/export/chakra/chakra-export.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

LibraProblem LibraOptions::Problem() const {
  LibraProblem result = problem;
  if (total > 0.0) result.total_GBps_per_npu = total;
  return result;
}

namespace {

// The imported document and how loader errors name its inputs.
Expected<nlohmann::json> ImportForConvert(const ConvertCommand& command, std::string* source) {
  if (auto error = command.chakra.CheckAlone("convert")) return *error;
  if (command.libra.Given()) {
    if (command.astra.Given() || command.chakra.Given() || !command.workload_path.empty()) {
      return UserError{"convert",
                       "LIBRA's inputs (--libra-network, --libra-workload, "
                       "--libra-comm) give the whole scenario: give no ASTRA-sim "
                       "inputs, --chakra or scenario file with them"};
    }
    *source = "the scenario imported from " + command.libra.files.workload;
    return ImportLibra(command.libra.files, command.libra.Problem());
  }
  Expected<nlohmann::json> document = UserError{"", ""};
  if (command.astra.Given()) {
    *source = command.astra.Source(command.workload_path);
    document = command.astra.Import("convert", command.workload_path, command.chakra.Given());
  } else if (!command.workload_path.empty()) {
    *source = command.workload_path;
    document = LoadScenarioDocument(command.workload_path);
  } else {
    return UserError{"convert",
                     "give LIBRA's inputs (--libra-network, --libra-workload, "
                     "--libra-comm), ASTRA-sim's (--astra-network, --astra-system), "
                     "or a scenario file (see hfsim convert --help)"};
  }
  if (!document) return document;
  if (command.chakra.Given()) {
    if (auto error = command.chakra.Apply(document.Value(), command.astra.system)) return *error;
    *source += " with " + command.chakra.prefix;
  }
  return document;
}

// --to chakra: the scenario's execution graph as PREFIX.RANK.et files and PREFIX.groups.json
// in `dir`, PREFIX being "trace".
int WriteChakra(const Scenario& scenario, const std::string& source, const std::string& dir) {
  if (!RunsAsGraph(scenario)) {
    std::cerr << "hfsim: error: " << source
              << ": workload: a parameter-server or gossip "
                 "workload runs its own protocol, not an execution graph; accepted for --to "
                 "chakra: training, collective and graph workloads (and Chakra traces)\n";
    return 2;
  }
  const ExecutionGraph graph = BuildExecutionGraph(scenario);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::cerr << fmt::format("hfsim: error: cannot create {}: {}\n", dir, error.message());
    return 1;
  }
  const std::string prefix = (std::filesystem::path(dir) / "trace").string();
  bool write_failed = false;
  ChakraExportCounts counts;
  auto groups = ExportChakra(
      graph,
      [&](uint32_t rank, const std::string& bytes) -> std::optional<std::string> {
        auto problem = ReplaceFile(fmt::format("{}.{}.et", prefix, rank), bytes);
        write_failed = problem.has_value();
        return problem;
      },
      counts);
  if (!groups) {
    std::cerr << "hfsim: error: " << groups.Error().ToString() << "\n";
    return write_failed ? 1 : 2;
  }
  if (auto problem = ReplaceFile(prefix + ".groups.json", groups.Value().dump(2) + "\n")) {
    std::cerr << "hfsim: error: " << *problem << "\n";
    return 1;
  }
  for (const std::string& note : counts.notes) std::cerr << "hfsim: note: " << note << "\n";
  std::cerr << fmt::format(
      "hfsim: wrote {} rank traces ({} nodes, {} bytes) as {}.RANK.et and "
      "the communicator groups as {}.groups.json\n",
      counts.files, counts.nodes, counts.bytes, prefix, prefix);
  return 0;
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
  if (to == "chakra") {
    if (out_path.empty()) {
      std::cerr << "hfsim: error: convert: --to chakra writes a directory of traces: give -o DIR\n";
      return 2;
    }
    return WriteChakra(scenario.Value(), source, out_path);
  }
  const std::string text = document.Value().dump(2) + "\n";
  if (out_path.empty()) {
    std::cout << text;
    return 0;
  }
  // Written to a temporary name and renamed, so a failed write never leaves half a file.
  if (auto problem = ReplaceFile(out_path, text)) {
    std::cerr << "hfsim: error: " << *problem << "\n";
    return 1;
  }
  std::cerr << fmt::format("hfsim: wrote {}\n", out_path);
  return 0;
}

}  // namespace hfsim
