// The pipeline-parallel generator against closed forms: on a compute-only pipeline (free
// sends, uniform stages) GPipe and 1F1B take (m + p - 1)(F + B), a bubble fraction of
// (p - 1)/(m + p - 1), and interleaving v chunks per stage divides the bubble by v. Also: the
// graphs pass the graph checks (every send has its receive, groups are consistent), bytes
// sent equal bytes received, every layer's gradients are all-reduced exactly once per rank,
// and layouts that cannot run are refused with the reason.
#include "workloads/graph/training-graph.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "tests/workloads/pipeline-test-util.h"
#include "workloads/graph/graph-check.h"
#include "workloads/graph/graph-schedule.h"
#include "workloads/graph/pipeline-schedule.h"

namespace hfsim {
namespace {

using test::PipelineConfig;

// `layers` layers taking, per micro-batch of an iteration cut in m, forward f and backward b.
Model UniformModel(uint32_t layers, uint32_t m, double f, double b, uint64_t params = 0) {
  return test::UniformModel(layers, f * m, b * m, 1024, params);
}

Topology Ring(uint32_t npus) {
  Dimension dim;
  dim.kind = DimensionKind::kRing;
  dim.size = npus;
  dim.bandwidth_Bpns = 100.0;
  return Topology({dim});
}

ExecutionGraph BuildOrDie(const Model& model, const TrainingConfig& config,
                          const PipelineLayout& layout, const Topology& topology) {
  auto graph = TrainingGraph(model, config, layout, topology);
  if (auto* reason = std::get_if<std::string>(&graph)) {
    ADD_FAILURE() << *reason;
    return {};
  }
  auto error = CheckGraph(std::get<ExecutionGraph>(graph));
  EXPECT_FALSE(error.has_value()) << error->ToString();
  return std::get<ExecutionGraph>(std::move(graph));
}

// The iteration's time with compute at its duration and all communication free.
double ComputeOnlyTime(const ExecutionGraph& graph) {
  GraphSchedule schedule;
  const auto error = GraphSchedule::Build(graph, schedule);
  EXPECT_FALSE(error.has_value()) << error->ToString();
  std::vector<double> start, end;
  schedule.Play<double>(
      [&](uint32_t unit) {
        const GraphSchedule::Member leader = schedule.MemberOf(unit);
        const GraphNode& node = graph.classes[leader.rank_class].program[leader.position];
        return node.kind == GraphNodeKind::kCompute ? node.duration_ns : 0.0;
      },
      start, end);
  return schedule.Total(end);
}

struct Case {
  PipelineSchedule schedule;
  uint32_t p, m, v;
};

TEST(PipelineGraph, BubbleFractionMatchesClosedForm) {
  const double f = 3.0, b = 7.0;  // per micro-batch, per chunk of one layer
  for (const Case c :
       {Case{PipelineSchedule::kGPipe, 4, 8, 1}, Case{PipelineSchedule::kOneFOneB, 4, 8, 1},
        Case{PipelineSchedule::kOneFOneB, 4, 2, 1}, Case{PipelineSchedule::kOneFOneB, 8, 16, 1},
        Case{PipelineSchedule::kInterleaved, 4, 8, 2},
        Case{PipelineSchedule::kInterleaved, 4, 8, 4},
        Case{PipelineSchedule::kInterleaved, 2, 4, 3}}) {
    SCOPED_TRACE(::testing::Message() << "schedule " << static_cast<int>(c.schedule) << " p " << c.p
                                      << " m " << c.m << " v " << c.v);
    // One layer per chunk: a stage's forward of one micro-batch takes v f in all.
    const Model model = UniformModel(c.p * c.v, c.m, f, b);
    PipelineLayout layout{c.p, c.m, c.v, c.schedule};
    const ExecutionGraph graph = BuildOrDie(model, PipelineConfig(1, 1, 64), layout, Ring(c.p));
    const double total = ComputeOnlyTime(graph);
    const double work = c.m * c.v * (f + b);  // one stage's compute
    // Filling and draining the pipeline costs (p - 1) chunk steps of f + b.
    EXPECT_NEAR(total, work + (c.p - 1) * (f + b), 1e-9);
    const double bubble = 1.0 - work / total;
    EXPECT_NEAR(bubble, (c.p - 1.0) / (c.v * c.m + c.p - 1.0), 1e-12);
  }
}

TEST(PipelineGraph, InterleavingDividesTheBubbleByTheVirtualStages) {
  const double f = 2.0, b = 4.0;
  const uint32_t p = 4, m = 8;
  // The same model (8 layers) as 4 chunks of 2 layers, or 8 chunks of 1 layer interleaved.
  const Model model = UniformModel(8, m, f, b);
  const double plain = ComputeOnlyTime(
      BuildOrDie(model, PipelineConfig(1, 1, 64), {p, m, 1, PipelineSchedule::kOneFOneB}, Ring(p)));
  const double interleaved = ComputeOnlyTime(BuildOrDie(
      model, PipelineConfig(1, 1, 64), {p, m, 2, PipelineSchedule::kInterleaved}, Ring(p)));
  const double work = m * 2 * (f + b);
  EXPECT_NEAR(plain - work, (p - 1) * 2 * (f + b), 1e-9);
  EXPECT_NEAR(interleaved - work, (plain - work) / 2, 1e-9);
}

TEST(PipelineGraph, BytesSentEqualBytesReceivedAndGradientsReducedOnce) {
  // tensor 2 x data 2 x pipeline 2 on 8 NPUs, 1F1B, 4 micro-batches; layers with parameters.
  const uint32_t m = 4;
  Model model = UniformModel(6, m, 1.0, 2.0, 1'000'000);
  for (Layer& layer : model.layers) layer.tensor_parallel_all_reduces = 2;
  TrainingConfig config = PipelineConfig(2, 2, 32);
  const ExecutionGraph graph =
      BuildOrDie(model, config, {2, m, 1, PipelineSchedule::kOneFOneB}, Ring(8));
  // Each stage's 4 ranks run one program; rank i of stage 0 talks to rank i of stage 1.
  ASSERT_EQ(graph.classes.size(), 2u);
  const PeerResolver peers(graph);
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> sent, received;
  for (const RankClass& rank_class : graph.classes) {
    ASSERT_EQ(rank_class.ranks.size(), 4u);
    for (const uint32_t rank : rank_class.ranks) {
      const uint32_t stage = rank / 4;
      uint32_t gradient_collectives = 0, sends = 0;
      for (const GraphNode& node : rank_class.program) {
        if (node.kind == GraphNodeKind::kSend) {
          sent[{rank, peers.PeerOf(rank, node), node.tag}] += node.size_bytes;
          ++sends;
          // Each micro-batch's activation: 32 / (2 x 4) = 4 samples x 1024 elements x 2 bytes,
          // to the rank with the same tensor and data indices in the other stage.
          EXPECT_EQ(node.size_bytes, 4u * 1024 * 2);
          EXPECT_EQ(peers.PeerOf(rank, node), stage == 0 ? rank + 4 : rank - 4);
        }
        if (node.kind == GraphNodeKind::kRecv) {
          received[{peers.PeerOf(rank, node), rank, node.tag}] += node.size_bytes;
        }
        if (node.kind == GraphNodeKind::kCollective && node.phase == GraphPhase::kWeightGrad) {
          ++gradient_collectives;
          EXPECT_EQ(node.size_bytes, 1'000'000 / 2 * 2u);  // params / tensor x 2 bytes
        }
      }
      // Each stage holds 3 layers; each sends one activation or one gradient per micro-batch.
      EXPECT_EQ(gradient_collectives, 3u) << "rank " << rank;
      EXPECT_EQ(sends, m) << "rank " << rank;
    }
  }
  EXPECT_EQ(sent.size(), 8u);  // per rank one (peer, tag): activations forward, gradients back
  EXPECT_EQ(sent, received);
}

TEST(PipelineGraph, RefusesLayoutsThatCannotRun) {
  auto reason = [](const Model& model, const TrainingConfig& config, const PipelineLayout& layout,
                   const Topology& topology) {
    auto graph = TrainingGraph(model, config, layout, topology);
    return std::holds_alternative<std::string>(graph) ? std::get<std::string>(graph)
                                                      : std::string();
  };
  const Model model = UniformModel(8, 1, 1.0, 1.0);
  EXPECT_NE(
      reason(model, PipelineConfig(1, 1, 64), {4, 6, 2, PipelineSchedule::kInterleaved}, Ring(4))
          .find("not a multiple of 4"),
      std::string::npos);
  EXPECT_NE(
      reason(model, PipelineConfig(1, 1, 64), {4, 8, 3, PipelineSchedule::kInterleaved}, Ring(4))
          .find("8 layers cannot fill 12"),
      std::string::npos);
  EXPECT_NE(reason(model, PipelineConfig(1, 1, 64), {4, 8, 2, PipelineSchedule::kOneFOneB}, Ring(4))
                .find("interleaved"),
            std::string::npos);
  EXPECT_NE(reason(model, PipelineConfig(2, 1, 64), {4, 8, 1, PipelineSchedule::kOneFOneB}, Ring(4))
                .find("the fabric has 4 NPUs"),
            std::string::npos);
  EXPECT_NE(reason(model, PipelineConfig(1, 1, 60), {4, 8, 1, PipelineSchedule::kOneFOneB}, Ring(4))
                .find("does not split"),
            std::string::npos);
}

// Chunks balance compute, not rows: GPT-3's embedding (no compute), 96 equal blocks and the LM
// head (about a third of a block) over 24 chunks give 4 blocks each, the embedding with the
// first and the head with the last, as Megatron places them; cutting rows evenly would give
// some chunks 5 blocks and slow the whole pipeline by a quarter.
TEST(PipelineGraph, ChunksBalanceComputeNotRows) {
  std::vector<double> cost(98, 3.0);
  cost.front() = 0.0;
  cost.back() = 1.0;
  const std::vector<uint32_t> bounds = BalancedChunks(cost, 24);
  ASSERT_EQ(bounds.size(), 25u);
  EXPECT_EQ(bounds[1], 5u);  // the embedding and 4 blocks
  for (uint32_t k = 1; k < 23; ++k) EXPECT_EQ(bounds[k + 1] - bounds[k], 4u) << k;
  EXPECT_EQ(bounds[24] - bounds[23], 5u);  // 4 blocks and the head
  // By hand: [5, 1, 1, 1, 1] into 3 chunks costs at least 5 (the first layer alone), and the
  // first layer must stand alone to reach it.
  const std::vector<uint32_t> small = BalancedChunks({5, 1, 1, 1, 1}, 3);
  ASSERT_EQ(small.size(), 4u);
  EXPECT_EQ(small[1], 1u);
  EXPECT_LE(small[3] - small[2], 3u);
  EXPECT_GE(small[3] - small[2], 1u);
  EXPECT_GE(small[2] - small[1], 1u);
  // Every chunk keeps a layer even where the cost would let one chunk take everything.
  EXPECT_EQ(BalancedChunks({1, 1, 1, 1}, 4), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  // No compute anywhere: layers are counted.
  EXPECT_EQ(BalancedChunks({0, 0, 0, 0, 0, 0}, 3), (std::vector<uint32_t>{0, 2, 4, 6}));
}

}  // namespace
}  // namespace hfsim
