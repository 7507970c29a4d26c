#include "sim/cli/optimize-command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <vector>

#include "base/failure-message.h"
#include "sim/cli/gnuplot-drawing.h"
#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/engines/engine-factory.h"
#include "sim/optimize/optimizer.h"
#include "sim/optimize/optimum-plots.h"
#include "sim/optimize/optimum-writers.h"
#include "sim/optimize/time-model.h"
#include "sim/optimize/verify.h"
#include "sim/report/number-text.h"
#include "sim/runs/progress-bar.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

// The scenario: the file, or LIBRA's inputs imported (sim/import/libra-inputs.h).
Expected<Scenario> LoadOptimizeScenario(const std::string& path, const LibraOptions& libra) {
  if (!libra.Given()) return LoadScenarioFile(path);
  auto document = ImportLibra(libra.files, libra.Problem());
  if (!document) return document.Error();
  auto scenario = ParseScenario(document.Value());
  if (!scenario) {
    return UserError{"the scenario imported from " + libra.files.workload,
                     scenario.Error().ToString()};
  }
  return scenario;
}

int OptimizeCommand::Execute() const {
  // As for run: -q silences the only output there is without --out.
  if (quiet && out_dir.empty()) {
    std::cerr << "hfsim: error: optimize: --quiet needs --out DIR: without it the optimiser "
                 "writes no files and prints nothing\n";
    return 2;
  }
  if (scenario_path.empty() && !libra.Given()) {
    std::cerr << "hfsim: error: optimize: no input; accepted: a scenario file, or LIBRA's inputs "
                 "(--libra-network, --libra-workload, --libra-comm)\n";
    return 2;
  }
  // Given, not only set away from their defaults: "--objective time" with a scenario file did
  // nothing and passed.
  if (const auto given = libra.ProblemOptionsGiven(); !libra.Given() && !given.empty()) {
    std::cerr << "hfsim: error: optimize: " << JoinOptions(given)
              << (given.size() == 1 ? " applies" : " apply")
              << " to LIBRA inputs only; a scenario file states them in its \"optimize\" "
                 "and \"cost\" sections\n";
    return 2;
  }
  if (!verify_engine.empty() && verify == 0) {
    std::cerr << "hfsim: error: optimize: --verify-engine " << verify_engine
              << " chooses the engine --verify K re-simulates with, and --verify is not given; "
                 "accepted: --verify K with it, or neither\n";
    return 2;
  }
  if (no_plot && out_dir.empty()) {
    std::cerr << "hfsim: error: optimize: --no-plot needs --out DIR: without it the optimiser "
                 "draws nothing to skip\n";
    return 2;
  }
  if (libra.Given() && libra.total <= 0.0) {
    std::cerr << "hfsim: error: optimize: --total: missing; accepted: the total bandwidth per NPU "
                 "in GB/s (LIBRA states it as a constraint in Python), e.g. --total 500\n";
    return 2;
  }
  auto loaded = LoadOptimizeScenario(scenario_path, libra);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  // Messages below name the input: the scenario file, or the imported LIBRA workload.
  const std::string& input_name = libra.Given() ? libra.files.workload : scenario_path;
  const Scenario scenario = std::move(loaded).Value();
  if (const auto refusal = TimeModelRefusal(scenario)) {
    std::cerr << "hfsim: error: " << input_name << ": " << refusal->ToString() << "\n";
    return 2;
  }
  // --verify's engine: as asked (one of the table's names, the command line checks it), else
  // the scenario's own when it is not the analytical model, else packets.
  const EngineKind checking = !verify_engine.empty() ? EngineNamed(verify_engine).value()
                              : scenario.engine != EngineKind::kAnalytical ? scenario.engine
                                                                           : EngineKind::kPacket;
  if (scenario.engine != EngineKind::kAnalytical) {
    std::cerr << "hfsim: note: " << input_name << ": the scenario's engine is \""
              << ToString(scenario.engine)
              << "\", but the optimum is computed with the analytical model"
              << (verify > 0 ? fmt::format("; --verify re-simulates the best allocations with the "
                                           "{} engine",
                                           ToString(checking))
                             : fmt::format("; add --verify K to re-simulate the K best allocations "
                                           "with the {} engine",
                                           ToString(checking)))
              << "\n";
  }
  const auto started = std::chrono::steady_clock::now();
  auto outcome = Optimize(scenario);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!outcome) {
    std::cerr << "hfsim: error: " << input_name << ": " << outcome.Error().ToString() << "\n";
    return 2;
  }
  const OptimizeOutcome& result = outcome.Value();
  if (result.status == SolveStatus::kLpFailed) {
    // Not the input's fault: the LP solver gave up on a problem that has a solution.
    std::cerr << "hfsim: error: " << input_name
              << ": optimize: internal solver failure: " << result.solver_failure << "\n";
    return 1;
  }
  if (!quiet) {
    std::cout << OptimumTable(result, scenario)
              << fmt::format("{:<28} {:.1f} ms, {} solver iterations, {} time-model evaluations\n",
                             "solved in", seconds * 1e3, result.iterations, result.evaluations);
  }
  std::vector<VerifyRow> verified;
  if (verify > 0) {
    if (auto refusal = EngineRefuses(checking, scenario)) {
      std::cerr << "hfsim: error: " << input_name << ": verify: " << refusal->ToString() << "\n";
      return 2;
    }
    const VerifyPlan plan =
        PlanVerification(result, static_cast<uint32_t>(std::min<int64_t>(verify, UINT32_MAX)));
    Expected<std::vector<VerifyRow>> rows = std::vector<VerifyRow>{};
    try {
      ProgressBar progress(fmt::format("verify: {} runs", ToString(checking)),
                           plan.candidates.size(), 0, isatty(STDERR_FILENO) == 1);
      const auto tick = [&](size_t index, size_t, const VerifyCandidate&) {
        progress.Update(index);
      };
      rows = Verify(scenario, plan, *MakeEngine(checking), checking, tick);
      progress.Finish();
    } catch (const std::exception& error) {
      std::cerr << "hfsim: error: " << input_name << ": verify: the " << ToString(checking)
                << " engine failed: " << FailureMessage(error) << "\n";
      return 1;
    }
    if (!rows) {
      std::cerr << "hfsim: error: " << input_name << ": verify: " << rows.Error().ToString()
                << "\n";
      return 2;
    }
    verified = std::move(rows).Value();
    if (!quiet) std::cout << "\n" << VerifyTable(plan, verified, scenario);
  }
  if (out_dir.empty()) return 0;
  OutputFiles files(out_dir);
  // The solve time is left out of optimum.json so the file is the same on every run.
  files.Add("optimum.json", JsonFileText(OptimumToJson(result, scenario)));
  files.Add("frontier.csv", FrontierCsv(result, scenario));
  if (verify > 0) files.Add("verify.csv", VerifyCsv(verified, scenario));
  if (!no_plot) AddPictures(files, OptimumPlots(result, scenario, verified), quiet);
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << error->message << "\n";
    return error->exit_code;
  }
  if (!quiet) std::cout << fmt::format("\nwrote {}\n", files.Describe());
  return 0;
}

}  // namespace hfsim
