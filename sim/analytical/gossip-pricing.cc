#include "sim/analytical/gossip-pricing.h"

#include "sim/analytical/transfer-phase.h"
#include "sim/ps-planned-report.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

void RunGossipAnalytical(const Scenario& scenario, Report& report) {
  const GossipWorkload& g = scenario.gossip;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  const GossipTrace trace = RunGossip(g.spec, MakeSyntheticTask(g.task));

  // Node ids of the trace: workers 0..W-1, and W for the elastic centre.
  auto npu = [&g](uint32_t node) -> VertexId {
    return node < g.worker_npus.size() ? g.worker_npus[node] : g.server_npu;
  };
  GossipReport r;
  r.rule = ToString(g.spec.rule);
  r.trigger = ToString(g.spec.trigger.kind);
  r.workers = g.spec.workers;
  r.steps = g.spec.steps;
  r.model_bytes = g.spec.model_bytes;
  r.messages = trace.messages.size();
  r.total_bytes = trace.total_bytes;
  r.target_accuracy = g.target_accuracy;
  r.exchanges_per_worker = trace.exchanges_per_worker;

  std::vector<double> dimension_bytes(topology.DimensionCount(), 0.0);
  std::vector<double> time_after_step(g.spec.steps, 0.0);
  std::vector<uint64_t> bytes_after_step(g.spec.steps, 0);
  size_t next = 0;
  double now = 0.0;
  uint64_t bytes = 0;
  std::vector<Transfer> phase;
  for (uint32_t step = 0; step < g.spec.steps; ++step) {
    phase.clear();
    for (; next < trace.messages.size() && trace.messages[next].step == step; ++next) {
      const ExchangeMessage& m = trace.messages[next];
      phase.push_back({npu(m.from), npu(m.to), static_cast<double>(m.bytes)});
      bytes += m.bytes;
      for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
        if (topology.Coordinate(npu(m.from), d) != topology.Coordinate(npu(m.to), d)) {
          dimension_bytes[d] += static_cast<double>(m.bytes);
        }
      }
    }
    const double exchange_ns = ConcurrentTransfersNs(graph, phase);
    r.compute_ns += g.step_compute_ns;
    r.exchange_ns += exchange_ns;
    now += g.step_compute_ns + exchange_ns;
    time_after_step[step] = now;
    bytes_after_step[step] = bytes;
  }
  r.total_ns = now;
  for (const Evaluation& e : trace.evaluations) {
    const GossipEvaluationRow row{e.step, time_after_step[e.step - 1], bytes_after_step[e.step - 1],
                                  e.mean_model_accuracy, e.worker_accuracy};
    r.evaluations.push_back(row);
    if (!r.reached_target && e.mean_model_accuracy >= g.target_accuracy) r.reached_target = row;
  }
  r.final_accuracy = trace.evaluations.back().mean_model_accuracy;
  r.final_worker_accuracy = trace.evaluations.back().worker_accuracy;

  // One "iteration" is one local step.
  report.iteration.total_ns = r.total_ns / g.spec.steps;
  report.communication_ns = r.exchange_ns / g.spec.steps;
  for (double& b : dimension_bytes) b /= g.spec.steps;
  report.gossip = std::move(r);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
}

}  // namespace hfsim
