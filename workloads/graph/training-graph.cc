#include "workloads/graph/training-graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "workloads/graph/pipeline-rules.h"
#include "workloads/graph/pipeline-schedule.h"
#include "workloads/graph/rank-classes.h"
#include "workloads/graph/stage-program.h"
#include "workloads/graph/training-communicators.h"

namespace hfsim {

namespace {

std::atomic<uint64_t> g_generated{0};

// One micro-batch's work per rank: the loop's formulas with the micro-batch as the batch.
// Measured times and explicit activation collectives are given per iteration: each micro-batch
// takes its share (explicit sizes rounded up to a byte), before recomputation and the routed
// experts' shares are derived from it.
TrainingIteration MicroBatchWork(const Model& model, const TrainingConfig& config, uint32_t m) {
  if (m == 1) return BuildTrainingIteration(model, config);
  TrainingConfig micro_config = config;
  micro_config.global_batch_samples = config.global_batch_samples / m;
  micro_config.measured_time_divisor = m;
  TrainingIteration micro = BuildTrainingIteration(model, micro_config);
  for (uint32_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    LayerWork& work = micro.layers[i];
    if (layer.forward_comm && work.forward_comm) {
      work.forward_comm->size_bytes = (layer.forward_comm->size_bytes + m - 1) / m;
    }
    if (layer.input_grad_comm && work.input_grad_comm) {
      work.input_grad_comm->size_bytes = (layer.input_grad_comm->size_bytes + m - 1) / m;
    }
  }
  return micro;
}

// Bytes a chunk ending with layer i passes on per micro-batch (and gets back as gradient): the
// layer's whole output, from every tensor rank; a context rank's share of the tokens.
std::vector<uint64_t> BoundaryBytes(const Model& model, const TrainingConfig& config,
                                    const PipelineLayout& layout) {
  const uint64_t micro_samples =
      config.global_batch_samples / layout.micro_batches / config.data_parallel;
  const uint64_t context = config.context_parallel;
  std::vector<uint64_t> bytes;
  bytes.reserve(model.layers.size());
  for (const Layer& layer : model.layers) {
    const uint64_t whole = micro_samples * layer.output_elements_per_sample *
                           config.activation_bytes_per_element;
    bytes.push_back((whole + context - 1) / context);
  }
  return bytes;
}

// The data x tensor loop: one stage, one micro-batch, every rank running the one program.
ExecutionGraph LayerLoopGraph(ExecutionGraph graph, const StageWork& work,
                              const PipelineLayout& layout) {
  RankClass& all = graph.classes.emplace_back();
  all.ranks.resize(graph.rank_count);
  std::iota(all.ranks.begin(), all.ranks.end(), 0u);
  all.program.reserve(LayerLoopNodeCount(*work.micro));
  WriteStageProgram(work, 0, StageSchedule(layout, 0), StagePeers{}, all.program);
  return graph;
}

// Ranks composed from the parallel axes: one program per stage and context index, shared by its
// T x D ranks, written for its first (lowest) rank; the i-th rank of one class talks to the i-th
// of the next stage's, or of its ring neighbour's, which must be the rank with the same t and d.
// Composed ranks keep that order in every class (each is the first's shifted by a stride); an
// explicit placement may not, and then every rank gets a program of its own.
std::variant<ExecutionGraph, std::string> ComposedGraph(
    ExecutionGraph graph, const StageWork& work, const PipelineLayout& layout,
    const TrainingConfig& config, const RankPlacement& placement, const Topology& topology,
    uint64_t max_nodes) {
  const uint32_t p = layout.pipeline, context = config.context_parallel;
  const uint32_t tensor = config.tensor_parallel, data = config.data_parallel;
  const uint64_t members = uint64_t{tensor} * data;
  // Per class, its NPUs ascending with each one's tensor and data index (t + T d).
  auto members_of = [&](uint32_t s, uint32_t c) {
    std::vector<std::pair<uint32_t, uint32_t>> ranks;
    ranks.reserve(members);
    for (uint32_t dd = 0; dd < data; ++dd) {
      for (uint32_t tt = 0; tt < tensor; ++tt) {
        ranks.emplace_back(placement.NpuOf(tt, c, dd, s), tt + tensor * dd);
      }
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
  };
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> class_members;
  class_members.reserve(uint64_t{p} * context);
  bool shared = true;
  for (uint32_t s = 0; s < p; ++s) {
    for (uint32_t c = 0; c < context; ++c) {
      const auto& ranks = class_members.emplace_back(members_of(s, c));
      shared =
          shared && std::equal(ranks.begin(), ranks.end(), class_members.front().begin(),
                               [](const auto& a, const auto& b) { return a.second == b.second; });
    }
  }
  for (uint32_t s = 0; s < p; ++s) {
    const std::vector<StageStep> steps =
        StageSchedule(layout, s, config.overlap_options.expert_all_to_all);
    for (uint32_t c = 0; c < context; ++c) {
      const auto& ranks = class_members[uint64_t{s} * context + c];
      // The ranks a program is written for: the class's first, or each one.
      for (uint64_t writer = 0; writer < (shared ? 1 : members); ++writer) {
        const uint32_t key = ranks[writer].second;
        const uint32_t t = key % tensor, d = key / tensor;
        RankClass& rank_class = graph.classes.emplace_back();
        if (shared) {
          for (const auto& rank : ranks) rank_class.ranks.push_back(rank.first);
        } else {
          rank_class.ranks.push_back(ranks[writer].first);
        }
        StagePeers peers;
        for (uint32_t stage = 0; stage < p; ++stage) {
          peers.stage_rank.push_back(placement.NpuOf(t, c, d, stage));
        }
        // Ring attention: keys and values go to the next context rank.
        peers.ring = {placement.NpuOf(t, (c + 1) % context, d, s),
                      placement.NpuOf(t, (c + context - 1) % context, d, s)};
        WriteStageProgram(work, s, steps, peers, rank_class.program);
        // Programs of their own for every rank: refused past the node budget, estimated from
        // the first program before the others are written.
        if (!shared && graph.classes.size() == 1 &&
            rank_class.program.size() * uint64_t{graph.rank_count} > max_nodes) {
          return fmt::format(
              "the placement puts stages' ranks in different orders, so every rank needs a "
              "program of its own, and the graph would hold about {} nodes, above {}; accepted: "
              "a placement that keeps each stage's ranks in the same order of tensor and data "
              "index, or fewer micro-batches",
              rank_class.program.size() * uint64_t{graph.rank_count}, max_nodes);
        }
      }
    }
  }
  // Stages whose ranks sit differently on the fabric (groups of other shapes, sends crossing
  // other dimensions) are told apart here, so the engines can time a class by its first rank.
  if (!RefineRankClasses(graph, topology, max_nodes)) {
    return fmt::format(
        "the stages' ranks sit on the fabric so unevenly (their groups or their sends to the "
        "next stage differ in shape) that they need programs of their own, and the graph would "
        "hold more than {} nodes; accepted: degrees whose groups line up with the dimensions, "
        "or fewer micro-batches",
        max_nodes);
  }
  return graph;
}

}  // namespace

std::variant<ExecutionGraph, std::string> TrainingGraph(const Model& model,
                                                        const TrainingConfig& config,
                                                        const PipelineLayout& layout,
                                                        const Topology& topology,
                                                        const DimensionPlacement* along_dimensions,
                                                        uint64_t max_nodes) {
  g_generated.fetch_add(1, std::memory_order_relaxed);
  if (auto reason = TrainingLayoutRefusal(model, config, layout, topology.NpuCount())) {
    return *reason;
  }
  if (along_dimensions && (layout.pipeline != 1 || layout.micro_batches != 1 ||
                           config.context_parallel != 1 || config.expert_parallel != 1 ||
                           !layout.placement.empty())) {
    return std::string(
        "ranks placed along dimension lists run without a pipeline, context or expert "
        "parallelism and without an explicit placement");
  }
  const uint32_t chunks = layout.pipeline * layout.virtual_stages;
  TrainingIteration micro = MicroBatchWork(model, config, layout.micro_batches);
  StageWork work;
  work.micro = &micro;
  work.boundary = PipelineChunks(model, config, layout);
  // Buckets never span two chunks: each chunk's gradients are ready at a different time.
  for (uint32_t k = 0; k < chunks; ++k) {
    BucketGradients(micro.layers, work.boundary[k], work.boundary[k + 1], config.bucket_bytes);
  }
  if (chunks > 1) work.boundary_bytes = BoundaryBytes(model, config, layout);
  work.pipeline = layout.pipeline;
  work.context = config.context_parallel;
  work.overlap = config.overlap == OverlapMode::kBackward;
  work.overlap_options = config.overlap_options;
  // Transformer Engine's ring-exchange overlap cuts a GEMM and its collective into one chunk
  // per tensor-parallel rank (userbuffers' UbufP2PCommOverlap, tp_size chunks).
  work.tensor_chunks = config.tensor_parallel;
  work.form = along_dimensions ? ProgramForm::kLayerLoop : ProgramForm::kMegatron;

  ExecutionGraph graph;
  graph.rank_count = static_cast<uint32_t>(topology.NpuCount());
  for (const Dimension& dim : topology.Dimensions()) graph.dimension_sizes.push_back(dim.size);
  graph.layers.reserve(model.layers.size());
  for (const Layer& layer : model.layers) graph.layers.push_back(layer.name);
  const RankPlacement placement = along_dimensions
                                      ? RankPlacement::AlongDimensions(topology, *along_dimensions)
                                      : RankPlacement::Composed(config, layout);
  graph.communicators = TrainingCommunicators(placement, config, layout.pipeline);
  if (along_dimensions) return LayerLoopGraph(std::move(graph), work, layout);
  return ComposedGraph(std::move(graph), work, layout, config, placement, topology, max_nodes);
}

ExecutionGraph CollectiveGraph(CollectiveKind kind, uint64_t size_bytes, const Topology& topology,
                               const std::vector<uint32_t>& dimensions) {
  g_generated.fetch_add(1, std::memory_order_relaxed);
  ExecutionGraph graph;
  graph.rank_count = static_cast<uint32_t>(topology.NpuCount());
  for (const Dimension& dim : topology.Dimensions()) graph.dimension_sizes.push_back(dim.size);
  Communicator& all = graph.communicators.emplace_back();
  all.name = "all";
  all.dimensions = dimensions;
  RankClass& every = graph.classes.emplace_back();
  every.ranks.resize(topology.NpuCount());
  std::iota(every.ranks.begin(), every.ranks.end(), 0u);
  GraphNode node;
  node.kind = GraphNodeKind::kCollective;
  node.phase = GraphPhase::kCollective;
  node.collective = kind;
  node.size_bytes = size_bytes;
  every.program.push_back(std::move(node));
  return graph;
}

uint64_t GeneratedGraphCount() { return g_generated.load(std::memory_order_relaxed); }

}  // namespace hfsim
