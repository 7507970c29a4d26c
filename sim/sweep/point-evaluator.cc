#include "sim/sweep/point-evaluator.h"

#include "sim/engines/engine-factory.h"

namespace hfsim {

PointEvaluator::PointEvaluator(const SweepPlan& plan)
    : m_plan(&plan), m_models(plan.Combinations().size()), m_walker(plan.Space()) {}

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
  return MakeEngine(scenario.engine)->Run(scenario).iteration.total_ns;
}

}  // namespace hfsim
