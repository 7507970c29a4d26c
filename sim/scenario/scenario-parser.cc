// The scenario loader: top level, topology and communication sections, and the cross-checks
// that need several sections at once. The workload section is in workload-section.cc.
#include "sim/scenario/scenario-parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "models/multi-dim-collective.h"
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
#include "sim/scenario/transformer-section.h"
#include "sim/scenario/validation-section.h"
#include "sim/scenario/workload-section.h"
#include "topologies/dimension-kinds.h"
#include "topologies/topology.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {

namespace {

// The keys a dimension entry may have: the common ones, then every kind's own parameters.
const std::vector<std::string_view>& DimensionKeys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> list = {"kind", "size", "bandwidth_GBps", "latency_ns"};
    for (const DimensionKindEntry* entry : AllDimensionKinds()) {
      for (const ShapeParameter& parameter : entry->parameters) {
        if (std::find(list.begin(), list.end(), parameter.key) == list.end()) {
          list.push_back(parameter.key);
        }
      }
    }
    return list;
  }();
  return keys;
}

// The kind's own parameters (topologies/dimension-kinds.h: a Clos's leaves, spines and
// oversubscription, docs/scenario.md §3.1), in its order, each in the range the ones before it
// leave; another kind's keys are refused.
void ReadShapeParameters(const JsonCursor& entry, Dimension& dim) {
  const DimensionKindEntry& own = KindEntry(dim.kind);
  auto owns = [&own](std::string_view key) {
    return std::any_of(own.parameters.begin(), own.parameters.end(),
                       [key](const ShapeParameter& p) { return p.key == key; });
  };
  for (const DimensionKindEntry* other : AllDimensionKinds()) {
    for (const ShapeParameter& parameter : other->parameters) {
      if (owns(parameter.key)) continue;
      if (auto v = entry.Find(parameter.key)) {
        v->Fail(fmt::format("given for a {} dimension; accepted: only with \"kind\": \"{}\"",
                            ToString(dim.kind), ToString(other->kind)));
      }
    }
  }
  for (size_t i = 0; i < own.parameters.size(); ++i) {
    const ShapeParameter& parameter = own.parameters[i];
    std::optional<JsonCursor> value = entry.Find(parameter.key);
    if (!value && parameter.default_value) {
      dim.parameters[i] = *parameter.default_value;
      continue;
    }
    if (!value) value = entry.At(parameter.key, parameter.meaning);  // fails: missing
    const ParameterRange range = parameter.range(dim);
    dim.parameters[i] =
        parameter.integer
            ? static_cast<double>(value->Integer(static_cast<uint64_t>(range.min),
                                                 static_cast<uint64_t>(range.max)))
            : value->Number(range.min, range.max, range.min_exclusive);
    if (own.check) {
      if (auto problem = own.check(dim, i)) value->Fail(*problem);
    }
  }
}

std::vector<Dimension> ReadTopology(const JsonCursor& topology) {
  topology.ExpectObject({"dimensions"});
  const JsonCursor list = topology.At("dimensions", "an array of dimension objects");
  std::vector<Dimension> dimensions;
  uint64_t npus = 1;
  for (const JsonCursor& entry : list.Elements(1, ScenarioLimits::kMaxDimensions)) {
    entry.ExpectObject(DimensionKeys());
    Dimension dim;
    dim.kind =
        entry.At("kind", QuotedAlternatives(kDimensionKindNames)).Choice(kDimensionKindNames);
    const JsonCursor size = entry.At("size", "an integer number of NPUs, at least 2");
    const DimensionKindEntry& kind_entry = KindEntry(dim.kind);
    const uint64_t max_size =
        std::min<uint64_t>(kind_entry.max_size, ScenarioLimits::kMaxDimensionSize);
    dim.size = static_cast<uint32_t>(size.Integer(kind_entry.min_size, max_size));
    // GB/s with 1 GB = 1e9 B is numerically bytes per ns.
    dim.bandwidth_Bpns =
        entry.At("bandwidth_GBps", "a positive number (GB/s per NPU)")
            .Number(ScenarioLimits::kMinBandwidthGBps, ScenarioLimits::kMaxBandwidthGBps, false);
    dim.latency_ns = entry.At("latency_ns", "a number of ns, 0 or more")
                         .Number(0.0, ScenarioLimits::kMaxLatencyNs, false);
    ReadShapeParameters(entry, dim);
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

CollectiveAlgorithm ReadAlgorithm(const JsonCursor& cursor) {
  return cursor.Choice(kCollectiveAlgorithmNames);
}

// `communication.host_stack`: a kind's name, or {"kind": name, any field overriding the preset}
// (models/host-stack.h, docs/host-stack.md).
HostStack ReadHostStack(const JsonCursor& cursor) {
  if (cursor.Node().is_string()) return HostStack::Preset(cursor.Choice(kHostStackKindNames));
  if (!cursor.Node().is_object()) {
    cursor.Fail(fmt::format(
        "got {}; accepted: {} or an object {{\"kind\": one of those, fields overriding its "
        "preset}}",
        cursor.Shown(), QuotedList(kHostStackKindNames)));
  }
  cursor.ExpectObject({"kind", "send_per_message_ns", "receive_per_message_ns", "send_per_byte_ns",
                       "receive_per_byte_ns", "extra_round_trips"});
  HostStack host = HostStack::Preset(
      cursor.At("kind", QuotedAlternatives(kHostStackKindNames)).Choice(kHostStackKindNames));
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
    // Its kind's default (direct on FullyConnected, where a ring would use 2 of n-1 links; ring
    // elsewhere), or the first algorithm that runs the collective on it: defaults always fit.
    for (const Dimension& dim : dimensions) list.push_back(DefaultAlgorithm(kind, dim.kind));
  }
  if (section == nullptr) return spec;
  section->ExpectObject({"scheme", "chunks", "algorithms", "endpoint_delay_ns",
                         "reduction_memory_bandwidth_GBps", "host_overhead_ns_per_message",
                         "host_stack", "pricing", "active_chunks_per_dimension", "compression"});
  if (auto compression = section->Find("compression"))
    spec.compression = ReadCompression(*compression);
  if (auto pricing = section->Find("pricing")) {
    spec.pricing = pricing->Choice(kPricingModelNames);
    if (spec.pricing == PricingModel::kAstraSim) {
      for (size_t d = 0; d < dimensions.size(); ++d) {
        if (KindEntry(dimensions[d].kind).astra_hops == nullptr) {
          const std::string_view kind = ToString(dimensions[d].kind);
          pricing->Fail(fmt::format(
              "got \"astra_sim\", whose model has no {} (dimension {}); accepted with a {} "
              "dimension: \"hfsim\"",
              kind, d, kind));
        }
      }
    }
  }
  if (auto active = section->Find("active_chunks_per_dimension")) {
    spec.active_chunks_per_dimension =
        static_cast<uint32_t>(active->Integer(1, ScenarioLimits::kMaxChunks));
    // ASTRA-sim's rule (chunks running side by side on a dimension without sharing it) has no
    // place in hfsim's pricing, where a dimension's chunks share its links and run one
    // chunk-stage at a time: there the key would do nothing (it was ignored, and left out of
    // the echo).
    if (spec.pricing != PricingModel::kAstraSim) {
      active->Fail(fmt::format(
          "got {}, which only \"pricing\": \"astra_sim\" uses (ASTRA-sim's active chunks); "
          "hfsim's pricing runs one chunk-stage per dimension at a time (docs/scenario.md "
          "§10.4); accepted: the key with astra_sim pricing, or no key",
          active->Shown()));
    }
  }
  if (auto scheme = section->Find("scheme")) {
    spec.scheme = scheme->Choice(kMultiDimSchemeNames);
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
  // ASTRA-sim has no host stack, so astra_sim pricing charges none: a cost given there would do
  // nothing (it was ignored).
  if (spec.pricing == PricingModel::kAstraSim && !spec.host.IsFree()) {
    const char* key = section->Has("host_stack") ? "host_stack" : "host_overhead_ns_per_message";
    section->Child(key).Fail(
        "a host cost, which \"pricing\": \"astra_sim\" does not charge (ASTRA-sim has no host "
        "stack; docs/astra-sim.md §5); accepted with astra_sim pricing: no host cost, or "
        "\"pricing\": \"hfsim\"");
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
    std::optional<std::string> reason = UnsupportedReason(stage.kind, stage.algorithm, peers);
    if (!reason) {
      reason = KindRefusal(stage.kind, stage.algorithm, scenario.dimensions[stage.dimension].kind);
    }
    if (reason) {
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

// What a collective is, in an error about the algorithm that cannot run it: the workload for
// a lone collective, the group for a generated training job, the node for a graph written out.
std::string CollectivePurpose(const Scenario& scenario, const ExecutionGraph& graph,
                              const GraphNode& node, uint32_t rank) {
  switch (scenario.workload_kind) {
    case WorkloadKind::kCollective:
      return fmt::format("{} workload", ToString(node.collective));
    case WorkloadKind::kTraining:
      return fmt::format("{} over the {} group", ToString(node.collective),
                         graph.communicators[node.communicator].name);
    default:
      return fmt::format("{} of node {} (rank {})", ToString(node.collective), node.id, rank);
  }
}

// Some kinds price only whole groups (a Clos: which leaves part of one holds decides its cost;
// a part of a Torus2D is no torus): a tensor_per_dimension split of one is refused at its key.
void CheckTensorSplitKinds(const Scenario& scenario) {
  const std::vector<uint32_t>& per_dimension = scenario.training.tensor_per_dimension;
  for (uint32_t d = 0; d < per_dimension.size(); ++d) {
    const uint32_t t = per_dimension[d];
    const uint32_t n = scenario.dimensions[d].size;
    const DimensionKind kind = scenario.dimensions[d].kind;
    if (KindEntry(kind).partial_group_share == nullptr && t != 1 && t != n) {
      throw JsonPathError(
          "workload.training.parallelism.tensor_per_dimension",
          fmt::format("splits {} dimension {} ({} NPUs) into tensor groups of {} and data "
                      "groups of {}; accepted on a {} dimension: groups that span all of it "
                      "or none of it (1 or {})",
                      ToString(kind), d, n, t, n / t, ToString(kind), n));
    }
  }
}

// The workload's graph (training, collective or graph), generated once every section is read
// and placed on the fabric (no circular waits, groups the engines can price), kept in the
// scenario for every later stage; then every collective it really holds checked against the
// algorithms chosen for its group's dimensions, naming the algorithm's JSON path. A group of
// one rank has nothing to exchange: no stage, no algorithm to fit.
void PlaceWorkload(const JsonCursor& root, Scenario& scenario) {
  if (scenario.workload_kind == WorkloadKind::kParameterServer ||
      scenario.workload_kind == WorkloadKind::kGossip) {
    CheckPointToPointWorkloadFits(root, scenario);
    return;
  }
  if (scenario.workload_kind == WorkloadKind::kTraining) CheckTensorSplitKinds(scenario);
  auto placed = PlaceWorkloadGraph(scenario);
  if (!placed) throw JsonPathError(placed.Error().where, placed.Error().message);
  const PlacedGraph& graph = *placed.Value();
  // Each (kind, group shape) once. A class's ranks all see groups of one shape, so within a
  // class each (communicator, kind) is looked at once.
  std::vector<std::pair<CollectiveKind, const GroupShape*>> checked;
  const size_t kinds = std::size(kAllCollectiveKinds);
  std::vector<bool> seen_in_class(graph.Graph().communicators.size() * kinds);
  for (uint32_t c = 0; c < graph.Graph().classes.size(); ++c) {
    const RankClass& rank_class = graph.Graph().classes[c];
    const uint32_t rank = rank_class.ranks.front();
    std::fill(seen_in_class.begin(), seen_in_class.end(), false);
    for (const GraphNode& node : rank_class.program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      const size_t call = node.communicator * kinds + static_cast<size_t>(node.collective);
      if (seen_in_class[call]) continue;
      seen_in_class[call] = true;
      const GroupShape& shape = graph.ShapeOf(node.communicator, rank);
      if (shape.dimensions.empty()) continue;
      const bool seen = std::any_of(checked.begin(), checked.end(), [&](const auto& done) {
        return done.first == node.collective && *done.second == shape;
      });
      if (seen) continue;
      CheckAlgorithmsFit(root, scenario, node.collective, shape.dimensions,
                         CollectivePurpose(scenario, graph.Graph(), node, rank), &shape);
      checked.emplace_back(node.collective, &shape);
    }
  }
  scenario.placed_graph = std::move(placed).Value();
}

Scenario ReadScenario(const JsonCursor& root) {
  root.ExpectObject({"name", "description", "seed", "engine", "topology", "workload", "npu",
                     "communication", "packet", "cost", "optimize", "sweep", "aggregation",
                     "validation"});
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
  if (const auto validation = root.Find("validation")) {
    ReadValidationSection(*validation, scenario);
  }
  CheckInNetworkAlgorithms(root, scenario);
  CheckLibraScenario(root, scenario);
  if (scenario.engine == EngineKind::kPacket) {
    if (auto refusal = InNetworkPacketRefusal(scenario)) {
      throw JsonPathError(refusal->where, refusal->message);
    }
  }
  PlaceWorkload(root, scenario);
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
  auto document = LoadJsonFile(path, "the scenario file");
  // A model's config.json is named relative to the scenario file that names it.
  if (document) ResolveModelFilePaths(document.Value(), path);
  return document;
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
    const DimensionKindEntry& entry = KindEntry(dim.kind);
    for (size_t i = 0; i < entry.parameters.size(); ++i) {
      const ShapeParameter& parameter = entry.parameters[i];
      const std::string key(parameter.key);
      if (parameter.integer) {
        dims.back()[key] = static_cast<uint64_t>(dim.parameters[i]);
      } else {
        dims.back()[key] = dim.parameters[i];
      }
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
    out["communication"]["pricing"] = ToString(comm.pricing);
    out["communication"]["active_chunks_per_dimension"] = comm.active_chunks_per_dimension;
  }
  out["packet"] = PacketSectionToJson(scenario.packet);
  AddOptimizeSectionsToJson(scenario.optimize, out);
  AddSweepSectionToJson(scenario.sweep, out);
  if (scenario.aggregation) out["aggregation"] = AggregationSectionToJson(*scenario.aggregation);
  if (scenario.validation) out["validation"] = ValidationSectionToJson(*scenario.validation);
  return out;
}

}  // namespace hfsim
