// Gradient accumulation without a pipeline (one stage, m micro-batches), as Megatron-LM's
// forward_backward_no_pipelining and PyTorch DDP's no_sync run it: each micro-batch runs forward
// then backward in turn, and the data-parallel gradient collectives are issued once, in the
// last micro-batch's backward. Checked on the generator's program by position and by hand-played
// timelines: every layer's gradients reduced exactly once, with the bytes of one micro-batch's
// job; the iteration m (F + B) plus what the reduces leave exposed after the last backward.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "tests/workloads/pipeline-test-util.h"
#include "workloads/graph/graph-check.h"
#include "workloads/graph/graph-schedule.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {
namespace {

// 4 layers of 1,000,000 parameters; per micro-batch of an iteration cut in m, forward f = 3 and
// backward b = 6 per layer (input and weight gradients 3 each). Data 4 on a Ring of 4.
constexpr uint32_t kLayers = 4;
constexpr double kF = 3.0, kB = 6.0;

Model FourLayers(uint32_t m) {
  return test::UniformModel(kLayers, kF * m, kB * m, 1024, 1'000'000);
}

Topology Ring4() {
  Dimension dim;
  dim.kind = DimensionKind::kRing;
  dim.size = 4;
  dim.bandwidth_Bpns = 100.0;
  return Topology({dim});
}

ExecutionGraph Accumulating(uint32_t m, OverlapMode overlap, uint32_t zero_stage = 0) {
  TrainingConfig config = test::PipelineConfig(1, 4, 32);
  config.overlap = overlap;
  config.zero_stage = zero_stage;
  PipelineLayout layout;  // one stage, 1F1B
  layout.micro_batches = m;
  auto built = TrainingGraph(FourLayers(m), config, layout, Ring4());
  if (auto* reason = std::get_if<std::string>(&built)) {
    ADD_FAILURE() << *reason;
    return {};
  }
  const ExecutionGraph& graph = std::get<ExecutionGraph>(built);
  auto error = CheckGraph(graph);
  EXPECT_FALSE(error.has_value()) << error->ToString();
  return std::get<ExecutionGraph>(std::move(built));
}

// The iteration with compute at its duration and each collective taking `collective_ns`.
double PlayedTime(const ExecutionGraph& graph, double collective_ns) {
  GraphSchedule schedule;
  const auto error = GraphSchedule::Build(graph, schedule);
  EXPECT_FALSE(error.has_value()) << error->ToString();
  std::vector<double> start, end;
  schedule.Play<double>(
      [&](uint32_t unit) {
        const GraphSchedule::Member leader = schedule.MemberOf(unit);
        const GraphNode& node = graph.classes[leader.rank_class].program[leader.position];
        if (node.kind == GraphNodeKind::kCompute) return node.duration_ns;
        return node.kind == GraphNodeKind::kCollective ? collective_ns : 0.0;
      },
      start, end);
  return schedule.Total(end);
}

// (layer, kind, bytes) of every gradient collective, in program order.
std::vector<std::tuple<uint32_t, CollectiveKind, uint64_t>> Gradients(const ExecutionGraph& g) {
  std::vector<std::tuple<uint32_t, CollectiveKind, uint64_t>> out;
  for (const GraphNode& node : g.classes.at(0).program) {
    if (node.kind == GraphNodeKind::kCollective && node.phase == GraphPhase::kWeightGrad) {
      out.emplace_back(node.layer, node.collective, node.size_bytes);
    }
  }
  return out;
}

TEST(AccumulationGraph, MicroBatchesRunForwardThenBackwardInTurn) {
  const uint32_t m = 4;
  const ExecutionGraph graph = Accumulating(m, OverlapMode::kNone);
  ASSERT_EQ(graph.classes.size(), 1u);  // every data rank runs the one program
  EXPECT_EQ(graph.classes[0].ranks.size(), 4u);
  // Compute in program order: per micro-batch 4 forwards (layers 0..3), then 4 x (input,
  // weight) gradients (layers 3..0); each takes 1/m of the iteration's measured time.
  std::vector<std::pair<GraphPhase, uint32_t>> compute;
  for (const GraphNode& node : graph.classes[0].program) {
    if (node.kind != GraphNodeKind::kCompute) continue;
    compute.emplace_back(node.phase, node.layer);
    EXPECT_DOUBLE_EQ(node.duration_ns, node.phase == GraphPhase::kForward ? kF : kB / 2);
  }
  std::vector<std::pair<GraphPhase, uint32_t>> expected;
  for (uint32_t j = 0; j < m; ++j) {
    for (uint32_t i = 0; i < kLayers; ++i) expected.emplace_back(GraphPhase::kForward, i);
    for (uint32_t i = kLayers; i-- > 0;) {
      expected.emplace_back(GraphPhase::kInputGrad, i);
      expected.emplace_back(GraphPhase::kWeightGrad, i);
    }
  }
  EXPECT_EQ(compute, expected);
  // Compute only: m x 4 x (f + b) = 4 x 4 x 9 = 144.
  EXPECT_DOUBLE_EQ(PlayedTime(graph, 0.0), 144.0);
}

TEST(AccumulationGraph, EveryGradientReducedOnceWithOneMicroBatchsBytes) {
  for (const OverlapMode overlap : {OverlapMode::kNone, OverlapMode::kBackward}) {
    const auto one = Gradients(Accumulating(1, overlap));
    // One all-reduce per layer, last layer first, of 1,000,000 x 2 bytes.
    ASSERT_EQ(one.size(), kLayers);
    for (uint32_t i = 0; i < kLayers; ++i) {
      EXPECT_EQ(one[i], std::make_tuple(kLayers - 1 - i, CollectiveKind::kAllReduce,
                                        uint64_t{2'000'000}));
    }
    for (const uint32_t m : {2u, 4u, 8u}) EXPECT_EQ(Gradients(Accumulating(m, overlap)), one) << m;
    // ZeRO-1 (Megatron's distributed optimizer): one reduce-scatter per layer, then one gather
    // of the updated parameters per layer, whatever m.
    const auto sharded = Gradients(Accumulating(1, overlap, 1));
    ASSERT_EQ(sharded.size(), 2 * kLayers);
    EXPECT_EQ(std::get<1>(sharded.front()), CollectiveKind::kReduceScatter);
    EXPECT_EQ(std::get<1>(sharded.back()), CollectiveKind::kAllGather);
    EXPECT_EQ(Gradients(Accumulating(4, overlap, 1)), sharded);
  }
}

TEST(AccumulationGraph, GradientsWaitForTheLastMicroBatchsBackward) {
  const uint32_t m = 4;
  const ExecutionGraph graph = Accumulating(m, OverlapMode::kBackward);
  const std::vector<GraphNode>& program = graph.classes[0].program;
  // The last backward starts at the last micro-batch's first input-gradient compute.
  uint32_t computes = 0, last_backward = 0;
  for (uint32_t at = 0; at < program.size(); ++at) {
    if (program[at].kind != GraphNodeKind::kCompute) continue;
    // Computes per micro-batch: 4 forwards + 8 gradient computes; the last's backward is
    // compute number 3 x 12 + 4.
    if (computes++ == (m - 1) * 3 * kLayers + kLayers) last_backward = at;
  }
  ASSERT_GT(last_backward, 0u);
  uint32_t reduces = 0;
  for (const GraphNode& node : program) {
    if (node.kind != GraphNodeKind::kCollective) continue;
    ++reduces;
    // On the gradient stream, waiting for its own layer's weight gradients of the last
    // micro-batch: never earlier.
    EXPECT_NE(node.stream, 0u);
    ASSERT_EQ(node.deps.size(), 1u);
    const GraphNode& waited = program[node.deps[0]];
    EXPECT_GE(node.deps[0], last_backward);
    EXPECT_EQ(waited.phase, GraphPhase::kWeightGrad);
    EXPECT_EQ(waited.layer, node.layer);
  }
  EXPECT_EQ(reduces, kLayers);
}

TEST(AccumulationGraph, ExposedGradientTimeIsWhatFollowsTheLastBackward) {
  // Compute ends at E = m x 4 x 9. Without overlap the 4 reduces of c follow it: E + 4c. With
  // overlap, layer i's reduce may start when its weight gradients of the last micro-batch are
  // done, at E - i b (b = 6: the backward of each layer after it). A reduce shorter than b
  // hides behind the next layer's backward: only layer 0's is exposed, E + c. A longer one
  // queues on the gradient stream from E - 3b: E - 3b + 4c. Neither depends on m beyond E:
  // nothing is reduced during the earlier micro-batches.
  for (const uint32_t m : {1u, 2u, 4u}) {
    SCOPED_TRACE(m);
    const double end = 36.0 * m;
    EXPECT_DOUBLE_EQ(PlayedTime(Accumulating(m, OverlapMode::kNone), 10.0), end + 40.0);
    const ExecutionGraph overlapped = Accumulating(m, OverlapMode::kBackward);
    EXPECT_DOUBLE_EQ(PlayedTime(overlapped, 2.0), end + 2.0);
    EXPECT_DOUBLE_EQ(PlayedTime(overlapped, 10.0), end - 18.0 + 40.0);
  }
}

}  // namespace
}  // namespace hfsim
