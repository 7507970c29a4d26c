#include "sim/cli/run-command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/failure-message.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/engines/engine-factory.h"
#include "sim/import/astra-import.h"
#include "sim/report/number-text.h"
#include "sim/report/report-csv.h"
#include "sim/report/report-json.h"
#include "sim/report/report-plot.h"
#include "sim/report/summary-table.h"
#include "sim/report/timeline-plot.h"
#include "sim/report/trace-json.h"
#include "sim/analytical/expected-end.h"
#include "sim/runs/run-progress.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

// The scenario document, from a scenario file or from ASTRA-sim inputs, and where its errors
// are reported ("the file" or the ASTRA-sim inputs).
Expected<Scenario> LoadRunScenario(const RunCommand& command) {
  Expected<nlohmann::json> document = UserError{"", ""};
  std::string source = command.scenario_path;
  if (auto error = command.chakra.CheckAlone("run")) return *error;
  if (command.chakra.Given() && !command.graph_path.empty()) {
    return UserError{"run", "--chakra and --graph each give the workload; give one"};
  }
  if (command.astra.Given()) {
    document = command.astra.Import("run", command.scenario_path, command.chakra.Given());
    source = command.astra.Source(command.scenario_path);
  } else {
    if (command.scenario_path.empty()) {
      return UserError{"run",
                       "give a scenario file, or --astra-network and --astra-system "
                       "(see hfsim run --help)"};
    }
    document = LoadScenarioDocument(command.scenario_path);
  }
  if (!document) return document.Error();
  nlohmann::json& json = document.Value();
  if (command.chakra.Given()) {
    if (auto error = command.chakra.Apply(json, command.astra.system)) return *error;
    source += " with " + command.chakra.prefix;
  }
  if (!command.graph_path.empty()) {
    // The graph file holds what workload.graph would; the scenario gives the fabric and the rest.
    auto graph = LoadJsonFile(command.graph_path, "the graph file");
    if (!graph) return graph.Error();
    if (json.is_object()) json["workload"] = {{"graph", std::move(graph).Value()}};
    source += " with " + command.graph_path;
  }
  if (!command.pricing.empty() && json.is_object() &&
      (!json.contains("communication") || json["communication"].is_object())) {
    nlohmann::json& communication = json["communication"];
    communication["pricing"] = command.pricing;
    // ASTRA-sim's active chunks are a rule of its pricing only (the loader refuses the key
    // under hfsim's): the override to hfsim pricing sets it aside, and says so.
    if (command.pricing == "hfsim" && communication.contains("active_chunks_per_dimension")) {
      std::cerr << "hfsim: note: --pricing hfsim: communication.active_chunks_per_dimension ("
                << communication["active_chunks_per_dimension"].dump()
                << ") applies to astra_sim pricing only and is left out; hfsim's pricing runs "
                   "one chunk-stage per dimension at a time (docs/scenario.md §10.4)\n";
      communication.erase("active_chunks_per_dimension");
    }
  }
  auto scenario = ParseScenario(json);
  if (!scenario) {
    UserError error = scenario.Error();
    error.where = source + ": " + error.where;
    return error;
  }
  // A collective the system file gives ASTRA-sim no implementation for.
  if (command.astra.Given()) {
    if (auto refusal = AstraImplementationRefusal(scenario.Value(), command.astra.system)) {
      return *refusal;
    }
  }
  return scenario;
}

// The scenario's engine run, with its progress line on a terminal when the engine has a progress
// hook (the message engines). Only there: the estimate costs an analytical run, the hook a look
// at the clock now and then.
Report RunShowingProgress(const Scenario& scenario, RunOptions options, bool quiet) {
  const EngineEntry& entry = EngineOf(scenario.engine);
  const bool shown = entry.progress && !quiet && isatty(2) != 0;
  RunProgress progress(fmt::format("{} engine", entry.name),
                       shown ? ExpectedEndNs(scenario) : 0.0, shown);
  if (shown) {
    options.progress = [&progress](double simulated_ns, uint64_t events) {
      progress.Update(simulated_ns, events);
    };
  }
  Report report = MakeEngine(scenario.engine)->Run(scenario, options);
  progress.Finish();
  return report;
}

}  // namespace

int RunCommand::Execute() const {
  // Options that only shape what goes under --out, or that silence the only other output, do
  // nothing without it: say so before any work instead of exiting 0 having done nothing.
  if (out_dir.empty()) {
    for (const auto& [given, option] :
         {std::pair{!format.empty(), "--format"}, std::pair{plot, "--plot"},
          std::pair{no_plot, "--no-plot"}, std::pair{quiet, "--quiet"}}) {
      if (!given) continue;
      std::cerr << "hfsim: error: run: " << option
                << " needs --out DIR: without it the run writes no files"
                << (option == std::string("--quiet") ? " and prints nothing" : "") << "\n";
      return 2;
    }
  }
  auto loaded = LoadRunScenario(*this);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  Scenario scenario = std::move(loaded).Value();
  if (seed >= 0) scenario.seed = static_cast<uint64_t>(seed);
  // --engine's value is one of the table's names (the command line checks it).
  if (!engine.empty()) scenario.engine = EngineNamed(engine).value();
  // Pricing is how the analytical engine prices collectives; the flow and packet engines run
  // messages and have none, so the option would change nothing there.
  if (!pricing.empty() && scenario.engine != EngineKind::kAnalytical) {
    std::cerr << "hfsim: error: run: --pricing " << pricing << ": the " << ToString(scenario.engine)
              << " engine runs messages and prices no collective, so the option would do "
                 "nothing; accepted with --pricing: the analytical engine (-e "
              << ToString(EngineKind::kAnalytical) << ")\n";
    return 2;
  }
  if (const auto refusal = EngineRefuses(scenario.engine, scenario)) {
    std::cerr << "hfsim: error: " << refusal->ToString() << "\n";
    return 2;
  }
  if (!trace_path.empty()) {
    if (!RunsAsGraph(scenario)) {
      std::cerr << "hfsim: error: run: --trace: a "
                << (scenario.workload_kind == WorkloadKind::kGossip ? "gossip" : "parameter_server")
                << " workload has no timeline yet; accepted: training, collective and graph "
                   "workloads\n";
      return 2;
    }
  }
  // Where the outputs go is checked before the work, so that a path refused for what it is (a
  // directory, the scenario itself) is refused at once rather than after the run.
  if (!trace_path.empty()) {
    if (auto refusal = CheckOutputFile(trace_path)) {
      std::cerr << "hfsim: error: --trace: " << refusal->message << "\n";
      return refusal->exit_code;
    }
  }
  if (!out_dir.empty()) {
    if (auto refusal = CheckOutputDirectory(out_dir)) {
      std::cerr << "hfsim: error: --out: " << refusal->message << "\n";
      return refusal->exit_code;
    }
  }
  // The timeline: for --trace, and for the Gantt picture of a run that draws.
  const bool draws = !out_dir.empty() && !no_plot;
  RunOptions options;
  options.timeline = !trace_path.empty() || (draws && RunsAsGraph(scenario));
  Report report;
  try {
    report = RunShowingProgress(scenario, std::move(options), quiet);
  } catch (const std::exception& error) {
    // What the loader cannot see before running: a data set that fails to read in full, a
    // packet run that cannot finish. The machine's failure, not the input's: exit 1.
    std::cerr << "hfsim: error: " << FailureMessage(error) << "\n";
    return 1;
  }
  const std::optional<Timeline>& timeline = report.timeline;
  if (!trace_path.empty() && !timeline) {
    // The packet engine's in-network aggregation runs its own protocol, not the graph.
    std::cerr << "hfsim: error: run: --trace: the packet engine records no timeline for "
                 "in-network aggregation; accepted: the analytical engine (-e analytical)\n";
    return 2;
  }
  if (!quiet) std::cout << SummaryTable(report, scenario);
  if (timeline && !trace_path.empty()) {
    if (auto error = WriteOutputFile(trace_path, JsonFileText(TraceJson(*timeline)))) {
      std::cerr << "hfsim: error: --trace: " << error->message << "\n";
      return error->exit_code;
    }
    if (!quiet) std::cout << fmt::format("\nwrote {} (open it in ui.perfetto.dev)\n", trace_path);
  }

  if (out_dir.empty()) return 0;
  OutputFiles files(out_dir);
  const std::string written = format.empty() ? "json" : format;
  if (written == "json" || written == "all") {
    files.Add("report.json", JsonFileText(ReportToJson(report, scenario)));
  }
  if (written == "csv" || written == "all") {
    files.Add("summary.csv", SummaryCsv(report, scenario));
    files.Add("dimensions.csv", DimensionsCsv(report));
    files.Add("collectives.csv", CollectivesCsv(report));
    if (report.packet) files.Add("links.csv", LinksCsv(*report.packet));
    if (report.flow) files.Add("links.csv", LinksCsv(*report.flow));
  }
  if (!no_plot) {
    files.Add("breakdown.gp", BreakdownPlotScript(report, scenario, "breakdown.png"));
    files.AddPicture("breakdown.gp", "breakdown.png");
    if (timeline) {
      const auto gantt = GanttPlotScript(
          *timeline, fmt::format("{}: one iteration ({} engine)", scenario.name, report.engine),
          "gantt.png");
      if (gantt) {
        files.Add("gantt.gp", *gantt);
        files.AddPicture("gantt.gp", "gantt.png");
      } else if (!quiet) {
        std::cout << fmt::format(
            "\nno gantt.png: the iteration has more than {} tracks or {} "
            "spans to draw; --trace FILE shows it in Perfetto\n",
            kMaxGanttRows, kMaxGanttSpans);
      }
    }
  }
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << error->message << "\n";
    return error->exit_code;
  }
  if (!quiet) std::cout << fmt::format("\nwrote {}\n", files.Describe());
  return 0;
}

}  // namespace hfsim
