// The scenario loader: top level, topology and communication sections, and the cross-checks
// that need several sections at once. The workload section is in workload-section.cc.
#include "sim/scenario/scenario-parser.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "models/multi-dim-collective.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/scenario/aggregation-section.h"
#include "sim/scenario/compression-section.h"
#include "sim/scenario/in-network-check.h"
#include "sim/scenario/json-cursor.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/optimize-section.h"
#include "sim/scenario/packet-section.h"
#include "sim/scenario/parameter-server-section.h"
#include "sim/scenario/pipeline-section.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/sweep-section.h"
#include "sim/scenario/workload-section.h"
#include "topologies/topology.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {

namespace {

// A Clos dimension's leaves and spines (docs/scenario.md §3.1): NPUs per leaf dividing the size
// into at least 2 leaves, 1 to leaf_npus spines, an oversubscription of at least 1. The keys
// belong to Clos dimensions only.
void ReadClosShape(const JsonCursor& entry, Dimension& dim) {
  if (dim.kind != DimensionKind::kClos) {
    for (const char* key : {"leaf_npus", "spines", "oversubscription"}) {
      if (auto v = entry.Find(key)) {
        v->Fail(fmt::format("given for a {} dimension; accepted: only with \"kind\": \"Clos\"",
                            ToString(dim.kind)));
      }
    }
    return;
  }
  const JsonCursor leaf =
      entry.At("leaf_npus", "an integer number of NPUs per leaf switch that divides \"size\"");
  dim.leaf_npus = static_cast<uint32_t>(leaf.Integer(1, dim.size / 2));
  if (dim.size % dim.leaf_npus != 0) {
    leaf.Fail(
        fmt::format("got {}, which does not divide the size {}; accepted: a divisor of {} "
                    "of at most {} (at least 2 leaves)",
                    dim.leaf_npus, dim.size, dim.size, dim.size / 2));
  }
  dim.spines = static_cast<uint32_t>(
      entry.At("spines", "an integer number of spine switches, at most \"leaf_npus\"")
          .Integer(1, dim.leaf_npus));
  dim.oversubscription = 1.0;
  if (auto v = entry.Find("oversubscription")) {
    // Below 1 a leaf could send up more than its NPUs send it: not a Clos anyone builds.
    dim.oversubscription = v->Number(1.0, 1024.0, false);
  }
}

std::vector<Dimension> ReadTopology(const JsonCursor& topology) {
  topology.ExpectObject({"dimensions"});
  const JsonCursor list = topology.At("dimensions", "an array of dimension objects");
  std::vector<Dimension> dimensions;
  uint64_t npus = 1;
  for (const JsonCursor& entry : list.Elements(1, ScenarioLimits::kMaxDimensions)) {
    entry.ExpectObject({"kind", "size", "bandwidth_GBps", "latency_ns", "leaf_npus", "spines",
                        "oversubscription"});
    Dimension dim;
    const JsonCursor kind =
        entry.At("kind", "\"Ring\", \"FullyConnected\", \"Switch\" or \"Clos\"");
    dim.kind =
        static_cast<DimensionKind>(kind.Choice({"Ring", "FullyConnected", "Switch", "Clos"}));
    const JsonCursor size = entry.At("size", "an integer number of NPUs, at least 2");
    const uint64_t max_size = dim.kind == DimensionKind::kFullyConnected
                                  ? ScenarioLimits::kMaxFullyConnectedSize
                                  : ScenarioLimits::kMaxDimensionSize;
    dim.size = static_cast<uint32_t>(size.Integer(2, max_size));
    // GB/s with 1 GB = 1e9 B is numerically bytes per ns.
    dim.bandwidth_Bpns =
        entry.At("bandwidth_GBps", "a positive number (GB/s per NPU)")
            .Number(ScenarioLimits::kMinBandwidthGBps, ScenarioLimits::kMaxBandwidthGBps, false);
    dim.latency_ns = entry.At("latency_ns", "a number of ns, 0 or more")
                         .Number(0.0, ScenarioLimits::kMaxLatencyNs, false);
    ReadClosShape(entry, dim);
    if (npus * dim.size > ScenarioLimits::kMaxNpus) {
      size.Fail(
          fmt::format("the fabric would have more than {} NPUs (product of sizes up to here: "
                      "{} x {}); accepted: a total of at most {} NPUs",
                      ScenarioLimits::kMaxNpus, npus, dim.size, ScenarioLimits::kMaxNpus));
    }
    npus *= dim.size;
    dimensions.push_back(dim);
  }
  return dimensions;
}

// Algorithms a dimension gets unless the scenario says otherwise: direct on FullyConnected
// dimensions (a ring there would use one of n-1 links), ring elsewhere. Both run every kind.
CollectiveAlgorithm DefaultAlgorithm(const Dimension& dim) {
  return dim.kind == DimensionKind::kFullyConnected ? CollectiveAlgorithm::kDirect
                                                    : CollectiveAlgorithm::kRing;
}

CollectiveAlgorithm ReadAlgorithm(const JsonCursor& cursor) {
  return static_cast<CollectiveAlgorithm>(
      cursor.Choice({"ring", "direct", "halving_doubling", "double_binary_tree", "in_network"}));
}

// `communication.host_stack`: a kind's name, or {"kind": name, any field overriding the preset}
// (models/host-stack.h, docs/host-stack.md).
HostStack ReadHostStack(const JsonCursor& cursor) {
  const std::vector<std::string_view> kinds = {"none", "rdma", "rdma_copy", "grpc"};
  if (cursor.Node().is_string()) {
    return HostStack::Preset(static_cast<HostStackKind>(cursor.Choice(kinds)));
  }
  if (!cursor.Node().is_object()) {
    cursor.Fail(
        fmt::format("got {}; accepted: \"none\", \"rdma\", \"rdma_copy\", \"grpc\" "
                    "or an object {{\"kind\": one of those, fields overriding its preset}}",
                    cursor.Shown()));
  }
  cursor.ExpectObject({"kind", "send_per_message_ns", "receive_per_message_ns", "send_per_byte_ns",
                       "receive_per_byte_ns", "extra_round_trips"});
  const JsonCursor kind = cursor.At("kind", "\"none\", \"rdma\", \"rdma_copy\" or \"grpc\"");
  HostStack host = HostStack::Preset(static_cast<HostStackKind>(kind.Choice(kinds)));
  for (auto [key, field] :
       {std::pair<std::string_view, double*>{"send_per_message_ns", &host.send_per_message_ns},
        {"receive_per_message_ns", &host.receive_per_message_ns}}) {
    if (auto value = cursor.Find(key)) {
      *field = value->Number(0.0, ScenarioLimits::kMaxLatencyNs, false);
    }
  }
  for (auto [key, field] :
       {std::pair<std::string_view, double*>{"send_per_byte_ns", &host.send_per_byte_ns},
        {"receive_per_byte_ns", &host.receive_per_byte_ns}}) {
    if (auto value = cursor.Find(key)) *field = value->Number(0.0, kMaxHostPerByteNs, false);
  }
  if (auto trips = cursor.Find("extra_round_trips")) {
    host.extra_round_trips = static_cast<uint32_t>(trips->Integer(0, kMaxExtraRoundTrips));
  }
  return host;
}

CommunicationSpec ReadCommunication(const JsonCursor* section,
                                    const std::vector<Dimension>& dimensions) {
  CommunicationSpec spec;
  for (CollectiveKind kind : kAllCollectiveKinds) {
    auto& list = spec.algorithms[static_cast<size_t>(kind)];
    for (const Dimension& dim : dimensions) list.push_back(DefaultAlgorithm(dim));
  }
  if (section == nullptr) return spec;
  section->ExpectObject({"scheme", "chunks", "algorithms", "endpoint_delay_ns",
                         "reduction_memory_bandwidth_GBps", "host_overhead_ns_per_message",
                         "host_stack", "pricing", "active_chunks_per_dimension", "compression"});
  if (auto compression = section->Find("compression"))
    spec.compression = ReadCompression(*compression);
  if (auto pricing = section->Find("pricing")) {
    spec.pricing = static_cast<PricingModel>(pricing->Choice({"hfsim", "astra_sim"}));
    if (spec.pricing == PricingModel::kAstraSim) {
      for (size_t d = 0; d < dimensions.size(); ++d) {
        if (dimensions[d].kind == DimensionKind::kClos) {
          pricing->Fail(fmt::format(
              "got \"astra_sim\", whose model has no Clos (dimension {}); accepted with a Clos "
              "dimension: \"hfsim\"",
              d));
        }
      }
    }
  }
  if (auto active = section->Find("active_chunks_per_dimension")) {
    spec.active_chunks_per_dimension =
        static_cast<uint32_t>(active->Integer(1, ScenarioLimits::kMaxChunks));
  }
  if (auto scheme = section->Find("scheme")) {
    spec.scheme = static_cast<MultiDimScheme>(scheme->Choice({"hierarchical", "naive"}));
  }
  if (auto chunks = section->Find("chunks")) {
    spec.chunks = static_cast<uint32_t>(chunks->Integer(1, ScenarioLimits::kMaxChunks));
  }
  if (auto delay = section->Find("endpoint_delay_ns")) {
    spec.endpoint_delay_ns = delay->Number(0.0, ScenarioLimits::kMaxLatencyNs, false);
  }
  if (auto host = section->Find("host_overhead_ns_per_message")) {
    spec.host.send_per_message_ns = host->Number(0.0, ScenarioLimits::kMaxLatencyNs, false);
  }
  if (auto stack = section->Find("host_stack")) {
    // No precedence to guess: host_stack's send_per_message_ns is the same cost.
    if (section->Has("host_overhead_ns_per_message")) {
      stack->Fail(
          "cannot be given together with communication.host_overhead_ns_per_message; "
          "accepted: one of them (set \"send_per_message_ns\" in host_stack instead)");
    }
    spec.host = ReadHostStack(*stack);
  }
  if (auto reduction = section->Find("reduction_memory_bandwidth_GBps")) {
    spec.reduction_Bpns = reduction->Number(0.0, ScenarioLimits::kMaxBandwidthGBps, false);
    if (spec.reduction_Bpns > 0.0 && spec.reduction_Bpns < ScenarioLimits::kMinBandwidthGBps) {
      reduction->Fail(fmt::format("got {}; accepted: 0 (reductions are free) or from {} to {}",
                                  spec.reduction_Bpns, ScenarioLimits::kMinBandwidthGBps,
                                  ScenarioLimits::kMaxBandwidthGBps));
    }
  }
  if (auto algorithms = section->Find("algorithms")) {
    algorithms->ExpectObject({"all_reduce", "reduce_scatter", "all_gather", "all_to_all"});
    for (CollectiveKind kind : kAllCollectiveKinds) {
      auto entry = algorithms->Find(ToString(kind));
      if (!entry) continue;
      auto& list = spec.algorithms[static_cast<size_t>(kind)];
      if (entry->Node().is_string()) {
        // One name for every dimension.
        const CollectiveAlgorithm algorithm = ReadAlgorithm(*entry);
        for (auto& slot : list) slot = algorithm;
      } else {
        const auto elements = entry->Elements(dimensions.size(), dimensions.size());
        for (size_t d = 0; d < elements.size(); ++d) list[d] = ReadAlgorithm(elements[d]);
      }
      if (spec.pricing == PricingModel::kAstraSim) {
        for (CollectiveAlgorithm algorithm : list) {
          if (algorithm == CollectiveAlgorithm::kDoubleBinaryTree) {
            entry->Fail(
                "\"double_binary_tree\" has no astra_sim pricing; accepted with "
                "\"pricing\": \"astra_sim\": \"ring\", \"direct\", \"halving_doubling\"");
          }
        }
      }
    }
  }
  return spec;
}

// Checks that every stage of (kind over dims) can run with the chosen algorithms; the error
// names the algorithm's JSON path and the stage that cannot run.
// `shape` (a process group's, for graph workloads): the dimensions as the group sees them.
void CheckAlgorithmsFit(const JsonCursor& root, const Scenario& scenario, CollectiveKind kind,
                        const std::vector<uint32_t>& dims, std::string_view purpose,
                        const GroupShape* shape = nullptr) {
  const Topology topology(shape ? DimensionsSeenBy(scenario.dimensions, *shape)
                                : scenario.dimensions);
  const auto& algorithms = scenario.communication.AlgorithmsFor(kind);
  for (const CollectiveStage& stage :
       ComposeStages(kind, scenario.communication.scheme, dims, topology, algorithms)) {
    const uint32_t peers = topology.Dim(stage.dimension).size;
    if (auto reason = UnsupportedReason(stage.kind, stage.algorithm, peers)) {
      const std::string path =
          fmt::format("communication.algorithms.{}[{}]", ToString(kind), stage.dimension);
      // Name the exact entry the user wrote: the list element, the single name given for every
      // dimension, or (for defaults, which always fit) the section.
      std::string where = "communication.algorithms";
      const nlohmann::json* given = nullptr;
      if (root.Has("communication") && root.Child("communication").Has("algorithms") &&
          root.Child("communication").Child("algorithms").Has(ToString(kind))) {
        given = &root.Child("communication").Child("algorithms").Child(ToString(kind)).Node();
        where =
            given->is_string() ? fmt::format("communication.algorithms.{}", ToString(kind)) : path;
      }
      throw JsonPathError(
          where,
          fmt::format("\"{}\" cannot run the {} stage of the {} on dimension {} ({}): {}",
                      ToString(stage.algorithm), ToString(stage.kind), purpose, stage.dimension,
                      ToString(scenario.dimensions[stage.dimension].kind), *reason));
    }
  }
}

// A graph given (workload.graph) or generated (a pipeline), once every section is read (its
// structure was checked where it was read or made): every group's algorithms, then the
// schedule (no circular waits) and the groups' shapes, through the analytical engine's own
// compilation. Errors name `where`.
void CheckGraphFits(const JsonCursor& root, const Scenario& scenario, const ExecutionGraph& graph,
                    const std::string& where) {
  const Topology topology(scenario.dimensions);
  std::vector<std::pair<CollectiveKind, GroupShape>> checked;
  for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
    const GroupIndex index(graph, k);
    for (const RankClass& rank_class : graph.classes) {
      std::vector<const GraphNode*> calls;
      for (const GraphNode& node : rank_class.program) {
        if (node.kind == GraphNodeKind::kCollective && node.communicator == k)
          calls.push_back(&node);
      }
      if (calls.empty()) continue;
      std::set<uint32_t> groups_seen;  // each group's shape once
      for (const uint32_t rank : rank_class.ranks) {
        const uint32_t group = index.GroupOf(rank);
        if (!groups_seen.insert(group).second) continue;
        auto shape = ShapeOfGroup(topology, index.Members(rank));
        if (auto* reason = std::get_if<std::string>(&shape)) {
          throw JsonPathError(
              where, fmt::format("rank {}, node {}: the group of communicator "
                                 "\"{}\" holding the rank: {}",
                                 rank, calls.front()->id, graph.communicators[k].name, *reason));
        }
        // A group of one rank has nothing to exchange: no stage, no algorithm to fit.
        if (std::get<GroupShape>(shape).dimensions.empty()) continue;
        for (const GraphNode* node : calls) {
          std::pair<CollectiveKind, GroupShape> key{node->collective, std::get<GroupShape>(shape)};
          if (std::find(checked.begin(), checked.end(), key) != checked.end()) continue;
          CheckAlgorithmsFit(
              root, scenario, node->collective, key.second.dimensions,
              fmt::format("{} of node {} (rank {})", ToString(node->collective), node->id, rank),
              &key.second);
          checked.push_back(std::move(key));
        }
      }
    }
  }
  auto compiled = GraphPricing::Compile(scenario, graph, where);
  if (!compiled) throw JsonPathError(where, compiled.Error().message);
}

void CheckCollectivesFit(const JsonCursor& root, const Scenario& scenario) {
  if (scenario.workload_kind == WorkloadKind::kParameterServer ||
      scenario.workload_kind == WorkloadKind::kGossip) {
    CheckPointToPointWorkloadFits(root, scenario);
    return;
  }
  if (scenario.workload_kind == WorkloadKind::kCollective) {
    CheckAlgorithmsFit(root, scenario, scenario.collective.kind, scenario.collective.dimensions,
                       fmt::format("{} workload", ToString(scenario.collective.kind)));
    return;
  }
  if (scenario.workload_kind == WorkloadKind::kGraph) {
    CheckGraphFits(root, scenario, scenario.graph, "workload.graph");
    return;
  }
  const TrainingWorkload& training = scenario.training;
  if (training.MegatronLayout()) {
    auto graph = PipelineTrainingGraph(training.model, training.config, training.pipeline,
                                       Topology(scenario.dimensions), kMaxGeneratedGraphNodes);
    if (auto* reason = std::get_if<std::string>(&graph)) {
      throw JsonPathError("workload.training.parallelism", *reason);
    }
    CheckGraphFits(root, scenario, std::get<ExecutionGraph>(graph),
                   "workload.training.parallelism");
    return;
  }
  if (!training.tensor_per_dimension.empty()) {
    // Each group sees the dimensions it spans with its own share of their NPUs.
    GroupShape data, tensor;
    for (uint32_t d = 0; d < scenario.dimensions.size(); ++d) {
      const uint32_t t = training.tensor_per_dimension[d];
      const uint32_t n = scenario.dimensions[d].size;
      if (t > 1) tensor.dimensions.push_back(d), tensor.sizes.push_back(t);
      if (n / t > 1) data.dimensions.push_back(d), data.sizes.push_back(n / t);
    }
    if (training.config.data_parallel > 1) {
      CheckAlgorithmsFit(root, scenario, CollectiveKind::kAllReduce, data.dimensions,
                         "data-parallel gradient all-reduce", &data);
    }
    if (training.config.tensor_parallel > 1) {
      CheckAlgorithmsFit(root, scenario, CollectiveKind::kAllReduce, tensor.dimensions,
                         "tensor-parallel activation all-reduce", &tensor);
    }
    return;
  }
  if (training.config.data_parallel > 1) {
    CheckAlgorithmsFit(root, scenario, CollectiveKind::kAllReduce, training.data_dimensions,
                       "data-parallel gradient all-reduce");
  }
  if (training.config.tensor_parallel > 1) {
    CheckAlgorithmsFit(root, scenario, CollectiveKind::kAllReduce, training.tensor_dimensions,
                       "tensor-parallel activation all-reduce");
  }
}

Scenario ReadScenario(const JsonCursor& root) {
  root.ExpectObject({"name", "description", "seed", "engine", "topology", "workload", "npu",
                     "communication", "packet", "cost", "optimize", "sweep", "aggregation"});
  Scenario scenario;
  scenario.name = root.Has("name") ? root.Child("name").String() : "scenario";
  if (root.Has("description")) scenario.description = root.Child("description").String();
  if (root.Has("seed")) scenario.seed = root.Child("seed").Integer(0, uint64_t{1} << 53);
  if (root.Has("engine")) {
    const std::vector<std::string> names = EngineNames();
    const size_t engine = root.Child("engine").Choice({names.begin(), names.end()});
    scenario.engine = EngineTable()[engine].kind;
  }
  scenario.dimensions = ReadTopology(root.At("topology", "an object with \"dimensions\""));
  const auto communication = root.Find("communication");
  scenario.communication =
      ReadCommunication(communication ? &*communication : nullptr, scenario.dimensions);
  const auto npu = root.Find("npu");
  ReadNpuSection(npu ? &*npu : nullptr, scenario);
  ReadWorkloadSection(root.At("workload", "an object with \"training\" or \"collective\""),
                      scenario);
  const auto packet = root.Find("packet");
  ReadPacketSection(packet ? &*packet : nullptr, scenario);
  const auto cost = root.Find("cost");
  const auto optimize = root.Find("optimize");
  ReadOptimizeSections(cost ? &*cost : nullptr, optimize ? &*optimize : nullptr, scenario);
  if (const auto sweep = root.Find("sweep")) ReadSweepSection(*sweep, scenario);
  if (const auto aggregation = root.Find("aggregation"))
    ReadAggregationSection(*aggregation, scenario);
  CheckInNetworkAlgorithms(root, scenario);
  CheckLibraScenario(root, scenario);
  if (scenario.engine == EngineKind::kPacket) {
    if (auto refusal = InNetworkPacketRefusal(scenario)) {
      throw JsonPathError(refusal->where, refusal->message);
    }
  }
  CheckCollectivesFit(root, scenario);
  ApplyCompression(root, scenario);
  // After every check of the workload: the engine's admission (engine-table.h), whose memory
  // estimates compile the graph.
  if (auto refusal = EngineRefuses(scenario.engine, scenario)) {
    throw JsonPathError(refusal->where, refusal->message);
  }
  return scenario;
}

}  // namespace

Expected<Scenario> ParseScenario(const nlohmann::json& document) {
  try {
    return ReadScenario(JsonCursor(document, ""));
  } catch (const JsonPathError& error) {
    return UserError{error.Path().empty() ? "(top level)" : error.Path(), error.Message()};
  }
}

Expected<Scenario> ParseScenarioText(std::string_view text, std::string_view source_name) {
  auto document = ParseJsonText(text, source_name);
  if (!document) return document.Error();
  return ParseScenario(document.Value());
}

Expected<nlohmann::json> LoadScenarioDocument(const std::string& path) {
  return LoadJsonFile(path, "the scenario file");
}

Expected<Scenario> LoadScenarioFile(const std::string& path) {
  auto document = LoadScenarioDocument(path);
  if (!document) return document.Error();
  auto scenario = ParseScenario(document.Value());
  if (!scenario) {
    UserError error = scenario.Error();
    error.where = path + ": " + error.where;
    return error;
  }
  return scenario;
}

nlohmann::json ScenarioToJson(const Scenario& scenario) {
  nlohmann::json out;
  out["name"] = scenario.name;
  if (!scenario.description.empty()) out["description"] = scenario.description;
  out["seed"] = scenario.seed;
  out["engine"] = ToString(scenario.engine);
  nlohmann::json dims = nlohmann::json::array();
  for (const Dimension& dim : scenario.dimensions) {
    dims.push_back({{"kind", ToString(dim.kind)},
                    {"size", dim.size},
                    {"bandwidth_GBps", dim.bandwidth_Bpns},
                    {"latency_ns", dim.latency_ns}});
    if (dim.kind == DimensionKind::kClos) {
      dims.back()["leaf_npus"] = dim.leaf_npus;
      dims.back()["spines"] = dim.spines;
      dims.back()["oversubscription"] = dim.oversubscription;
    }
  }
  out["topology"] = {{"dimensions", dims}};
  out["npu"] = NpuSectionToJson(scenario);
  out["workload"] = WorkloadSectionToJson(scenario);
  const CommunicationSpec& comm = scenario.communication;
  nlohmann::json algorithms;
  for (CollectiveKind kind : kAllCollectiveKinds) {
    nlohmann::json list = nlohmann::json::array();
    for (CollectiveAlgorithm algorithm : comm.AlgorithmsFor(kind))
      list.push_back(ToString(algorithm));
    algorithms[std::string(ToString(kind))] = list;
  }
  out["communication"] = {{"scheme", ToString(comm.scheme)},
                          {"chunks", comm.chunks},
                          {"algorithms", algorithms},
                          {"endpoint_delay_ns", comm.endpoint_delay_ns},
                          {"reduction_memory_bandwidth_GBps", comm.reduction_Bpns},
                          {"host_overhead_ns_per_message", comm.host.send_per_message_ns}};
  // A host stack beyond a posting cost is echoed as host_stack (in full) instead.
  if (comm.host.kind != HostStackKind::kNone || comm.host.HasMoreThanPosting()) {
    out["communication"].erase("host_overhead_ns_per_message");
    out["communication"]["host_stack"] = {
        {"kind", ToString(comm.host.kind)},
        {"send_per_message_ns", comm.host.send_per_message_ns},
        {"receive_per_message_ns", comm.host.receive_per_message_ns},
        {"send_per_byte_ns", comm.host.send_per_byte_ns},
        {"receive_per_byte_ns", comm.host.receive_per_byte_ns},
        {"extra_round_trips", comm.host.extra_round_trips}};
  }
  if (comm.compression.scheme != CompressionScheme::kNone) {
    out["communication"]["compression"] = CompressionToJson(comm.compression);
  }
  // Written only when not the default, so echoes of hfsim-priced scenarios stay as they were.
  if (comm.pricing == PricingModel::kAstraSim) {
    out["communication"]["pricing"] = "astra_sim";
    out["communication"]["active_chunks_per_dimension"] = comm.active_chunks_per_dimension;
  }
  out["packet"] = PacketSectionToJson(scenario.packet);
  AddOptimizeSectionsToJson(scenario.optimize, out);
  AddSweepSectionToJson(scenario.sweep, out);
  if (scenario.aggregation) out["aggregation"] = AggregationSectionToJson(*scenario.aggregation);
  return out;
}

}  // namespace hfsim
