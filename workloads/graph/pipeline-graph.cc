#include "workloads/graph/pipeline-graph.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/graph/rank-classes.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {

namespace {

// One step of a stage's schedule: a forward or backward pass of one micro-batch through one of
// the stage's chunks (0 .. virtual_stages - 1).
struct Step {
  bool forward;
  uint32_t micro_batch;
  uint32_t chunk;
};

std::vector<Step> StageSchedule(const PipelineLayout& layout, uint32_t stage) {
  const uint32_t p = layout.pipeline, m = layout.micro_batches, v = layout.virtual_stages;
  std::vector<Step> steps;
  steps.reserve(2 * m * v);
  switch (layout.schedule) {
    case PipelineSchedule::kGPipe:
      for (uint32_t j = 0; j < m; ++j) steps.push_back({true, j, 0});
      for (uint32_t j = 0; j < m; ++j) steps.push_back({false, j, 0});
      break;
    case PipelineSchedule::kOneFOneB: {
      const uint32_t warmup = std::min(p - stage - 1, m);
      for (uint32_t j = 0; j < warmup; ++j) steps.push_back({true, j, 0});
      for (uint32_t i = 0; i + warmup < m; ++i) {
        steps.push_back({true, warmup + i, 0});
        steps.push_back({false, i, 0});
      }
      for (uint32_t j = m - warmup; j < m; ++j) steps.push_back({false, j, 0});
      break;
    }
    case PipelineSchedule::kInterleaved: {
      // Virtual step k of the m x v this stage runs in each direction.
      const uint32_t total = m * v;
      auto chunk_of = [&](uint32_t k, bool forward) {
        const uint32_t chunk = k % (p * v) / p;
        return forward ? chunk : v - 1 - chunk;
      };
      auto micro_of = [&](uint32_t k) { return k / (p * v) * p + k % p; };
      const uint32_t warmup = std::min((p - stage - 1) * 2 + (v - 1) * p, total);
      for (uint32_t k = 0; k < warmup; ++k) steps.push_back({true, micro_of(k), chunk_of(k, true)});
      for (uint32_t i = 0; i + warmup < total; ++i) {
        const uint32_t k = warmup + i;
        steps.push_back({true, micro_of(k), chunk_of(k, true)});
        steps.push_back({false, micro_of(i), chunk_of(i, false)});
      }
      for (uint32_t k = total - warmup; k < total; ++k) {
        steps.push_back({false, micro_of(k), chunk_of(k, false)});
      }
      break;
    }
  }
  return steps;
}

// Streams: compute and blocking collectives, sends, receives, background gradient collectives,
// and ring attention's sends and receives of keys and values and of their gradients (apart, so
// that they never queue behind a stage's or each other's).
constexpr uint32_t kMainStream = 0, kSendStream = 1, kRecvStream = 2, kGradientStream = 3;
constexpr uint32_t kRingSendStream = 4, kRingRecvStream = 5;
constexpr uint32_t kRingGradientSendStream = 6, kRingGradientRecvStream = 7;
// Ring attention's tags, above every stage-to-stage tag (2k and 2k + 1 for chunk k).
constexpr uint64_t kContextTag = uint64_t{1} << 40;

// Appends nodes to one rank's program; a node's id is its position.
struct ProgramWriter {
  std::vector<GraphNode>& program;
  uint32_t Add(GraphNodeKind kind, GraphPhase phase, uint32_t layer, uint32_t stream) {
    GraphNode& node = program.emplace_back();
    node.id = program.size() - 1;
    node.kind = kind;
    node.phase = phase;
    node.layer = layer;
    node.stream = stream;
    return static_cast<uint32_t>(node.id);
  }
  uint32_t Compute(GraphPhase phase, uint32_t layer, double duration_ns, bool continues) {
    const uint32_t at = Add(GraphNodeKind::kCompute, phase, layer, kMainStream);
    program[at].duration_ns = duration_ns;
    program[at].continues_step = continues;
    return at;
  }
  // One node, or two for a split all-reduce (training-graph.h, SplitKinds); returns the last.
  uint32_t Collective(GraphPhase phase, uint32_t layer, const CommRequest& request, uint32_t stream,
                      bool continues) {
    uint32_t at = 0;
    for (const CollectiveKind kind : SplitKinds(request)) {
      at = Add(GraphNodeKind::kCollective, phase, layer, stream);
      SetCollective(program[at], kind, request);
      program[at].continues_step = continues;
      continues = continues || request.split;  // the second half follows the first
    }
    return at;
  }
  uint32_t PointToPoint(GraphNodeKind kind, uint32_t peer, uint64_t tag, uint64_t bytes,
                        uint32_t stream) {
    const uint32_t at = Add(kind, GraphPhase::kCollective, kNoLayer, stream);
    program[at].peer = peer;
    program[at].tag = tag;
    program[at].size_bytes = bytes;
    return at;
  }
};

}  // namespace

std::array<uint32_t, kParallelAxes> AxisDegrees(const TrainingConfig& config,
                                                const PipelineLayout& layout) {
  return {config.tensor_parallel, config.context_parallel, config.expert_parallel,
          config.data_parallel / config.expert_parallel, layout.pipeline};
}

std::array<uint64_t, kParallelAxes> AxisStrides(const TrainingConfig& config,
                                                const PipelineLayout& layout) {
  const std::array<uint32_t, kParallelAxes> degrees = AxisDegrees(config, layout);
  std::array<uint64_t, kParallelAxes> stride{};
  uint64_t next = 1;
  for (const ParallelAxis axis : layout.order) {
    stride[static_cast<size_t>(axis)] = next;
    next *= degrees[static_cast<size_t>(axis)];
  }
  return stride;
}

std::vector<uint32_t> BalancedChunks(const std::vector<double>& cost, uint32_t chunks) {
  const auto n = static_cast<uint32_t>(cost.size());
  double total = 0.0, largest = 0.0;
  for (const double c : cost) {
    total += c;
    largest = std::max(largest, c);
  }
  std::vector<double> counted;
  const std::vector<double>* weights = &cost;
  if (total <= 0.0) {  // nothing to balance: count layers
    counted.assign(n, 1.0);
    weights = &counted;
    total = n;
    largest = 1.0;
  }
  // Fills chunks left to right up to `limit` each, leaving a layer for every chunk still to
  // come; returns the boundaries, empty when the last chunk would exceed the limit.
  auto fill = [&](double limit) {
    std::vector<uint32_t> bounds{0};
    uint32_t i = 0;
    for (uint32_t k = 0; k + 1 < chunks; ++k) {
      double load = 0.0;
      const uint32_t last_allowed = n - (chunks - k - 1);  // exclusive
      while (i < last_allowed && (i == bounds.back() || load + (*weights)[i] <= limit)) {
        load += (*weights)[i++];
      }
      bounds.push_back(i);
    }
    double rest = 0.0;
    for (uint32_t j = i; j < n; ++j) rest += (*weights)[j];
    if (rest > limit) return std::vector<uint32_t>{};
    bounds.push_back(n);
    return bounds;
  };
  // The smallest feasible limit lies in [max(largest, total / chunks), total]: bisect it.
  double low = std::max(largest, total / chunks), high = total;
  std::vector<uint32_t> best = fill(high);
  for (int step = 0; step < 64 && high - low > 1e-12 * high; ++step) {
    const double mid = 0.5 * (low + high);
    std::vector<uint32_t> bounds = fill(mid);
    if (bounds.empty()) {
      low = mid;
    } else {
      high = mid;
      best = std::move(bounds);
    }
  }
  return best;
}

std::vector<uint32_t> PipelineChunks(const Model& model, const TrainingConfig& config,
                                     uint32_t chunks) {
  const auto layers = static_cast<uint32_t>(model.layers.size());
  if (chunks == 1) return {0, layers};  // the loader's memory estimate, for every job
  const TrainingIteration iteration = BuildTrainingIteration(model, config);
  std::vector<double> cost;
  cost.reserve(iteration.layers.size());
  for (const LayerWork& layer : iteration.layers) {
    cost.push_back(layer.forward_ns + layer.input_grad_ns + layer.weight_grad_ns);
  }
  return BalancedChunks(cost, chunks);
}

std::variant<ExecutionGraph, std::string> PipelineTrainingGraph(const Model& model,
                                                                const TrainingConfig& config,
                                                                const PipelineLayout& layout,
                                                                const Topology& topology,
                                                                uint64_t max_nodes) {
  const uint32_t tensor = config.tensor_parallel, data = config.data_parallel;
  const uint32_t context = config.context_parallel;
  const uint32_t p = layout.pipeline, m = layout.micro_batches, v = layout.virtual_stages;
  if (p == 0 || m == 0 || v == 0 || tensor == 0 || data == 0 || context == 0) {
    return std::string("every degree, the micro-batch count and the virtual stages must be >= 1");
  }
  const uint64_t ranks = uint64_t{tensor} * context * data * p;
  if (ranks != topology.NpuCount()) {
    return fmt::format(
        "tensor ({}) x context ({}) x data ({}) x pipeline ({}) = {}, but the fabric has {} NPUs",
        tensor, context, data, p, ranks, topology.NpuCount());
  }
  if (!layout.placement.empty()) {
    std::vector<bool> placed(ranks, false);
    for (const uint32_t npu : layout.placement) {
      if (layout.placement.size() != ranks || npu >= ranks || placed[npu]) {
        return fmt::format("the placement must list each of the {} NPUs once", ranks);
      }
      placed[npu] = true;
    }
  }
  if (context > 1 && config.expert_parallel > 1) {
    return std::string("context parallelism with expert parallelism is not modelled");
  }
  for (const Layer& layer : model.layers) {
    if (context > 1 && layer.kv_elements_per_sample > 0 &&
        (layer.forward_ns || layer.input_grad_ns)) {
      return fmt::format(
          "layer \"{}\" gives measured times, which cannot be cut into ring "
          "attention's blocks",
          layer.name);
    }
  }
  if (v > 1 && layout.schedule != PipelineSchedule::kInterleaved) {
    return std::string("virtual stages above 1 need the interleaved schedule");
  }
  if (layout.schedule == PipelineSchedule::kInterleaved && m % p != 0) {
    return fmt::format(
        "the interleaved schedule runs micro-batches in groups of the pipeline "
        "depth: {} micro-batches is not a multiple of {}",
        m, p);
  }
  const uint32_t chunks = p * v;
  const auto layer_count = static_cast<uint32_t>(model.layers.size());
  if (layer_count < chunks) {
    return fmt::format("{} layers cannot fill {} pipeline chunks (pipeline {} x virtual stages {})",
                       layer_count, chunks, p, v);
  }
  if (config.global_batch_samples % (uint64_t{m} * data) != 0) {
    return fmt::format(
        "a batch of {} samples does not split into {} data-parallel replicas x {} "
        "micro-batches",
        config.global_batch_samples, data, m);
  }
  if (config.zero_stage > 1) {
    return fmt::format(
        "ZeRO stage {} shards gradients, which a pipeline accumulates over its micro-batches; "
        "accepted with a pipeline: stage 0 or 1 (DeepSpeed refuses the same)",
        config.zero_stage);
  }
  // One micro-batch's work per rank: the loop's formulas with the micro-batch as the batch.
  TrainingConfig micro_config = config;
  micro_config.global_batch_samples = config.global_batch_samples / m;
  TrainingIteration micro = BuildTrainingIteration(model, micro_config);
  // Measured times and explicit activation collectives are given per iteration: each
  // micro-batch takes its share (explicit sizes rounded up to a byte).
  for (uint32_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    LayerWork& work = micro.layers[i];
    if (layer.forward_ns) work.forward_ns = *layer.forward_ns / m;
    if (layer.input_grad_ns) work.input_grad_ns = *layer.input_grad_ns / m;
    if (layer.weight_grad_ns) work.weight_grad_ns = *layer.weight_grad_ns / m;
    if (layer.forward_comm && work.forward_comm) {
      work.forward_comm->size_bytes = (layer.forward_comm->size_bytes + m - 1) / m;
    }
    if (layer.input_grad_comm && work.input_grad_comm) {
      work.input_grad_comm->size_bytes = (layer.input_grad_comm->size_bytes + m - 1) / m;
    }
  }
  const uint64_t micro_samples = micro_config.global_batch_samples / data;
  // Bytes a chunk ending with layer i passes on per micro-batch (and gets back as gradient):
  // the layer's whole output, from every tensor rank.
  auto boundary_bytes = [&](uint32_t i) {
    const uint64_t whole = micro_samples * model.layers[i].output_elements_per_sample *
                           config.activation_bytes_per_element;
    return (whole + context - 1) / context;  // a context rank's share of the tokens
  };
  const std::vector<uint32_t> boundary = PipelineChunks(model, config, chunks);
  auto first_layer = [&](uint32_t k) { return boundary[k]; };

  // Buckets never span two chunks: each chunk's gradients are ready at a different time.
  for (uint32_t k = 0; k < chunks; ++k) {
    BucketGradients(micro.layers, first_layer(k), first_layer(k + 1), config.bucket_bytes);
  }

  ExecutionGraph graph;
  graph.rank_count = static_cast<uint32_t>(topology.NpuCount());
  for (const Dimension& dim : topology.Dimensions()) graph.dimension_sizes.push_back(dim.size);
  for (const Layer& layer : model.layers) graph.layers.push_back(layer.name);
  // Rank ids in the layout's order. A data index d is e + E d' (its expert rank e, its copy d').
  const uint32_t experts = config.expert_parallel;
  const std::array<uint64_t, kParallelAxes> stride = AxisStrides(config, layout);
  auto stride_of = [&](ParallelAxis axis) { return stride[static_cast<size_t>(axis)]; };
  // An explicit placement then puts rank id r on NPU placement[r].
  auto rank_of = [&](uint32_t t, uint32_t c, uint32_t d, uint32_t s) {
    const auto id = static_cast<uint32_t>(
        t * stride_of(ParallelAxis::kTensor) + c * stride_of(ParallelAxis::kContext) +
        d % experts * stride_of(ParallelAxis::kExpert) +
        d / experts * stride_of(ParallelAxis::kData) + s * stride_of(ParallelAxis::kPipeline));
    return layout.placement.empty() ? id : layout.placement[id];
  };
  // Communicators in ParallelGroup's order (SetCollective): the expert ones only with expert
  // parallelism. The data index is d = e + E d': e picks the rank's experts (by default
  // faster, as Megatron-core's expert groups are consecutive data ranks), d' its copy of them.
  // Groups list their ranks ascending.
  for (const char* name : {"data", "tensor", "expert", "expert_data"}) {
    if (graph.communicators.size() == 2 && experts == 1) break;
    graph.communicators.emplace_back().name = name;
  }
  for (uint32_t s = 0; s < p; ++s) {
    for (uint32_t t = 0; t < tensor; ++t) {
      auto& group = graph.communicators[0].groups.emplace_back();
      for (uint32_t c = 0; c < context; ++c) {
        for (uint32_t d = 0; d < data; ++d) group.push_back(rank_of(t, c, d, s));
      }
    }
    for (uint32_t c = 0; c < context; ++c) {
      for (uint32_t d = 0; d < data; ++d) {
        auto& group = graph.communicators[1].groups.emplace_back();
        for (uint32_t t = 0; t < tensor; ++t) group.push_back(rank_of(t, c, d, s));
      }
    }
    if (experts == 1) continue;  // and context is 1
    for (uint32_t t = 0; t < tensor; ++t) {
      for (uint32_t copy = 0; copy < data / experts; ++copy) {
        auto& group = graph.communicators[2].groups.emplace_back();
        for (uint32_t e = 0; e < experts; ++e) {
          group.push_back(rank_of(t, 0, e + experts * copy, s));
        }
      }
      for (uint32_t e = 0; e < experts; ++e) {
        auto& group = graph.communicators[3].groups.emplace_back();
        for (uint32_t copy = 0; copy < data / experts; ++copy) {
          group.push_back(rank_of(t, 0, e + experts * copy, s));
        }
      }
    }
  }

  const bool overlap = config.overlap == OverlapMode::kBackward;
  for (Communicator& comm : graph.communicators) {
    for (auto& group : comm.groups) std::sort(group.begin(), group.end());
  }
  // One program per stage and context index, shared by its T x D ranks: written for its first
  // (lowest) rank, and the i-th rank of one class talks to the i-th of the next stage's, or of
  // its ring neighbour's, which must be the rank with the same t and d. Composed ranks keep
  // that order in every class (each is the first's shifted by a stride); an explicit placement
  // may not, and then every rank gets a program of its own.
  const uint64_t members = uint64_t{tensor} * data;
  // Per class, its NPUs ascending with each one's tensor and data index (t + T d).
  auto members_of = [&](uint32_t s, uint32_t c) {
    std::vector<std::pair<uint32_t, uint32_t>> ranks;
    ranks.reserve(members);
    for (uint32_t dd = 0; dd < data; ++dd) {
      for (uint32_t tt = 0; tt < tensor; ++tt) {
        ranks.emplace_back(rank_of(tt, c, dd, s), tt + tensor * dd);
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
    const std::vector<Step> steps = StageSchedule(layout, s);
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
        ProgramWriter out{rank_class.program};
        auto& program = rank_class.program;
        // Ring attention's neighbours: keys and values go to the next context rank.
        const uint32_t ring_next = rank_of(t, (c + 1) % context, d, s);
        const uint32_t ring_previous = rank_of(t, (c + context - 1) % context, d, s);
        // The attention core of layer i in C blocks, after node `ready` (forward: the rest of
        // the layer's compute; backward: a mark where the layer's backward starts). Block j
        // waits for the j-th key/value block, which its predecessor passed on as soon as it held
        // it (tag 4i forward, 4i + 1 backward), so each hop hides behind the block computing
        // before it. Backward also passes each block's key/value gradients, summed so far, one
        // step behind (4i + 2): a rank adds its block's and passes them on, and the C-th hop
        // brings them home, where the layer's remaining backward waits for them. Returns the
        // last node: the last block, or backward the gradients' arrival home.
        auto attention_ring = [&](bool forward, uint32_t i, uint32_t ready) {
          const LayerWork& work = micro.layers[i];
          const GraphPhase phase = forward ? GraphPhase::kForward : GraphPhase::kInputGrad;
          const double block =
              (forward ? work.attention_forward_ns : work.attention_input_grad_ns) / context;
          const uint64_t tag = kContextTag + 4 * uint64_t{i} + (forward ? 0 : 1);
          const uint64_t bytes = work.context_kv_bytes;
          uint32_t held = ready, last = ready, gradients = UINT32_MAX;
          for (uint32_t j = 0; j < context; ++j) {
            last = out.Compute(phase, i, block, false);
            if (j > 0) program[last].deps.push_back(held);  // the block it computes on
            if (j + 1 < context) {
              const uint32_t sent =
                  out.PointToPoint(GraphNodeKind::kSend, ring_next, tag, bytes, kRingSendStream);
              program[sent].deps.push_back(held);
              held = out.PointToPoint(GraphNodeKind::kRecv, ring_previous, tag, bytes,
                                      kRingRecvStream);
            }
            if (forward) continue;
            const uint32_t sent = out.PointToPoint(GraphNodeKind::kSend, ring_next, tag + 1, bytes,
                                                   kRingGradientSendStream);
            program[sent].deps.push_back(last);
            if (gradients != UINT32_MAX) program[sent].deps.push_back(gradients);
            gradients = out.PointToPoint(GraphNodeKind::kRecv, ring_previous, tag + 1, bytes,
                                         kRingGradientRecvStream);
          }
          return forward ? last : gradients;
        };
        // Per layer of this stage: the position of its last weight-gradient compute.
        std::vector<uint32_t> last_weight_grad(layer_count, UINT32_MAX);
        for (const Step& step : steps) {
          const uint32_t k = step.chunk * p + s;  // the model chunk
          const uint32_t lo = first_layer(k), hi = first_layer(k + 1);
          // Activations into chunk k travel with tag 2k, gradients out of chunk k with 2k + 1.
          const uint32_t previous_rank = rank_of(t, c, d, (k + chunks - 1) % chunks % p);
          const uint32_t next_rank = rank_of(t, c, d, (k + 1) % p);
          uint32_t received = UINT32_MAX;
          auto wait_for_receive = [&](uint32_t at) {
            if (received != UINT32_MAX) program[at].deps.push_back(received);
            received = UINT32_MAX;
          };
          if (step.forward) {
            if (k > 0) {
              received = out.PointToPoint(GraphNodeKind::kRecv, previous_rank, 2 * k,
                                          boundary_bytes(lo - 1), kRecvStream);
            }
            uint32_t last = UINT32_MAX;
            for (uint32_t i = lo; i < hi; ++i) {
              const LayerWork& work = micro.layers[i];
              const bool ring = work.context_kv_bytes > 0;
              last = out.Compute(GraphPhase::kForward, i,
                                 work.forward_ns - (ring ? work.attention_forward_ns : 0.0), false);
              wait_for_receive(last);
              if (ring) last = attention_ring(true, i, last);
              if (work.forward_comm) {
                last =
                    out.Collective(GraphPhase::kForward, i, *work.forward_comm, kMainStream, !ring);
              }
              if (work.forward_expert) {
                last = out.Collective(GraphPhase::kForward, i, *work.forward_expert, kMainStream,
                                      true);
              }
            }
            if (k + 1 < chunks) {
              const uint32_t sent = out.PointToPoint(GraphNodeKind::kSend, next_rank, 2 * (k + 1),
                                                     boundary_bytes(hi - 1), kSendStream);
              program[sent].deps.push_back(last);
            }
          } else {
            if (k + 1 < chunks) {
              received = out.PointToPoint(GraphNodeKind::kRecv, next_rank, 2 * (k + 1) + 1,
                                          boundary_bytes(hi - 1), kRecvStream);
            }
            uint32_t last = UINT32_MAX;
            for (uint32_t i = hi; i-- > lo;) {
              const LayerWork& work = micro.layers[i];
              const bool ring = work.context_kv_bytes > 0;
              bool continues = false;
              if (ring) {
                // The attention core's blocks first, then the rest once the key/value gradients
                // are home.
                const uint32_t start = out.Compute(GraphPhase::kInputGrad, i, 0.0, false);
                wait_for_receive(start);
                const uint32_t home = attention_ring(false, i, start);
                last = out.Compute(GraphPhase::kInputGrad, i,
                                   work.input_grad_ns - work.attention_input_grad_ns, false);
                program[last].deps.push_back(home);
              } else {
                last = out.Compute(GraphPhase::kInputGrad, i, work.input_grad_ns, false);
                wait_for_receive(last);
                continues = true;
              }
              if (work.input_grad_comm) {
                last = out.Collective(GraphPhase::kInputGrad, i, *work.input_grad_comm, kMainStream,
                                      continues);
              }
              if (work.input_grad_expert) {
                last = out.Collective(GraphPhase::kInputGrad, i, *work.input_grad_expert,
                                      kMainStream, true);
              }
              last = out.Compute(GraphPhase::kWeightGrad, i, work.weight_grad_ns, continues);
              last_weight_grad[i] = last;
            }
            if (k > 0) {
              const uint32_t sent = out.PointToPoint(GraphNodeKind::kSend, previous_rank, 2 * k + 1,
                                                     boundary_bytes(lo - 1), kSendStream);
              program[sent].deps.push_back(last);
            }
          }
        }
        // Gradients, once per iteration, last layer first (the order backward finishes them):
        // the layer's own over the data group, its routed experts' over the expert-data group.
        uint32_t last_gradient = UINT32_MAX;
        for (uint32_t i = layer_count; i-- > 0;) {
          const LayerWork& work = micro.layers[i];
          if (last_weight_grad[i] == UINT32_MAX) continue;
          for (const auto* request : {&work.weight_grad_comm, &work.expert_grad_comm}) {
            if (!*request) continue;
            const uint32_t at = out.Collective(GraphPhase::kWeightGrad, i, **request,
                                               overlap ? kGradientStream : kMainStream, false);
            if (overlap) program[at].deps.push_back(last_weight_grad[i]);
            last_gradient = at;
          }
        }
        // ZeRO-1/2: after the step, the updated parameters gathered on the main stream (after all
        // its nodes, by its order), once every gradient is reduced.
        for (uint32_t i = 0; i < layer_count; ++i) {
          const LayerWork& work = micro.layers[i];
          if (last_weight_grad[i] == UINT32_MAX) continue;
          for (const auto* request : {&work.step_gather, &work.expert_step_gather}) {
            if (!*request) continue;
            const uint32_t at =
                out.Collective(GraphPhase::kWeightGrad, i, **request, kMainStream, false);
            if (overlap && last_gradient != UINT32_MAX) {
              program[at].deps.push_back(last_gradient);
            }
            last_gradient = UINT32_MAX;
          }
        }
        // Programs of their own for every rank: refused past the node budget, estimated from the
        // first program before the others are written.
        if (!shared && graph.classes.size() == 1 &&
            rank_class.program.size() * uint64_t{graph.rank_count} > max_nodes) {
          return fmt::format(
              "the placement puts stages' ranks in different orders, so every rank needs a "
              "program of its own, and the graph would hold about {} nodes, above {}; accepted: a "
              "placement that keeps each stage's ranks in the same order of tensor and data "
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

}  // namespace hfsim
