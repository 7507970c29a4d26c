#include "sim/cli/p4-command.h"

#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/aggregation/tofino-resources.h"
#include "p4/control-plane.h"
#include "p4/p4-program.h"
#include "p4/resource-report.h"
#include "p4/test-vectors.h"
#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/scenario-parser.h"
#include "sim/version.h"

namespace hfsim {

namespace {

std::string Text(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::vector<std::vector<uint8_t>> Frames(const TestVectors& vectors, bool expected) {
  std::vector<std::vector<uint8_t>> frames;
  for (const TestVectorStep& step : vectors.steps) {
    if (!expected) {
      frames.push_back(SerializeAggregationPacket(step.input));
      continue;
    }
    for (const OutputPacket& out : step.expected) {
      frames.push_back(SerializeAggregationPacket(out.packet));
    }
  }
  return frames;
}

}  // namespace

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
  command->add_option("scenario", scenario_path, "Scenario JSON file with an \"aggregation\" section")
      ->required()
      ->check(ReadableFile());
  command->add_option("-o,--out", out_dir, "Directory for the generated files (created if missing)")
      ->required()
      ->check(NonEmptyPath());
  command->add_option("--vector-values", vector_values,
                      "Values each worker aggregates in the test vectors (default: 4 x pool x "
                      "values_per_packet)")
      ->check(NonNegativeInteger())
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  command->add_option("--pool-slots", pool_slots,
                      "Slots each worker keeps in flight in the test vectors (default 4)")
      ->check(NonNegativeInteger())
      ->check(CLI::Range(1u, 65535u));
  command->add_option("--seed", seed, "Seed of the test vectors' synthetic gradients (default 1)")
      ->check(NonNegativeInteger());
}

int P4Command::Execute() const {
  auto loaded = LoadScenarioFile(scenario_path);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  const Scenario& scenario = loaded.Value();
  if (!scenario.aggregation) {
    std::cerr << fmt::format(
        "hfsim: error: {}: aggregation: missing; hfsim p4 generates the program of the "
        "scenario's in-network aggregation switch (docs/aggregation.md)\n",
        scenario_path);
    return 2;
  }
  const AggregationSwitchSpec& spec = *scenario.aggregation;
  // The loader already refused specs over a Tofino limit; this covers what the generator itself
  // cannot express.
  if (const auto problems = CheckP4Support(spec); !problems.empty()) {
    for (const P4Limitation& p : problems) {
      std::cerr << fmt::format("hfsim: error: {}: aggregation.{}: {}\n", scenario_path, p.spec_key,
                               p.message);
    }
    return 2;
  }
  if (pool_slots > spec.aggregator_slots) {
    std::cerr << fmt::format("hfsim: error: --pool-slots {}: at most aggregation.aggregator_slots ({})\n",
                             pool_slots, spec.aggregator_slots);
    return 2;
  }
  TestVectorOptions options;
  options.values_per_worker = vector_values;
  options.pool_slots = pool_slots;
  options.seed = seed;
  TestVectors vectors;
  try {
    vectors = BuildTestVectors(spec, options);
  } catch (const std::invalid_argument& error) {
    std::cerr << "hfsim: error: test vectors: " << error.what() << "\n";
    return 2;
  }
  const P4Provenance provenance{scenario.name, kHfsimVersion};
  const ControlPlane plane = BuildControlPlane(spec);
  OutputFiles files(out_dir);
  files.Add(std::string(kP4ProgramName) + ".p4", GenerateP4Program(spec, provenance));
  files.Add("control-plane.py", ControlPlaneToBfrtPython(plane, spec));
  files.Add("control-plane.json", ControlPlaneToJson(plane).dump(2) + "\n");
  files.Add("resources.txt", ResourceReportText(spec));
  files.Add("resources.json", ResourceReportJson(spec).dump(2) + "\n");
  files.Add("vectors.json", TestVectorsToJson(vectors).dump(2) + "\n");
  files.Add("vectors-input.pcap", Text(WritePcap(Frames(vectors, false))));
  files.Add("vectors-expected.pcap", Text(WritePcap(Frames(vectors, true))));
  files.Add("ptf/test_aggregation.py", GeneratePtfTest(vectors, kP4ProgramName));
  if (auto error = files.Commit()) {
    std::cerr << "hfsim: error: " << *error << "\n";
    return 1;
  }
  size_t outputs = 0;
  for (const TestVectorStep& step : vectors.steps) outputs += step.expected.size();
  std::cout << fmt::format("{} program for {} ({} workers, {} values per packet): fits, {} MAU "
                           "stages of {}\n",
                           P4Architecture(spec), LimitsOf(spec.generation).name, spec.workers,
                           spec.values_per_packet, ComputeTofinoResources(spec).mau_stages,
                           LimitsOf(spec.generation).mau_stages);
  std::cout << fmt::format("test vectors: {} input packets, {} expected output packets\n",
                           vectors.steps.size(), outputs);
  std::cout << fmt::format("compile with: cd {} && {}\n", out_dir, P4CompileCommand(spec));
  std::cerr << fmt::format("hfsim: wrote {}\n", files.Describe());
  return 0;
}

}  // namespace hfsim
