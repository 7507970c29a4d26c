#include "sim/cli/command-line.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/astra-options.h"
#include "sim/cli/option-checks.h"
#include "sim/engines/engine-table.h"
#include "sim/scenario/optimize-spec.h"
#include "sim/scenario/scenario.h"
#include "sim/version.h"
#include "workloads/collective-kind.h"

namespace hfsim {

namespace {

// --verify K: an integer of at least 1, said plainly when it is not.
CLI::Validator VerifyCount() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t k = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), k);
        if (error != std::errc() || end != text.data() + text.size() || k < 1) {
          return fmt::format(
              "got {}; accepted: an integer K of at least 1 (the number of best "
              "allocations to re-simulate with the packet engine)",
              text);
        }
        return {};
      },
      "K >= 1");
}

// What optimize --verify re-simulates with: every engine but the analytical model the optimum
// was computed with.
std::vector<std::string> VerifyEngineNames() {
  std::vector<std::string> names;
  for (const EngineEntry& entry : EngineTable()) {
    if (entry.kind != EngineKind::kAnalytical) names.emplace_back(entry.name);
  }
  return names;
}

}  // namespace

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
      "            --astra-system configs/astra-sim/system.json --collective all_reduce --size "
      "64MiB\n"
      "  hfsim run --astra-network NET.yml --astra-system SYS.json WORKLOAD.json\n"
      "where WORKLOAD.json is a scenario without \"topology\" and \"communication\".\n\n"
      "Chakra execution traces (docs/chakra.md), on a scenario's fabric or ASTRA-sim's:\n"
      "  hfsim run --chakra traces/job SCENARIO.json\n"
      "  hfsim run --chakra traces/job --astra-network NET.yml --astra-system SYS.json");
  run->add_option("scenario", scenario_path,
                  "Scenario JSON file (see configs/ for examples); with --astra-network, the "
                  "workload only")
      ->check(ReadableFile());
  astra.Register(*run);
  chakra.Register(*run);
  run->add_option("--pricing", pricing,
                  "Override communication.pricing: hfsim (hfsim's model) or astra_sim (ASTRA-sim's "
                  "congestion-unaware analytical semantics; the default for ASTRA-sim inputs)")
      ->check(OneOf(kPricingModelNames));
  run->add_option("-o,--out", out_dir,
                  "Directory for the report files (created if missing; files are replaced whole)")
      ->check(NonEmptyPath());
  run->add_option("-f,--format", format,
                  "What to write under --out: json (report.json, the default), csv "
                  "(summary.csv, dimensions.csv, collectives.csv) or all; needs --out")
      ->check(CLI::IsMember({"json", "csv", "all"}));
  run->add_option("-e,--engine", engine,
                  "Override the scenario's engine: analytical (closed form, microseconds), flow "
                  "(messages as fluid flows sharing links max-min fairly: congestion, no loss) or "
                  "packet (ns-3, packet by packet: queues, congestion, loss)")
      ->check(CLI::IsMember(EngineNames()));
  run->add_option("--graph", graph_path,
                  "An execution graph file ({\"communicators\": [...], \"programs\": [...]}, "
                  "docs/graph.md) to run in place of the scenario's workload, on the scenario's "
                  "fabric")
      ->check(ReadableFile());
  run->add_option("--trace", trace_path,
                  "Write the iteration's timeline to this file as Chrome trace-event JSON, which "
                  "ui.perfetto.dev and chrome://tracing open: per rank class, a track for compute, "
                  "for communication and for each dimension (analytical engine; training, "
                  "collective and graph workloads)")
      ->check(NonEmptyPath());
  run->add_option("--seed", seed, "Override the scenario's random seed (an integer >= 0)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 53));
  run->add_flag("-q,--quiet", quiet, "Do not print the summary table; needs --out");
  // One rule for every command that draws: with --out it draws, --no-plot skips it.
  run->add_flag("--no-plot", no_plot,
                "With --out, skip breakdown.png and breakdown.gp (no gnuplot needed)");
  run->add_flag("-p,--plot", plot,
                "Write breakdown.png (iteration breakdown and dimension utilisation, drawn by "
                "gnuplot) and the breakdown.gp script: the default with --out, kept for older "
                "scripts")
      ->excludes("--no-plot");
}

void TopologyCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "topology",
      "Build the scenario's physical fabric (NPUs, switches, links), check that every NPU can "
      "reach every other, and print its size and diameter.\n\n"
      "Example:\n"
      "  hfsim topology configs/gpt3-4d-4096.json --route 0 4095 -o out/fabric\n"
      "prints the dimension-order route from NPU 0 to NPU 4095 hop by hop and writes "
      "out/fabric/links.csv (one row per directed link).");
  command->add_option("scenario", scenario_path, "Scenario JSON file")
      ->required()
      ->check(ReadableFile());
  command->add_option("--route", route, "Two NPU ids: print the route from the first to the second")
      ->expected(2)
      ->check(NonNegativeInteger());
  command->add_option("-o,--out", out_dir, "Directory for links.csv (created if missing)")
      ->check(NonEmptyPath());
}

void OptimizeCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "optimize",
      "Find the per-NPU bandwidth of each dimension that minimises the iteration time (analytical "
      "engine), time x network cost, or time under a cost budget, subject to the scenario's "
      "\"optimize\" section (total bandwidth, bounds, fixed dimensions, linear constraints) and "
      "priced by its \"cost\" section (LIBRA's table by default). The optimum is certified: the "
      "lower bound and the relative gap to it are reported. Prints a table; with --out writes "
      "optimum.json, frontier.csv (time x cost: the whole time-vs-cost Pareto frontier), and "
      "frontier.png with the frontier.gp gnuplot script that draws it.\n\n"
      "The optimiser works on the analytical model (a scenario's \"engine\" and \"packet\" "
      "section do not change the optimum); --verify K re-simulates the K best allocations with the "
      "packet engine (or the flow engine: --verify-engine flow) and prints both times side by "
      "side.\n\n"
      "Example:\n"
      "  hfsim optimize configs/libra-gpt3-4d-optimize.json -o out/opt\n"
      "  hfsim optimize --libra-network configs/libra-inputs/4d-network.yml \\\n"
      "    --libra-workload configs/libra-inputs/gpt-small-4d.txt \\\n"
      "    --libra-comm configs/libra-inputs/gpt-small-4d-comm.yml \\\n"
      "    --libra-cost configs/libra-inputs/4d-cost-model.yml --total 500   LIBRA's own inputs\n"
      "Infeasible constraints are reported with the ones that conflict, exit code 2.\n"
      "Keys and output files: docs/optimize.md.");
  auto* scenario = command
                       ->add_option("scenario", scenario_path,
                                    "Scenario JSON file with an \"optimize\" section (e.g. "
                                    "configs/libra-gpt3-4d-optimize.json); or give LIBRA's "
                                    "inputs with --libra-network etc. (docs/libra-import.md)")
                       ->check(ReadableFile());
  libra.Register(*command);
  scenario->excludes(command->get_option("--libra-network"));
  command->get_option("--libra-network")->excludes(scenario);
  command
      ->add_option("-o,--out", out_dir,
                   "Directory for optimum.json, frontier.csv and the pictures (frontier.png for "
                   "a frontier, bandwidth.png otherwise, with their .gp scripts; created if "
                   "missing; files are replaced whole)")
      ->check(NonEmptyPath());
  command->add_flag("-q,--quiet", quiet, "Do not print the table");
  command->add_flag("--no-plot", no_plot,
                    "With --out, skip the pictures and their scripts (no gnuplot needed)");
  command
      ->add_option("--verify", verify,
                   "Re-simulate the K best allocations (the optimum, then the other frontier "
                   "points by objective value) and the equal split with the packet engine "
                   "(honouring the scenario's \"packet\" section; or the flow engine, see "
                   "--verify-engine) and print analytical and simulated times side by side; "
                   "with --out also write verify.csv. Each run takes as long as 'hfsim run "
                   "--engine packet' (or flow) on the scenario")
      ->type_name("K")
      ->check(VerifyCount());
  command
      ->add_option("--verify-engine", verify_engine,
                   "The engine --verify re-simulates with: packet (ns-3: queues, loss, "
                   "congestion) or flow (fluid flows: congestion, much faster); default the "
                   "scenario's engine when it is flow, else packet")
      ->check(CLI::IsMember(VerifyEngineNames()));
}

void SweepCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "sweep",
      "Evaluate every point of the scenario's \"sweep\" section: a grid, every split of a total "
      "or a list of per-NPU bandwidth allocations, crossed with values of other scenario keys. "
      "Uses all cores; shows progress on a terminal; streams results to DIR/sweep.csv.part and "
      "finishes with DIR/sweep.csv (sorted by point), DIR/sweep.json (best points, cost "
      "frontier) and gnuplot pictures (heatmap.png or time.png, parameters.png, frontier.png).\n\n"
      "Examples:\n"
      "  hfsim sweep configs/sweep-allreduce-4d.json -o out/sweep\n"
      "  hfsim sweep configs/sweep-allreduce-4d.json -o out/sweep --resume   after Ctrl-C\n"
      "  mpirun -np 4 hfsim sweep configs/sweep-allreduce-4d.json -o out/sweep\n"
      "Keys: docs/sweep.md.");
  command->add_option("scenario", scenario_path, "Scenario JSON file with a \"sweep\" section")
      ->required()
      ->check(ReadableFile());
  command->add_option("-o,--out", out_dir, "Directory for the results (created if missing)")
      ->required()
      ->check(NonEmptyPath());
  command
      ->add_option("-e,--engine", engine,
                   "Override the sweep's engine: analytical (microseconds per point), flow "
                   "(a fluid-flow run per point, on threads) or packet (a full ns-3 run per "
                   "point, one process per worker)")
      ->check(CLI::IsMember(EngineNames()));
  command
      ->add_option("-j,--jobs", jobs,
                   "Worker threads (analytical) or processes (packet); default all cores, "
                   "shared among the MPI ranks on one machine")
      ->check(NonNegativeInteger())
      ->check(CLI::Range(1u, 4096u));
  command->add_flag("--resume", resume,
                    "Continue an interrupted sweep in DIR: keep its finished points, evaluate "
                    "the rest (the scenario and engine must be the same)");
  command->add_flag("-q,--quiet", quiet, "Print nothing but errors");
  command->add_flag("--no-plot", no_plot,
                    "With --out, skip the pictures and their scripts (no gnuplot needed)");
}

void LibraOptions::Register(CLI::App& command) {
  auto* network = command.add_option("--libra-network", files.network,
                                     "LIBRA network YAML (Topology, NpusCount, CostDimension)");
  auto* workload =
      command.add_option("--libra-workload", files.workload,
                         "LIBRA workload: ASTRA-sim 1.0 text, one 12-field line per layer");
  auto* comm = command.add_option("--libra-comm", files.communicator,
                                  "LIBRA communicator YAML (Forward, InputGrad, WeightGrad: "
                                  "NPUs used per dimension, -1 for none)");
  cost_option = command.add_option(
      "--libra-cost", files.cost,
      "LIBRA cost-model YAML ($ per GB/s of Link, Switch, Nic per cost dimension); "
      "default: hfsim's classes by position (docs/optimize.md §4.4)");
  objective_option = command
      .add_option("--objective", problem.objective,
                  "With LIBRA inputs: time (LIBRA's PerfOpt) or time_x_cost (PerfPerCostOpt)")
      // LIBRA's two objectives (time_under_budget needs a budget, which LIBRA's inputs lack).
      ->check(CLI::IsMember(
          std::vector<std::string>{std::string(ToString(OptimizeObjective::kTime)),
                                   std::string(ToString(OptimizeObjective::kTimeXCost))}));
  total_option = command
      .add_option("--total", total,
                  "With LIBRA inputs: total bandwidth per NPU in GB/s (LIBRA's total-bandwidth "
                  "constraint), e.g. 500")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = 0.0;
            const auto [end, error] =
                std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc() || end != text.data() + text.size() || !(value > 0.0) ||
                value > 8e6) {
              return fmt::format(
                  "got {}; accepted: a number of GB/s per NPU above 0 and at most "
                  "8e6",
                  text);
            }
            return {};
          },
          "GB/s"));
  total_mode_option = command
      .add_option("--total-mode", problem.total,
                  "With LIBRA inputs: equal (the whole total is used, default) or at_most")
      ->check(OneOf(kTotalRelationNames));
  network->needs(workload)->needs(comm);
  workload->needs(network);
  comm->needs(network);
}

void ConvertCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "convert",
      "Write imported inputs as one hfsim scenario JSON, checked by the normal loader, to migrate "
      "once and edit. Either LIBRA's inputs (network YAML, ASTRA-sim 1.0 text workload, "
      "communicator YAML, cost model YAML; with --total the scenario gets an \"optimize\" section "
      "for 'hfsim optimize'), ASTRA-sim's (network YAML and system JSON with a workload scenario "
      "file, one collective or a Chakra trace), or a Chakra trace on a scenario's fabric. With "
      "--to chakra, writes any job that runs as an execution graph (training, collective, graph, "
      "a Chakra trace) as per-rank Chakra traces that ASTRA-sim runs.\n\n"
      "Examples:\n"
      "  hfsim convert --libra-network configs/libra-inputs/4d-network.yml \\\n"
      "    --libra-workload configs/libra-inputs/gpt-small-4d.txt \\\n"
      "    --libra-comm configs/libra-inputs/gpt-small-4d-comm.yml \\\n"
      "    --libra-cost configs/libra-inputs/4d-cost-model.yml --total 500 -o gpt.json\n"
      "  hfsim convert --astra-network configs/astra-sim/ring-fc-switch.yml \\\n"
      "    --astra-system configs/astra-sim/system.json --collective all_reduce --size 64MiB "
      "-o ar.json\n"
      "  hfsim convert --chakra traces/job SCENARIO.json -o job.json   a Chakra trace as a "
      "scenario\n"
      "  hfsim convert configs/graph-pipeline-tensor-data.json --to chakra -o out/et   a job as "
      "Chakra traces for ASTRA-sim\n"
      "What each quantity becomes: docs/libra-import.md, docs/astra-sim.md, docs/chakra.md.");
  libra.Register(*command);
  astra.Register(*command);
  chakra.Register(*command);
  command
      ->add_option("workload", workload_path,
                   "A scenario file: with --astra-network the workload only (no \"topology\" or "
                   "\"communication\"); with --chakra alone the fabric; otherwise the job itself "
                   "(for --to chakra)")
      ->check(ReadableFile());
  command
      ->add_option("-o,--out", out_path,
                   "Scenario JSON file to write (default: stdout); with --to chakra, the "
                   "directory for the traces")
      ->check(NonEmptyPath());
  command
      ->add_option("--to", to,
                   "scenario (one hfsim scenario JSON, the default) or chakra (the job's "
                   "execution graph as Chakra traces DIR/trace.RANK.et and ASTRA-sim's "
                   "communicator groups DIR/trace.groups.json, docs/chakra.md)")
      ->check(CLI::IsMember({"scenario", "chakra"}));
}

void P4Command::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "p4",
      "Write the Tofino P4_16 program for the scenario's \"aggregation\" switch, its control "
      "plane, a resource report and test vectors computed by the simulator's switch model.\n\n"
      "Example:\n"
      "  hfsim p4 configs/p4-switchml-tofino1.json -o out/p4\n"
      "writes out/p4/aggregation.p4, control-plane.py, control-plane.json, resources.txt, "
      "resources.json, vectors.json, vectors-input.pcap, vectors-expected.pcap and "
      "ptf/test_aggregation.py. docs/p4.md says how to compile and test them.");
  command
      ->add_option("scenario", scenario_path, "Scenario JSON file with an \"aggregation\" section")
      ->required()
      ->check(ReadableFile());
  command->add_option("-o,--out", out_dir, "Directory for the generated files (created if missing)")
      ->required()
      ->check(NonEmptyPath());
  command
      ->add_option("--vector-values", vector_values,
                   "Values each worker aggregates in the test vectors (default: 4 x pool x "
                   "values_per_packet)")
      ->check(NonNegativeInteger())
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  command
      ->add_option("--pool-slots", pool_slots,
                   "Slots each worker keeps in flight in the test vectors (default 4)")
      ->check(NonNegativeInteger())
      ->check(CLI::Range(1u, 65535u));
  command->add_option("--seed", seed, "Seed of the test vectors' synthetic gradients (default 1)")
      ->check(NonNegativeInteger());
}

void ValidateCommand::Register(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "validate",
      "Run every scenario of DIR that carries a \"validation\" block (what a real run "
      "measured, and its source) on the analytical engine, and print each measured quantity "
      "next to hfsim's prediction with the error, then the mean |error| and the worst. "
      "Quantities: iteration_s, tokens_per_s_per_gpu, model_tflops_per_gpu (in the block's "
      "flop_convention), busbw_GBps (a collective, as nccl-tests computes it). With --out, "
      "writes validation.csv (scenario,quantity,measured,predicted,error_percent) and "
      "validation.png with the validation.gp gnuplot script (predicted against measured, "
      "log-log, the y = x line and the 5 % band).\n\n"
      "A scenario that fails to load or run is a row with its error, and the exit code is then "
      "2 (a scenario refused) or 1 (a run failed). Files without a \"validation\" block are "
      "skipped and listed.\n\n"
      "Example:\n"
      "  hfsim validate                      configs/validation/\n"
      "  hfsim validate my-runs/ -o out/validation\n"
      "How to add a row: docs/validation.md.");
  command
      ->add_option("directory", directory,
                   "Directory of scenario files (*.json, not its subdirectories); default "
                   "configs/validation/")
      ->check(NonEmptyPath());
  command
      ->add_option("-o,--out", out_dir,
                   "Directory for validation.csv, validation.png and validation.gp (created "
                   "if missing; files are replaced whole)")
      ->check(NonEmptyPath());
  command->add_flag("-q,--quiet", quiet, "Do not print the table; needs --out");
  command->add_flag("--no-plot", no_plot,
                    "With --out, skip validation.png and validation.gp (no gnuplot needed)");
}

void AstraOptions::Register(CLI::App& command) {
  command
      .add_option("--astra-network", network,
                  "ASTRA-sim analytical network YAML (topology, npus_count, bandwidth, latency)")
      ->check(ReadableFile());
  command
      .add_option("--astra-system", system,
                  "ASTRA-sim system JSON (scheduling, chunks, implementations, local-mem-bw)")
      ->check(ReadableFile());
  command
      .add_option("--collective", collective,
                  "With the ASTRA-sim inputs: one collective over every dimension")
      ->check(OneOf(kCollectiveKindNames));
  command.add_option("--size", size,
                     "Size of --collective: bytes, or with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, "
                     "TB), e.g. 64MiB; the full per-NPU buffer (docs/scenario.md §5.1)");
}

void DefineCommandLine(CLI::App& app, Commands& commands) {
  app.description(
      "hfsim: a simulator of hierarchical multi-dimensional training fabrics.\n\n"
      "Examples:\n"
      "  hfsim run configs/quickstart.json                 print one iteration's breakdown\n"
      "  hfsim run configs/gpt3-4d-4096.json -o out/gpt3   also write out/gpt3/report.json\n"
      "  hfsim topology configs/gpt3-4d-4096.json --route 0 4095   inspect the fabric\n"
      "  hfsim optimize configs/libra-gpt3-4d-optimize.json -o out/opt   best bandwidth split\n"
      "  hfsim sweep configs/sweep-allreduce-4d.json -o out/sweep   every split, on all cores\n"
      "  hfsim convert --libra-network N.yml --libra-workload W.txt --libra-comm C.yml -o s.json\n"
      "  hfsim convert --astra-network N.yml --astra-system S.json W.json -o s.json\n"
      "  hfsim p4 configs/p4-switchml-tofino1.json -o out/p4   Tofino program and test vectors\n"
      "  hfsim validate -o out/validation   predictions against published training runs\n"
      "run, topology, optimize, sweep, p4 and validate write their files under --out DIR (-o "
      "DIR), and draw their pictures there unless --no-plot; convert writes one scenario file "
      "(-o FILE, or standard output). 'hfsim run --help' lists the run options; "
      "docs/scenario.md documents the scenario file.");
  app.set_version_flag("--version", std::string("hfsim ") + kHfsimVersion);
  app.require_subcommand(1);
  commands.run.Register(app);
  commands.topology.Register(app);
  commands.optimize.Register(app);
  commands.sweep.Register(app);
  commands.convert.Register(app);
  commands.p4.Register(app);
  commands.validate.Register(app);
}

namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The subcommand a user most likely meant by `typed`: what other tools call it, a prefix, or a
// typo (at most two edits); empty when nothing is close.
std::string NearestCommand(const std::string& typed, const std::vector<std::string>& commands) {
  static const std::vector<std::pair<std::string, std::string>> kOtherNames = {
      {"simulate", "run"},       {"sim", "run"},
      {"simulation", "run"},     {"optimise", "optimize"},
      {"optimizer", "optimize"}, {"opt", "optimize"},
      {"import", "convert"},     {"fabric", "topology"},
      {"generate", "p4"},        {"validation", "validate"}};
  for (const auto& [name, command] : kOtherNames) {
    if (typed == name) return command;
  }
  std::string best;
  size_t best_distance = 3;
  for (const std::string& command : commands) {
    if (typed.size() >= 3 && command.rfind(typed, 0) == 0) return command;
    const size_t distance = EditDistance(typed, command);
    if (distance < best_distance) best = command, best_distance = distance;
  }
  return best;
}

}  // namespace

std::optional<int> ParseCommandLine(CLI::App& app, int argc, const char* const* argv) {
  // A first word that is no subcommand: name the nearest one instead of CLI11's "A subcommand is
  // required".
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> commands;
    for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
    const std::string typed = argv[1];
    if (std::find(commands.begin(), commands.end(), typed) == commands.end()) {
      const std::string nearest = NearestCommand(typed, commands);
      std::string list;
      for (const std::string& command : commands) list += (list.empty() ? "" : ", ") + command;
      std::cerr << "hfsim: error: '" << typed << "' is not an hfsim command"
                << (nearest.empty() ? "" : "; did you mean 'hfsim " + nearest + "'?")
                << " The commands: " << list << " ('hfsim --help' shows them with examples)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    // Help and version are successes; every other parse problem is bad input: exit 2.
    return code == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace hfsim
