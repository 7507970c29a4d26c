#include "workloads/graph/training-graph.h"

#include <numeric>
#include <stdexcept>

namespace hfsim {

namespace {

// Writes nodes into a program sized beforehand: a training graph has thousands of nodes and
// sweeps build it once per evaluation, so each node is written once, in place.
struct ProgramWriter {
  GraphNode* next;
  uint32_t position = 0;
  uint32_t last_main = UINT32_MAX;  // previous node on stream 0
  uint32_t last_background = UINT32_MAX;  // previous gradient collective on stream 1

  void Compute(GraphPhase phase, uint32_t layer, double duration_ns, bool continues = false) {
    GraphNode& node = Add(phase, layer, 0, continues);
    node.kind = GraphNodeKind::kCompute;
    node.duration_ns = duration_ns;
  }
  void Collective(GraphPhase phase, uint32_t layer, const CommRequest& request, uint32_t stream,
                  bool continues = false) {
    for (const CollectiveKind kind : SplitKinds(request)) {
      SetCollective(Add(phase, layer, stream, continues), kind, request);
      continues = continues || request.split;  // the second half follows the first
    }
  }
  // A collective on its own stream, issued when the main stream reaches this point (ZeRO-3's
  // prefetched parameter gathers); returns its position.
  uint32_t Ahead(GraphPhase phase, uint32_t layer, const CommRequest& request, uint32_t stream) {
    SetCollective(Add(phase, layer, stream, false), request.kind, request);
    return position - 1;
  }
  // Each node waits for the main stream's previous node: the program is sequential except for
  // what runs on the background streams, which wait for the compute that made their data (and,
  // by their stream, for the node before them on it).
  GraphNode& Add(GraphPhase phase, uint32_t layer, uint32_t stream, bool continues) {
    GraphNode& node = *next++;
    node.id = position;
    node.phase = phase;
    node.layer = layer;
    node.stream = stream;
    node.continues_step = continues;
    if (last_main != UINT32_MAX) node.deps.push_back(last_main);
    if (stream == 0) last_main = position;
    if (stream == 1) last_background = position;
    ++position;
    return node;
  }
};

Communicator CommunicatorAlong(std::string name, const std::vector<uint32_t>& dimensions) {
  Communicator comm;
  comm.name = std::move(name);
  comm.dimensions = dimensions;
  return comm;
}

// The groups of one side of a split: along each dimension a coordinate is tensor index + t x data
// index; a tensor group shares every data index, a data group every tensor index. Groups are
// numbered by the shared indices (a mixed-radix number), ranks ascending within each.
Communicator SplitCommunicator(std::string name, const Topology& topology,
                               const std::vector<uint32_t>& tensor_per_dimension, bool tensor) {
  Communicator comm;
  comm.name = std::move(name);
  uint64_t group_count = 1;
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const uint32_t t = tensor_per_dimension[d];
    group_count *= tensor ? topology.Dim(d).size / t : t;
  }
  comm.groups.resize(group_count);
  for (uint64_t rank = 0; rank < topology.NpuCount(); ++rank) {
    uint64_t group = 0, radix = 1;
    for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
      const uint32_t t = tensor_per_dimension[d];
      const uint32_t c = topology.Coordinate(rank, d);
      const uint32_t shared = tensor ? c / t : c % t;  // the index the group's members share
      group += shared * radix;
      radix *= tensor ? topology.Dim(d).size / t : t;
    }
    comm.groups[group].push_back(static_cast<uint32_t>(rank));
  }
  return comm;
}

// Every rank runs the one program; the graph is read against the fabric's dimension sizes.
ExecutionGraph SymmetricGraph(const Topology& topology) {
  ExecutionGraph graph;
  graph.rank_count = static_cast<uint32_t>(topology.NpuCount());
  for (const Dimension& dim : topology.Dimensions()) graph.dimension_sizes.push_back(dim.size);
  RankClass& all = graph.classes.emplace_back();
  all.ranks.resize(topology.NpuCount());
  std::iota(all.ranks.begin(), all.ranks.end(), 0u);
  return graph;
}

}  // namespace

ExecutionGraph TrainingGraph(TrainingIteration iteration, const Topology& topology,
                             const std::vector<uint32_t>& data_dimensions,
                             const std::vector<uint32_t>& tensor_dimensions,
                             const std::vector<uint32_t>& tensor_per_dimension) {
  ExecutionGraph graph = SymmetricGraph(topology);
  if (tensor_per_dimension.empty()) {
    graph.communicators.push_back(CommunicatorAlong("data", data_dimensions));
    graph.communicators.push_back(CommunicatorAlong("tensor", tensor_dimensions));
  } else {
    graph.communicators.push_back(SplitCommunicator("data", topology, tensor_per_dimension, false));
    graph.communicators.push_back(SplitCommunicator("tensor", topology, tensor_per_dimension, true));
  }
  size_t node_count = 0;
  graph.layers.reserve(iteration.layers.size());
  auto nodes_of = [](const std::optional<CommRequest>& comm) -> size_t {
    return comm ? SplitKinds(*comm).size() : 0;
  };
  for (LayerWork& layer : iteration.layers) {
    if (layer.forward_expert || layer.expert_grad_comm) {
      throw std::invalid_argument("TrainingGraph: expert parallelism runs in PipelineTrainingGraph");
    }
    graph.layers.push_back(std::move(layer.name));
    node_count += 3 + nodes_of(layer.forward_comm) + nodes_of(layer.input_grad_comm) +
                  nodes_of(layer.weight_grad_comm) + nodes_of(layer.forward_gather) +
                  nodes_of(layer.backward_gather) + nodes_of(layer.step_gather);
  }
  std::vector<GraphNode>& program = graph.classes[0].program;
  program.resize(node_count);
  ProgramWriter writer{program.data()};
  const uint32_t layers = static_cast<uint32_t>(iteration.layers.size());
  const std::vector<LayerWork>& work = iteration.layers;
  // ZeRO-3's parameter gathers. Prefetched, they run on stream 2, one layer ahead: a layer's
  // gather is issued when the compute of the layer before it (in the pass's order) starts, and
  // the layer's compute waits for it. Otherwise each runs on the main stream just before its
  // layer. `gathered[i]`: the position of layer i's gather in the current pass.
  constexpr uint32_t kGatherStream = 2;
  std::vector<uint32_t> gathered(layers, UINT32_MAX);
  auto gather = [&](uint32_t i, bool forward) {
    const std::optional<CommRequest>& request =
        forward ? work[i].forward_gather : work[i].backward_gather;
    if (!request || gathered[i] != UINT32_MAX) return;
    if (iteration.prefetch_parameters) {
      gathered[i] = writer.Ahead(GraphPhase::kCollective, i, *request, kGatherStream);
    } else {
      writer.Collective(GraphPhase::kCollective, i, *request, 0);
    }
  };
  // Before layer i's compute in a pass: its own gather, and with prefetch the next one's.
  auto gathers_before = [&](uint32_t i, bool forward) {
    gather(i, forward);
    if (!iteration.prefetch_parameters) return;
    if (forward) {
      for (uint32_t j = i + 1; j < layers; ++j) {
        if (work[j].forward_gather) {
          gather(j, true);
          break;
        }
      }
    } else {
      for (uint32_t j = i; j-- > 0;) {
        if (work[j].backward_gather) {
          gather(j, false);
          break;
        }
      }
    }
  };
  auto wait_for_gather = [&](uint32_t i) {
    if (gathered[i] != UINT32_MAX) program[writer.position - 1].deps.push_back(gathered[i]);
  };
  for (uint32_t i = 0; i < layers; ++i) {
    const LayerWork& layer = work[i];
    gathers_before(i, true);
    writer.Compute(GraphPhase::kForward, i, layer.forward_ns);
    wait_for_gather(i);
    if (layer.forward_comm) writer.Collective(GraphPhase::kForward, i, *layer.forward_comm, 0, true);
  }
  std::fill(gathered.begin(), gathered.end(), UINT32_MAX);
  const uint32_t gradient_stream = iteration.overlap == OverlapMode::kNone ? 0 : 1;
  for (uint32_t i = layers; i-- > 0;) {
    const LayerWork& layer = work[i];
    gathers_before(i, false);
    writer.Compute(GraphPhase::kInputGrad, i, layer.input_grad_ns);
    wait_for_gather(i);
    if (layer.input_grad_comm) {
      writer.Collective(GraphPhase::kInputGrad, i, *layer.input_grad_comm, 0, true);
    }
    writer.Compute(GraphPhase::kWeightGrad, i, layer.weight_grad_ns, true);
    if (layer.weight_grad_comm) {
      writer.Collective(GraphPhase::kWeightGrad, i, *layer.weight_grad_comm, gradient_stream);
    }
  }
  // ZeRO-1/2: once every gradient is reduced and the step taken, the updated parameters are
  // gathered, layer by layer (bucket by bucket), before the next iteration can start.
  bool first_gather = true;
  for (uint32_t i = 0; i < layers; ++i) {
    if (!work[i].step_gather) continue;
    writer.Collective(GraphPhase::kWeightGrad, i, *work[i].step_gather, 0);
    if (first_gather && writer.last_background != UINT32_MAX) {
      program[writer.position - 1].deps.push_back(writer.last_background);
    }
    first_gather = false;
  }
  return graph;
}

ExecutionGraph CollectiveGraph(CollectiveKind kind, uint64_t size_bytes, const Topology& topology,
                               const std::vector<uint32_t>& dimensions) {
  ExecutionGraph graph = SymmetricGraph(topology);
  graph.communicators.push_back(CommunicatorAlong("all", dimensions));
  GraphNode node;
  node.kind = GraphNodeKind::kCollective;
  node.phase = GraphPhase::kCollective;
  node.collective = kind;
  node.size_bytes = size_bytes;
  graph.classes[0].program.push_back(std::move(node));
  return graph;
}

}  // namespace hfsim
