#include "sim/runs/gossip-run.h"

#include <stdexcept>

#include "sim/report/ps-planned-report.h"
#include "topologies/topology.h"

namespace hfsim {

GossipTrace TrainGossip(const Scenario& scenario) {
  GossipSpec spec = scenario.gossip.spec;
  spec.seed = scenario.seed;
  LearningTaskSpec task = scenario.gossip.task;
  task.SetSeed(scenario.seed);
  return RunGossip(spec, MakeLearningTask(task));
}

uint32_t GossipNodeNpu(const GossipWorkload& gossip, uint32_t node) {
  return node < gossip.worker_npus.size() ? gossip.worker_npus[node] : gossip.server_npu;
}

void ReportGossip(const Scenario& scenario, const GossipTrace& trace,
                  const std::vector<double>& step_end_ns, Report& report) {
  const GossipWorkload& g = scenario.gossip;
  if (step_end_ns.size() != g.spec.steps) {
    throw std::logic_error("ReportGossip: one end time per step is needed");
  }
  const Topology topology(scenario.dimensions);
  report.npus = topology.NpuCount();
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

  // Bytes sent by the end of each step, and into each dimension (a message crosses every
  // dimension in which its ends differ once, by dimension-order routing).
  std::vector<double> dimension_bytes(topology.DimensionCount(), 0.0);
  std::vector<uint64_t> bytes_after_step(g.spec.steps, 0);
  const std::vector<size_t> starts = StepMessageStarts(trace, g.spec.steps);
  uint64_t bytes = 0;
  for (uint32_t step = 0; step < g.spec.steps; ++step) {
    for (size_t i = starts[step]; i < starts[step + 1]; ++i) {
      const ExchangeMessage& m = trace.messages[i];
      bytes += m.bytes;
      const uint32_t from = GossipNodeNpu(g, m.from);
      const uint32_t to = GossipNodeNpu(g, m.to);
      for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
        if (topology.Coordinate(from, d) != topology.Coordinate(to, d)) {
          dimension_bytes[d] += static_cast<double>(m.bytes);
        }
      }
    }
    bytes_after_step[step] = bytes;
  }
  r.total_ns = step_end_ns.back();
  r.compute_ns = g.step_compute_ns * g.spec.steps;
  r.exchange_ns = r.total_ns - r.compute_ns;
  for (const Evaluation& e : trace.evaluations) {
    const GossipEvaluationRow row{e.step, step_end_ns[e.step - 1], bytes_after_step[e.step - 1],
                                  e.mean_model_accuracy, e.worker_accuracy};
    r.evaluations.push_back(row);
    if (!r.reached_target && e.mean_model_accuracy >= g.target_accuracy) r.reached_target = row;
  }
  r.final_accuracy = trace.evaluations.back().mean_model_accuracy;
  r.final_worker_accuracy = trace.evaluations.back().worker_accuracy;

  // One "iteration" is one local step.
  report.iteration.total_ns = r.total_ns / g.spec.steps;
  report.iteration.step_compute_ns = g.step_compute_ns;
  report.communication_ns = r.exchange_ns / g.spec.steps;
  for (double& b : dimension_bytes) b /= g.spec.steps;
  report.gossip = std::move(r);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
}

}  // namespace hfsim
