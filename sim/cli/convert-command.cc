#include "sim/cli/convert-command.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/import/astra-import.h"
#include "sim/export/chakra/chakra-export.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

LibraProblem LibraOptions::Problem() const {
  LibraProblem result = problem;
  if (total > 0.0) result.total_GBps_per_npu = total;
  return result;
}

std::vector<std::string> LibraOptions::ProblemOptionsGiven() const {
  std::vector<std::string> given;
  for (const CLI::Option* option : {cost_option, objective_option, total_option, total_mode_option}) {
    if (option != nullptr && option->count() > 0) given.push_back(option->get_name());
  }
  return given;
}

std::vector<std::string> LibraOptions::OptimizeOptionsGiven() const {
  std::vector<std::string> given;
  for (const CLI::Option* option : {objective_option, total_mode_option}) {
    if (option != nullptr && option->count() > 0) given.push_back(option->get_name());
  }
  return given;
}

std::string JoinOptions(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

namespace {

// The imported document and how loader errors name its inputs.
Expected<nlohmann::json> ImportForConvert(const ConvertCommand& command, std::string* source) {
  if (auto error = command.chakra.CheckAlone("convert")) return *error;
  // LIBRA's problem options state what a LIBRA import's "optimize" and "cost" sections hold;
  // given otherwise they would change nothing.
  if (const auto given = command.libra.ProblemOptionsGiven();
      !command.libra.Given() && !given.empty()) {
    return UserError{"convert",
                     fmt::format("{} appl{} to LIBRA inputs only (--libra-network, "
                                 "--libra-workload, --libra-comm), which are not given; a scenario "
                                 "states them in its \"optimize\" and \"cost\" sections",
                                 JoinOptions(given), given.size() == 1 ? "ies" : "y")};
  }
  if (const auto given = command.libra.OptimizeOptionsGiven();
      command.libra.Given() && command.libra.total <= 0.0 && !given.empty()) {
    return UserError{"convert",
                     fmt::format("{} shape{} the \"optimize\" section that --total adds, and "
                                 "--total is not given; accepted: --total with {}, or neither",
                                 JoinOptions(given), given.size() == 1 ? "s" : "",
                                 given.size() == 1 ? "it" : "them")};
  }
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
// in `dir`, PREFIX being "trace", published as one set (output-files.h): a kill or a failure
// leaves the earlier set whole, two converts into one directory never mix their ranks, and a
// set of 8 ranks written over one of 64 leaves no rank 8 to 63 behind.
int WriteChakra(const Scenario& scenario, const std::string& source, const std::string& dir) {
  if (!RunsAsGraph(scenario)) {
    std::cerr << "hfsim: error: " << source
              << ": workload: a parameter-server or gossip "
                 "workload runs its own protocol, not an execution graph; accepted for --to "
                 "chakra: training, collective and graph workloads (and Chakra traces)\n";
    return 2;
  }
  if (auto refusal = CheckOutputDirectory(dir)) {
    std::cerr << "hfsim: error: -o: " << refusal->message << "\n";
    return refusal->exit_code;
  }
  const ExecutionGraph& graph = PlacedGraphOf(scenario)->Graph();
  const std::string prefix = (std::filesystem::path(dir) / "trace").string();
  // Each rank's file goes to the staging directory as it is made: never all in memory.
  OutputFiles files(dir);
  ChakraExportCounts counts;
  auto groups = ExportChakra(
      graph,
      [&](uint32_t rank, const std::string& bytes) -> std::optional<std::string> {
        files.Add(fmt::format("trace.{}.et", rank), bytes);
        if (const auto& failure = files.Failure()) return failure->message;
        return std::nullopt;
      },
      counts);
  if (!groups) {
    if (const auto& failure = files.Failure()) {
      std::cerr << "hfsim: error: " << failure->message << "\n";
      return failure->exit_code;
    }
    std::cerr << "hfsim: error: " << groups.Error().ToString() << "\n";
    return 2;
  }
  files.Add("trace.groups.json", groups.Value().dump(2) + "\n");
  if (auto problem = files.Commit()) {
    std::cerr << "hfsim: error: " << problem->message << "\n";
    return problem->exit_code;
  }
  for (const std::string& note : counts.notes) std::cerr << "hfsim: note: " << note << "\n";
  // The traces carry no system settings: ASTRA-sim takes them from the system JSON it is run
  // with, and the one setting of this scenario it cannot take is an endpoint delay of 0.
  if (static_cast<int64_t>(scenario.communication.endpoint_delay_ns) == 0) {
    std::cerr << fmt::format(
        "hfsim: note: the scenario's communication.endpoint_delay_ns is {:g}, which ASTRA-sim "
        "cannot run: with an endpoint-delay of 0 (it keeps whole cycles) its system layer "
        "schedules events at the current time, and its analytical backend aborts on them "
        "(assert in EventQueue::proceed); run these traces with a system JSON whose "
        "endpoint-delay is at least 1 (ASTRA-sim's default is 10), and compare with hfsim at "
        "the same delay (docs/chakra.md §5)\n",
        scenario.communication.endpoint_delay_ns);
  }
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
  if (to != "chakra" && !out_path.empty()) {
    if (auto refusal = CheckOutputFile(out_path)) {
      std::cerr << "hfsim: error: -o: " << refusal->message << "\n";
      return refusal->exit_code;
    }
  }
  if (astra.Given()) {
    if (auto refusal = AstraImplementationRefusal(scenario.Value(), astra.system)) {
      std::cerr << "hfsim: error: " << refusal->ToString() << "\n";
      return 2;
    }
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
  // Replaced whole (a temporary file renamed over it) or written through to a device or FIFO;
  // never over an input of this command (output-path.h).
  if (auto problem = WriteOutputFile(out_path, text)) {
    std::cerr << "hfsim: error: " << problem->message << "\n";
    return problem->exit_code;
  }
  std::cerr << fmt::format("hfsim: wrote {}\n", out_path);
  return 0;
}

}  // namespace hfsim
