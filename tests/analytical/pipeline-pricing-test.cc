// The pipeline generator's graphs priced by the analytical engine: its explicit tensor and
// data groups are accepted and priced on the dimensions they span, and sends by their routes.
// Against hand-worked figures: a compute-only pipeline (messages free) takes the closed form
// (m + p - 1)(F + B); with real messages, a two-stage GPipe of one micro-batch is
// F + send + B + send-back, each send one hop of latency plus bytes over the link.
#include <gtest/gtest.h>

#include "sim/analytical/graph-pricing.h"
#include "tests/workloads/pipeline-test-util.h"
#include "workloads/graph/training-graph.h"

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
  auto graph = TrainingGraph(model, config, layout, Topology(scenario.dimensions));
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

// A stage's ranks share one program; giving every rank its own (its peers written out, as the
// generator wrote them before) must not change a single figure of the report.
TEST(PipelinePricing, SharedStageProgramsPriceAsOneProgramPerRank) {
  Scenario scenario = Fabric({{DimensionKind::kFullyConnected, 2, 300.0, 100.0},
                              {DimensionKind::kRing, 4, 100.0, 500.0},
                              {DimensionKind::kSwitch, 4, 50.0, 1000.0}});
  for (auto& per_dimension : scenario.communication.algorithms) {
    per_dimension.assign(3, CollectiveAlgorithm::kRing);
  }
  Model model = UniformModel(8, 4000.0, 8000.0, 4096, 1'000'000);
  for (Layer& layer : model.layers) layer.tensor_parallel_all_reduces = 2;
  for (const PipelineLayout& layout :
       {PipelineLayout{4, 8, 1, PipelineSchedule::kOneFOneB},
        PipelineLayout{4, 8, 2, PipelineSchedule::kInterleaved},
        PipelineLayout{2, 4, 1, PipelineSchedule::kGPipe}}) {
    const uint32_t data = 32 / 2 / layout.pipeline;
    auto built =
        TrainingGraph(model, PipelineConfig(2, data, 64), layout, Topology(scenario.dimensions));
    ASSERT_TRUE(std::holds_alternative<ExecutionGraph>(built)) << std::get<std::string>(built);
    const ExecutionGraph shared = std::get<ExecutionGraph>(std::move(built));
    EXPECT_EQ(shared.classes.size(), layout.pipeline);
    ExecutionGraph alone = shared;
    alone.classes.clear();
    const PeerResolver peers(shared);
    for (uint32_t rank = 0; rank < shared.rank_count; ++rank) {
      for (const RankClass& rank_class : shared.classes) {
        if (std::find(rank_class.ranks.begin(), rank_class.ranks.end(), rank) ==
            rank_class.ranks.end()) {
          continue;
        }
        RankClass& own = alone.classes.emplace_back(RankClass{{rank}, rank_class.program});
        for (GraphNode& node : own.program) node.peer = peers.PeerOf(rank, node);
      }
    }
    Report reports[2];
    for (int i = 0; i < 2; ++i) {
      auto pricing = GraphPricing::Compile(scenario, i == 0 ? shared : alone, "test");
      ASSERT_TRUE(pricing) << pricing.Error().ToString();
      pricing.Value().FillReport(reports[i]);
    }
    SCOPED_TRACE(ToString(layout.schedule));
    EXPECT_EQ(reports[0].iteration.total_ns, reports[1].iteration.total_ns);
    EXPECT_EQ(reports[0].iteration.ComputeNs(), reports[1].iteration.ComputeNs());
    EXPECT_EQ(reports[0].total_traffic_bytes, reports[1].total_traffic_bytes);
    EXPECT_EQ(reports[0].point_to_point_traffic_bytes, reports[1].point_to_point_traffic_bytes);
  }
}

}  // namespace
}  // namespace hfsim
