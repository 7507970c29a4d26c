#include "sim/analytical/gossip-pricing.h"

#include "sim/analytical/transfer-phase.h"
#include "sim/runs/gossip-run.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

void RunGossipAnalytical(const Scenario& scenario, Report& report) {
  const GossipWorkload& g = scenario.gossip;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  const GossipTrace trace = TrainGossip(scenario);

  std::vector<double> step_end_ns(g.spec.steps, 0.0);
  const std::vector<size_t> starts = StepMessageStarts(trace, g.spec.steps);
  std::vector<PhaseTransfer> phase;
  double now = 0.0;
  for (uint32_t step = 0; step < g.spec.steps; ++step) {
    phase.clear();
    for (size_t i = starts[step]; i < starts[step + 1]; ++i) {
      const ExchangeMessage& m = trace.messages[i];
      phase.push_back(
          {GossipNodeNpu(g, m.from), GossipNodeNpu(g, m.to), static_cast<double>(m.bytes)});
    }
    now += g.step_compute_ns + ConcurrentTransfersNs(graph, phase);
    step_end_ns[step] = now;
  }
  ReportGossip(scenario, trace, step_end_ns, report);
}

}  // namespace hfsim
