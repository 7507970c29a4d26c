#include "sim/cli/run-command.h"

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/failure-message.h"
#include "sim/cli/option-checks.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/cli/output-files.h"
#include "sim/packet-refusal.h"
#include "sim/report-csv.h"
#include "sim/report-json.h"
#include "sim/report-plot.h"
#include "sim/scenario-parser.h"
#include "sim/summary-table.h"

namespace hfsim {

namespace {

// The scenario document, from a scenario file or from ASTRA-sim inputs, and where its errors
// are reported ("the file" or the ASTRA-sim inputs).
Expected<Scenario> LoadRunScenario(const RunCommand& command) {
  Expected<nlohmann::json> document = UserError{"", ""};
  std::string source = command.scenario_path;
  if (command.astra.Given()) {
    document = command.astra.Import("run", command.scenario_path);
    source = command.astra.Source(command.scenario_path);
  } else {
    if (command.scenario_path.empty()) {
      return UserError{"run", "give a scenario file, or --astra-network and --astra-system "
                              "(see hfsim run --help)"};
    }
    document = LoadScenarioDocument(command.scenario_path);
  }
  if (!document) return document.Error();
  nlohmann::json& json = document.Value();
  if (!command.pricing.empty() && json.is_object() &&
      (!json.contains("communication") || json["communication"].is_object())) {
    json["communication"]["pricing"] = command.pricing;
  }
  auto scenario = ParseScenario(json);
  if (!scenario) {
    UserError error = scenario.Error();
    error.where = source + ": " + error.where;
    return error;
  }
  return scenario;
}

}  // namespace

int RunCommand::Execute() const {
  auto loaded = LoadRunScenario(*this);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  Scenario scenario = std::move(loaded).Value();
  if (seed >= 0) scenario.seed = static_cast<uint64_t>(seed);
  if (!engine.empty()) {
    scenario.engine = engine == "packet" ? EngineKind::kPacket : EngineKind::kAnalytical;
  }
  if (scenario.engine == EngineKind::kPacket) {
    if (const auto refusal = PacketRunRefusal(scenario)) {
      std::cerr << "hfsim: error: " << refusal->ToString() << "\n";
      return 2;
    }
  }
  Report report;
  try {
    if (scenario.engine == EngineKind::kPacket) {
      report = PacketEngine().Run(scenario);
    } else {
      report = AnalyticalEngine().Run(scenario);
    }
  } catch (const std::exception& error) {
    // What the loader cannot see before running: a data set that fails to read in full, a
    // packet run that cannot finish. The machine's failure, not the input's: exit 1.
    std::cerr << "hfsim: error: " << FailureMessage(error) << "\n";
    return 1;
  }
  if (!quiet) std::cout << SummaryTable(report, scenario);

  if (out_dir.empty()) {
    if (plot) {
      std::cerr << "hfsim: error: --plot needs --out DIR for the picture\n";
      return 2;
    }
    return 0;
  }
  OutputFiles files(out_dir);
  if (format == "json" || format == "all") {
    files.Add("report.json", ReportToJson(report, scenario).dump(2) + "\n");
  }
  if (format == "csv" || format == "all") {
    files.Add("summary.csv", SummaryCsv(report, scenario));
    files.Add("dimensions.csv", DimensionsCsv(report));
    files.Add("collectives.csv", CollectivesCsv(report));
    if (report.packet) files.Add("links.csv", LinksCsv(*report.packet));
  }
  if (plot) {
    files.Add("breakdown.gp", BreakdownPlotScript(report, scenario, "breakdown.png"));
    files.AddPicture("breakdown.gp", "breakdown.png");
  }
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << *error << "\n";
    return 1;
  }
  if (!quiet) std::cout << fmt::format("\nwrote {}\n", files.Describe());
  return 0;
}

}  // namespace hfsim
