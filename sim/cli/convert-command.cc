#include "sim/cli/convert-command.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
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
  if (auto problem = ReplaceFile(out_path, text)) {
    std::cerr << "hfsim: error: " << *problem << "\n";
    return 1;
  }
  std::cerr << fmt::format("hfsim: wrote {}\n", out_path);
  return 0;
}

}  // namespace hfsim
