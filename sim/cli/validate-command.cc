#include "sim/cli/validate-command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/gnuplot-drawing.h"
#include "sim/cli/output-files.h"
#include "sim/report/validation-plot.h"
#include "sim/report/validation-report.h"
#include "sim/analytical/validation-run.h"

namespace hfsim {

namespace {

namespace fs = std::filesystem;

// The .json files directly in `directory` (not below it: a model's config.json may sit in a
// folder beside the scenarios), in name order so that every run reports the same rows in the
// same order; or the reason there are none to read.
std::variant<std::vector<std::string>, std::string> ScenarioFiles(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return fmt::format(
        "'{}' is not a directory{}; accepted: the directory of validation "
        "scenarios (default configs/validation/, from the repository's root)",
        directory, error ? ": " + error.message() : std::string());
  }
  std::vector<std::string> files;
  fs::directory_iterator entries(directory, error);
  if (error) return fmt::format("cannot read '{}': {}", directory, error.message());
  for (const fs::directory_entry& entry : entries) {
    std::error_code ignored;
    if (entry.path().extension() == ".json" && entry.is_regular_file(ignored)) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int ValidateCommand::Execute() const {
  if (out_dir.empty()) {
    for (const auto& [given, option] :
         {std::pair{quiet, "--quiet"}, std::pair{no_plot, "--no-plot"}}) {
      if (!given) continue;
      std::cerr << "hfsim: error: validate: " << option
                << " needs --out DIR: without it validate writes no files"
                << (option == std::string("--quiet") ? " and prints nothing" : "") << "\n";
      return 2;
    }
  } else if (auto refusal = CheckOutputDirectory(out_dir)) {
    // Refused before the scenarios run, as run -o is.
    std::cerr << "hfsim: error: --out: " << refusal->message << "\n";
    return refusal->exit_code;
  }
  auto listed = ScenarioFiles(directory);
  if (const auto* problem = std::get_if<std::string>(&listed)) {
    std::cerr << "hfsim: error: validate: " << *problem << "\n";
    return 2;
  }
  std::vector<ValidationRow> rows;
  std::vector<std::string> skipped;
  size_t scenarios = 0;
  bool refused = false, run_failed = false;
  for (const std::string& path : std::get<std::vector<std::string>>(listed)) {
    ValidationFile file = ValidateScenarioFile(path);
    if (file.outcome == ValidationOutcome::kSkipped) {
      skipped.push_back(fs::path(path).filename().string());
      continue;
    }
    ++scenarios;
    refused |= file.outcome == ValidationOutcome::kRefused;
    run_failed |= file.outcome == ValidationOutcome::kRunFailed;
    if (!file.message.empty()) std::cerr << "hfsim: error: " << file.message << "\n";
    rows.insert(rows.end(), file.rows.begin(), file.rows.end());
  }
  if (scenarios == 0) {
    std::cerr << fmt::format(
        "hfsim: error: validate: no scenario in '{}' has a \"validation\" block{}; accepted: a "
        "directory of scenarios with one (docs/validation.md says how to write it)\n",
        directory, skipped.empty() ? "" : fmt::format(" (of {} .json files)", skipped.size()));
    return 2;
  }
  if (!quiet) {
    std::cout << fmt::format("hfsim validate: {} scenario{} of {} on the analytical engine\n\n",
                             scenarios, scenarios == 1 ? "" : "s", directory);
    std::cout << ValidationTable(rows);
    if (!skipped.empty()) {
      std::cout << fmt::format("skipped (no \"validation\" block): {}\n", fmt::join(skipped, ", "));
    }
  }
  int code = refused ? 2 : run_failed ? 1 : 0;
  if (out_dir.empty()) return code;
  OutputFiles files(out_dir);
  files.Add("validation.csv", ValidationCsv(rows));
  if (!no_plot) AddPictures(files, ValidationPlot(rows), quiet);
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << error->message << "\n";
    return code == 0 ? error->exit_code : code;
  }
  if (!quiet) std::cout << fmt::format("\nwrote {}\n", files.Describe());
  return code;
}

}  // namespace hfsim
