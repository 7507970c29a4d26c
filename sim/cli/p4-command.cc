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
#include "sim/scenario/scenario-parser.h"
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
    std::cerr << "hfsim: error: " << error->message << "\n";
    return error->exit_code;
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
