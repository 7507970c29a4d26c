#include "sim/cli/run-command.h"

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/option-checks.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/gossip-section.h"
#include "sim/packet/packet-engine.h"
#include "sim/cli/output-files.h"
#include "sim/in-network-check.h"
#include "sim/packet-memory.h"
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
      "Scenario keys: docs/scenario.md. Report fields: docs/report.md.\n\n"
      "ASTRA-sim inputs (docs/astra-sim.md), priced with ASTRA-sim's analytical semantics:\n"
      "  hfsim run --astra-network configs/astra-sim/ring-fc-switch.yml \\\n"
      "            --astra-system configs/astra-sim/system.json --collective all_reduce --size 64MiB\n"
      "  hfsim run --astra-network NET.yml --astra-system SYS.json WORKLOAD.json\n"
      "where WORKLOAD.json is a scenario without \"topology\" and \"communication\".");
  run->add_option("scenario", scenario_path,
                  "Scenario JSON file (see configs/ for examples); with --astra-network, the "
                  "workload only")
      ->check(ReadableFile());
  astra.Register(*run);
  run->add_option("--pricing", pricing,
                  "Override communication.pricing: hfsim (hfsim's model) or astra_sim (ASTRA-sim's "
                  "congestion-unaware analytical semantics; the default for ASTRA-sim inputs)")
      ->check(CLI::IsMember({"hfsim", "astra_sim"}));
  run->add_option("-o,--out", out_dir,
                  "Directory for the report files (created if missing; files are replaced whole)")
      ->check(NonEmptyPath());
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
    for (const auto& refusal : {InNetworkPacketRefusal(scenario), GossipPacketRefusal(scenario),
                                PacketMemoryRefusal(scenario)}) {
      if (refusal) {
        std::cerr << "hfsim: error: " << refusal->ToString() << "\n";
        return 2;
      }
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
    std::cerr << "hfsim: error: " << error.what() << "\n";
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
