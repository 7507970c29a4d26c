#include "sim/cli/run-command.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/cli/gnuplot-drawing.h"
#include "sim/cli/output-files.h"
#include "sim/report-csv.h"
#include "sim/report-json.h"
#include "sim/report-plot.h"
#include "sim/scenario-parser.h"
#include "sim/summary-table.h"

namespace hfsim {

void RunCommand::Register(CLI::App& app) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Simulate one training iteration (or one collective) described by a JSON scenario, print a "
      "summary table and, with --out, write the report.\n\n"
      "Example:\n"
      "  hfsim run configs/quickstart.json -o out/quickstart --format all\n"
      "writes out/quickstart/report.json, summary.csv, dimensions.csv and collectives.csv.\n"
      "Scenario keys: docs/scenario.md. Report fields: docs/report.md.");
  run->add_option("scenario", scenario_path, "Scenario JSON file (see configs/ for examples)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("-o,--out", out_dir,
                  "Directory for the report files (created if missing; files are replaced whole)");
  run->add_option("-f,--format", format,
                  "What to write under --out: json (report.json), csv (summary.csv, "
                  "dimensions.csv, collectives.csv) or all")
      ->check(CLI::IsMember({"json", "csv", "all"}))
      ->capture_default_str();
  run->add_option("-e,--engine", engine,
                  "Override the scenario's engine: analytical (closed form, microseconds) or packet (ns-3, "
                  "packet by packet: queues, congestion, loss)")
      ->check(CLI::IsMember({"analytical", "packet"}));
  run->add_option("--seed", seed, "Override the scenario's random seed (an integer >= 0)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 53));
  run->add_flag("-q,--quiet", quiet, "Do not print the summary table");
  run->add_flag("-p,--plot", plot,
                "Also write breakdown.png (iteration breakdown and dimension utilisation, drawn "
                "by gnuplot) and the breakdown.gp script that draws it; needs --out");
}

int RunCommand::Execute() const {
  auto loaded = LoadScenarioFile(scenario_path);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  Scenario scenario = std::move(loaded).Value();
  if (seed >= 0) scenario.seed = static_cast<uint64_t>(seed);
  if (!engine.empty()) {
    scenario.engine = engine == "packet" ? EngineKind::kPacket : EngineKind::kAnalytical;
  }
  Report report;
  if (scenario.engine == EngineKind::kPacket) {
    report = PacketEngine().Run(scenario);
  } else {
    report = AnalyticalEngine().Run(scenario);
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
  if (plot) files.Add("breakdown.gp", BreakdownPlotScript(report, scenario, "breakdown.png"));
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << *error << "\n";
    return 1;
  }
  if (plot) {
    if (auto error = DrawWithGnuplot(out_dir, "breakdown.gp", "breakdown.png")) {
      std::cerr << "hfsim: error: " << *error << "\n";
      return 1;
    }
  }
  if (!quiet) {
    std::cout << fmt::format("\nwrote {}{}\n", files.Describe(),
                             plot ? fmt::format(", {}/breakdown.png", out_dir) : "");
  }
  return 0;
}

}  // namespace hfsim
