#include "sim/sweep/point-evaluator.h"

#include <chrono>

#include "sim/engines/engine-factory.h"

namespace hfsim {

PointEvaluator::PointEvaluator(const SweepPlan& plan, const std::atomic<bool>* stop)
    : m_plan(&plan), m_stop(stop), m_models(plan.Combinations().size()), m_walker(plan.Space()) {}

double PointEvaluator::TimeNs(uint64_t point) {
  const uint64_t combination = point / m_plan->AllocationCount();
  const std::vector<double>& bandwidths = m_plan->Bandwidths(m_walker, point);
  const Scenario& base = m_plan->Combinations()[combination].scenario;
  const bool analytical = m_plan->Engine() == EngineKind::kAnalytical;
  if (analytical && !TimeModelRefusal(base)) {
    auto& model = m_models[combination];
    if (!model) model = std::make_unique<TimeModel>(base);
    return model->TimeNs(bandwidths);  // GB/s and bytes/ns are the same number
  }
  // The engine itself: what TimeModel does not cover (astra_sim pricing, in-network stages,
  // parameter servers, gossip) and every flow or packet point.
  Scenario scenario = base;
  scenario.engine = m_plan->Engine();
  for (size_t d = 0; d < bandwidths.size(); ++d) scenario.dimensions[d].bandwidth_Bpns = bandwidths[d];
  RunOptions options;
  if (m_stop != nullptr && EngineOf(scenario.engine).progress) {
    // The engine's progress hook comes every few thousand events: a stopped sweep leaves the
    // point there. Only engines that run in this process get here with a stop flag (a packet
    // point's worker process is simply killed).
    options.progress = [stop = m_stop](double, uint64_t) {
      if (stop->load(std::memory_order_relaxed)) throw SweepStopped{};
    };
    options.progress_interval = std::chrono::milliseconds(50);
  }
  return MakeEngine(scenario.engine)->Run(scenario, options).iteration.total_ns;
}

}  // namespace hfsim
