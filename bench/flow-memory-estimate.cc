// Prints the flow engine's memory estimate (sim/flow/flow-memory.h) of each scenario file
// named, term by term, one tab-separated line each: scripts/calibrate-flow-memory sets it beside
// the measured peak of a run.
//   flow_memory_estimate FILE...
//   -> FILE  total_bytes  fabric_bytes  transfers  concurrent_flows  collective_runs
#include <cstdio>
#include <iostream>

#include "sim/flow/flow-memory.h"
#include "sim/scenario/scenario-parser.h"

int main(int argc, char** argv) {
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    auto scenario = hfsim::LoadScenarioFile(argv[i]);
    if (!scenario) {
      std::cerr << argv[i] << ": " << scenario.Error().ToString() << "\n";
      status = 2;
      continue;
    }
    const hfsim::FlowMemoryEstimate estimate = hfsim::EstimateFlowMemory(scenario.Value());
    std::printf("%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", argv[i], estimate.TotalBytes(),
                estimate.fabric_bytes, estimate.schedule_transfers, estimate.concurrent_flows,
                estimate.collective_runs);
  }
  return status;
}
