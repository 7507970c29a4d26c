// The pipeline generator's graphs priced by the analytical engine: its explicit tensor and
// data groups are accepted and priced on the dimensions they span, and sends by their routes.
// Against hand-worked figures: a compute-only pipeline (messages free) takes the closed form
// (m + p - 1)(F + B); with real messages, a two-stage GPipe of one micro-batch is
// F + send + B + send-back, each send one hop of latency plus bytes over the link.
#include <gtest/gtest.h>

#include "sim/analytical/graph-pricing.h"
#include "tests/workloads/pipeline-test-util.h"
#include "workloads/graph/pipeline-graph.h"

namespace hfsim {
namespace {

using test::PipelineConfig;
using test::UniformModel;

Scenario Fabric(std::vector<Dimension> dims) {
  Scenario scenario;
  scenario.dimensions = std::move(dims);
  return scenario;
}

double Price(const Scenario& scenario, const Model& model, const TrainingConfig& config,
             const PipelineLayout& layout) {
  auto graph = PipelineTrainingGraph(model, config, layout, Topology(scenario.dimensions));
  if (auto* reason = std::get_if<std::string>(&graph)) {
    ADD_FAILURE() << *reason;
    return 0.0;
  }
  auto pricing =
      GraphPricing::Compile(scenario, std::get<ExecutionGraph>(std::move(graph)), "test");
  if (!pricing) {
    ADD_FAILURE() << pricing.Error().ToString();
    return 0.0;
  }
  Report report;
  pricing.Value().FillReport(report);
  return report.iteration.total_ns;
}

TEST(PipelinePricing, ComputeOnlyPipelineTakesTheClosedForm) {
  // 2 (tensor, FullyConnected) x 2 (data, Ring) x 4 (pipeline, Switch) NPUs; no parameters, no
  // tensor all-reduces, messages of 0 bytes over links without latency: compute only.
  const Scenario scenario = Fabric({{DimensionKind::kFullyConnected, 2, 100.0, 0.0},
                                    {DimensionKind::kRing, 2, 100.0, 0.0},
                                    {DimensionKind::kSwitch, 4, 100.0, 0.0}});
  const uint32_t p = 4, m = 8;
  const double f = 10.0 * m, b = 30.0 * m;  // per iteration; 10 and 30 per micro-batch
  const double total = Price(scenario, UniformModel(4, f, b, 0), PipelineConfig(2, 2, 64),
                             {p, m, 1, PipelineSchedule::kOneFOneB});
  EXPECT_NEAR(total, (m + p - 1) * (10.0 + 30.0), 1e-9);
}

TEST(PipelinePricing, TwoStageGPipeWaitsForEachMessage) {
  // Two NPUs on a Switch (2 hops of 500 ns, 50 GB/s), one micro-batch of 4 samples x 1,000
  // elements x 2 bytes = 8,000 bytes each way: 1,000 ns + 160 ns per message.
  const Scenario scenario = Fabric({{DimensionKind::kSwitch, 2, 50.0, 500.0}});
  const double f = 100.0, b = 300.0;
  const double total = Price(scenario, UniformModel(2, f, b, 1000), PipelineConfig(1, 1, 4),
                             {2, 1, 1, PipelineSchedule::kGPipe});
  const double message = 2 * 500.0 + 8000.0 / 50.0;
  EXPECT_NEAR(total, f + message + f + b + message + b, 1e-9);
}

}  // namespace
}  // namespace hfsim
