#include "sim/analytical/expected-end.h"

#include <exception>

#include "sim/analytical/analytical-engine.h"

namespace hfsim {

double ExpectedEndNs(const Scenario& scenario) {
  try {
    const double one = AnalyticalEngine().Run(scenario).iteration.total_ns;
    if (scenario.workload_kind == WorkloadKind::kParameterServer) {
      return one * scenario.parameter_server.iterations;
    }
    if (scenario.workload_kind == WorkloadKind::kGossip) return one * scenario.gossip.spec.steps;
    return one;
  } catch (const std::exception&) {
    return 0.0;
  }
}

}  // namespace hfsim
