#include "sim/scenario/graph-section.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/scenario/scenario-parser.h"
#include "topologies/topology.h"
#include "workloads/graph/graph-check.h"
#include "workloads/graph/rank-classes.h"
#include "workloads/graph/smallest-first-order.h"

namespace hfsim {

namespace {

constexpr double kMaxNodeDurationNs = 1e15;

std::vector<Communicator> ReadCommunicators(const JsonCursor& list, uint64_t ranks) {
  std::vector<Communicator> communicators;
  std::map<std::string, size_t> names;
  for (const JsonCursor& entry : list.Elements(0, 1024)) {
    entry.ExpectObject({"name", "groups"});
    Communicator comm;
    const JsonCursor name = entry.At("name", "a string naming the communicator");
    comm.name = name.String();
    if (!names.emplace(comm.name, communicators.size()).second) {
      name.Fail(fmt::format("communicator \"{}\" is defined twice", comm.name));
    }
    std::vector<bool> seen(ranks, false);
    for (const JsonCursor& group : entry.At("groups", "a list of groups, each a list of ranks")
                                       .Elements(1, ranks)) {
      std::vector<uint32_t>& members = comm.groups.emplace_back();
      for (const JsonCursor& rank : group.Elements(1, ranks)) {
        // Any integer is read, so that a rank beyond the fabric gets its own message.
        const uint64_t r = rank.Integer(0, UINT32_MAX);
        if (r >= ranks) {
          rank.Fail(fmt::format("rank {} does not exist: the fabric has {} NPUs (ranks 0 to {})",
                                r, ranks, ranks - 1));
        }
        if (seen[r]) rank.Fail(fmt::format("rank {} is in two groups of \"{}\"", r, comm.name));
        seen[r] = true;
        members.push_back(static_cast<uint32_t>(r));
      }
    }
    communicators.push_back(std::move(comm));
  }
  return communicators;
}

struct ReadNode {
  GraphNode node;
  std::vector<uint64_t> dep_ids;
  std::string name;
  size_t index = 0;  // position in the JSON list
};

ReadNode ReadOne(const JsonCursor& entry, const std::map<std::string, size_t>& communicators,
                 const Scenario& scenario, uint64_t ranks) {
  entry.ExpectObject({"id", "type", "name", "phase", "stream", "deps", "duration_ns", "flops",
                      "kind", "size_bytes", "communicator", "count", "peer", "tag",
                      "continues_step"});
  ReadNode read;
  GraphNode& node = read.node;
  node.id = entry.At("id", "an integer id, unique within the program").Integer(0, UINT64_MAX >> 1);
  node.kind =
      entry.At("type", QuotedAlternatives(kGraphNodeKindNames)).Choice(kGraphNodeKindNames);
  if (auto name = entry.Find("name")) read.name = name->String();
  if (auto stream = entry.Find("stream")) node.stream = static_cast<uint32_t>(stream->Integer(0, 63));
  if (auto continues = entry.Find("continues_step")) node.continues_step = continues->Bool();
  if (auto deps = entry.Find("deps")) {
    for (const JsonCursor& dep : deps->Elements(0, kMaxGraphNodes)) {
      read.dep_ids.push_back(dep.Integer(0, UINT64_MAX >> 1));
    }
  }
  auto refuse = [&](std::initializer_list<std::string_view> keys) {
    for (const std::string_view key : keys) {
      if (entry.Has(key)) {
        entry.Child(key).Fail(fmt::format("a {} node takes no \"{}\"", ToString(node.kind), key));
      }
    }
  };
  // Compute counts in a pass or in "step"; communication in a pass or, by default, only in the
  // communication totals. Compute on a stream other than 0 is host (CPU) work beside the
  // accelerator (a Chakra trace's is_cpu_op nodes): it takes its time on its stream and counts
  // in no part of the breakdown, so it takes no phase.
  const bool compute = node.kind == GraphNodeKind::kCompute;
  const bool host = compute && node.stream != 0;
  node.phase = compute && !host ? GraphPhase::kStep : GraphPhase::kCollective;
  if (auto phase = entry.Find("phase")) {
    if (host) {
      phase->Fail(fmt::format("a compute node on stream {} is host work beside the accelerator "
                              "and counts in no phase; accepted: no \"phase\", or stream 0",
                              node.stream));
    }
    // Never "collective" (a node's kind decides that); "step" only for compute.
    node.phase = phase->Choice(kGraphPhaseNames, compute ? 4 : 3);
  }
  switch (node.kind) {
    case GraphNodeKind::kCompute: {
      refuse({"kind", "size_bytes", "communicator", "count", "peer", "tag"});
      const bool has_duration = entry.Has("duration_ns");
      if (has_duration == entry.Has("flops")) {
        entry.Fail("give exactly one of \"duration_ns\" (ns) or \"flops\" (priced at the npu "
                   "section's peak_TFLOPS x compute_efficiency)");
      }
      if (has_duration) {
        node.duration_ns = entry.Child("duration_ns").Number(0.0, kMaxNodeDurationNs, false);
      } else {
        const double flops = entry.Child("flops").Number(0.0, 1e24, false);
        node.duration_ns = flops / (scenario.training.config.peak_flops_per_ns *
                                    scenario.training.config.compute_efficiency);
        // The same bound as duration_ns: the echo writes the duration back.
        if (node.duration_ns > kMaxNodeDurationNs) {
          entry.Child("flops").Fail(fmt::format(
              "{:g} FLOPs take {:g} ns at the npu section's rate; accepted: at most {:g} ns "
              "(11.6 days) per node", flops, node.duration_ns, kMaxNodeDurationNs));
        }
      }
      break;
    }
    case GraphNodeKind::kCollective: {
      refuse({"duration_ns", "flops", "peer", "tag"});
      node.collective =
          entry.At("kind", QuotedAlternatives(kCollectiveKindNames)).Choice(kCollectiveKindNames);
      node.size_bytes = entry.At("size_bytes", "an integer number of bytes")
                            .Integer(1, ScenarioLimits::kMaxCollectiveBytes);
      const JsonCursor comm = entry.At("communicator", "the name of a communicator");
      const auto found = communicators.find(comm.String());
      if (found == communicators.end()) {
        comm.Fail(fmt::format("no communicator is named \"{}\"", comm.String()));
      }
      node.communicator = static_cast<uint32_t>(found->second);
      if (auto count = entry.Find("count")) node.count = static_cast<uint32_t>(count->Integer(1, 1u << 20));
      break;
    }
    case GraphNodeKind::kSend:
    case GraphNodeKind::kRecv: {
      refuse({"duration_ns", "flops", "kind", "communicator", "count"});
      const JsonCursor peer = entry.At("peer", "the rank at the other end");
      const uint64_t p = peer.Integer(0, UINT32_MAX);
      if (p >= ranks) {
        peer.Fail(fmt::format("rank {} does not exist: the fabric has {} NPUs (ranks 0 to {})", p,
                              ranks, ranks - 1));
      }
      node.peer = static_cast<uint32_t>(p);
      if (auto tag = entry.Find("tag")) node.tag = tag->Integer(0, UINT64_MAX >> 1);
      node.size_bytes = entry.At("size_bytes", "an integer number of bytes")
                            .Integer(1, ScenarioLimits::kMaxCollectiveBytes);
      break;
    }
  }
  return read;
}

// Orders a program so that every node comes after what it depends on, keeping the written order
// wherever dependencies allow (the written order is each stream's order). Fails on a missing
// id or a cycle, naming the node.
std::vector<GraphNode> OrderProgram(std::vector<ReadNode> nodes, const JsonCursor& list,
                                    std::vector<std::string>& layers,
                                    std::map<std::string, uint32_t>& layer_index) {
  std::map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!by_id.emplace(nodes[i].node.id, i).second) {
      list.Element(i).Child("id").Fail(
          fmt::format("id {} is used by two nodes of this program", nodes[i].node.id));
    }
  }
  std::vector<std::vector<uint32_t>> deps(nodes.size()), waiters(nodes.size());
  std::vector<uint32_t> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t j = 0; j < nodes[i].dep_ids.size(); ++j) {
      const auto found = by_id.find(nodes[i].dep_ids[j]);
      if (found == by_id.end()) {
        list.Element(i).Child("deps").Element(j).Fail(fmt::format(
            "node {} depends on node {}, which this program does not have", nodes[i].node.id,
            nodes[i].dep_ids[j]));
      }
      deps[i].push_back(static_cast<uint32_t>(found->second));
      waiters[found->second].push_back(static_cast<uint32_t>(i));
      ++pending[i];
    }
  }
  const std::vector<uint32_t> order = SmallestFirstOrder(pending, waiters, [](uint32_t) { return true; });
  if (order.size() != nodes.size()) {
    // Walk back along unfinished dependencies until a node repeats: that is the cycle.
    size_t at = 0;
    while (pending[at] == 0) ++at;
    std::vector<size_t> path;
    std::vector<bool> on_path(nodes.size(), false);
    while (!on_path[at]) {
      on_path[at] = true;
      path.push_back(at);
      for (const size_t d : deps[at]) {
        if (pending[d] > 0) {
          at = d;
          break;
        }
      }
    }
    std::string cycle = std::to_string(nodes[at].node.id);
    for (auto it = std::find(path.begin(), path.end(), at) + 1; it != path.end(); ++it) {
      cycle += fmt::format(" -> {}", nodes[*it].node.id);
    }
    cycle += fmt::format(" -> {}", nodes[at].node.id);
    list.Element(nodes[at].index).Child("deps").Fail(fmt::format(
        "node {} is in a dependency cycle (each depends on the next): {}", nodes[at].node.id,
        cycle));
  }
  std::vector<size_t> position(nodes.size());
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  std::vector<GraphNode> program;
  program.reserve(nodes.size());
  for (const size_t i : order) {
    GraphNode node = std::move(nodes[i].node);
    for (const size_t d : deps[i]) node.deps.push_back(static_cast<uint32_t>(position[d]));
    if (!nodes[i].name.empty()) {
      const auto [it, added] = layer_index.emplace(nodes[i].name, static_cast<uint32_t>(layers.size()));
      if (added) layers.push_back(nodes[i].name);
      node.layer = it->second;
    }
    program.push_back(std::move(node));
  }
  return program;
}

}  // namespace

ExecutionGraph ReadGraphSection(const JsonCursor& section, const Scenario& scenario) {
  section.ExpectObject({"communicators", "programs", "sends"});
  uint64_t ranks = 1;
  for (const Dimension& dim : scenario.dimensions) ranks *= dim.size;
  ExecutionGraph graph;
  graph.rank_count = static_cast<uint32_t>(ranks);
  for (const Dimension& dim : scenario.dimensions) graph.dimension_sizes.push_back(dim.size);
  if (auto sends = section.Find("sends")) graph.eager_sends = sends->Choice({"rendezvous", "eager"}) == 1;
  std::map<std::string, size_t> communicator_index;
  if (auto list = section.Find("communicators")) {
    graph.communicators = ReadCommunicators(*list, ranks);
    for (size_t k = 0; k < graph.communicators.size(); ++k) {
      communicator_index.emplace(graph.communicators[k].name, k);
    }
  }
  std::map<std::string, uint32_t> layer_index;
  std::vector<int64_t> program_of(ranks, -1);
  uint64_t total_nodes = 0;
  const JsonCursor programs = section.At("programs", "a list of programs, each {\"ranks\": [...], "
                                                     "\"nodes\": [...]}");
  for (const JsonCursor& entry : programs.Elements(1, ranks)) {
    entry.ExpectObject({"ranks", "nodes"});
    RankClass rank_class;
    for (const JsonCursor& rank : entry.At("ranks", "the ranks that run this program")
                                      .Elements(1, ranks)) {
      const uint64_t r = rank.Integer(0, UINT32_MAX);
      if (r >= ranks) {
        rank.Fail(fmt::format("rank {} does not exist: the fabric has {} NPUs (ranks 0 to {})", r,
                              ranks, ranks - 1));
      }
      if (program_of[r] >= 0) {
        rank.Fail(fmt::format("rank {} already runs program {}", r, program_of[r]));
      }
      program_of[r] = static_cast<int64_t>(graph.classes.size());
      rank_class.ranks.push_back(static_cast<uint32_t>(r));
    }
    std::sort(rank_class.ranks.begin(), rank_class.ranks.end());
    const JsonCursor nodes = entry.At("nodes", "a list of nodes");
    std::vector<ReadNode> read;
    const auto elements = nodes.Elements(0, kMaxGraphNodes);
    total_nodes += elements.size();
    if (total_nodes > kMaxGraphNodes) {
      nodes.Fail(fmt::format("the graph has {} nodes with this program's {}; accepted: at most {}",
                             total_nodes, elements.size(), kMaxGraphNodes));
    }
    for (size_t i = 0; i < elements.size(); ++i) {
      ReadNode node = ReadOne(elements[i], communicator_index, scenario, ranks);
      node.index = i;
      read.push_back(std::move(node));
    }
    rank_class.program = OrderProgram(std::move(read), nodes, graph.layers, layer_index);
    graph.classes.push_back(std::move(rank_class));
  }
  for (uint64_t r = 0; r < ranks; ++r) {
    if (program_of[r] < 0) {
      programs.Fail(fmt::format("rank {} runs no program; every rank of the fabric's {} needs "
                                "one (a program's \"ranks\" lists who runs it)", r, ranks));
    }
  }
  // Matching collectives, sends and receives: everything that needs no other section.
  if (auto error = CheckGraph(graph)) throw JsonPathError(section.Path(), error->ToString());
  // A program written for ranks whose groups differ becomes one class per kind of rank.
  if (!RefineRankClasses(graph, Topology(scenario.dimensions), kMaxGraphNodes)) {
    programs.Fail(fmt::format(
        "ranks of one program sit so differently on the fabric (groups of other shapes, sends "
        "crossing other dimensions) that they need programs of their own, and the graph would "
        "then hold more than {} nodes; accepted: programs whose ranks sit alike",
        kMaxGraphNodes));
  }
  // Algorithms on each group, deadlocks and groups the engines can price are checked once the
  // whole scenario is read, when the loader places the graph.
  return graph;
}

}  // namespace hfsim

namespace hfsim {

nlohmann::json GraphSectionToJson(const ExecutionGraph& graph) {
  nlohmann::json communicators = nlohmann::json::array();
  for (const Communicator& comm : graph.communicators) {
    communicators.push_back({{"name", comm.name}, {"groups", comm.groups}});
  }
  nlohmann::json programs = nlohmann::json::array();
  for (const RankClass& rank_class : graph.classes) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const GraphNode& node : rank_class.program) {
      nlohmann::json entry = {{"id", node.id}, {"type", ToString(node.kind)}};
      if (node.layer != kNoLayer) entry["name"] = graph.layers[node.layer];
      const bool accelerator = node.kind == GraphNodeKind::kCompute && node.stream == 0;
      if (node.phase != (accelerator ? GraphPhase::kStep : GraphPhase::kCollective)) {
        entry["phase"] = ToString(node.phase);
      }
      if (node.stream != 0) entry["stream"] = node.stream;
      if (node.continues_step) entry["continues_step"] = true;
      if (!node.deps.empty()) {
        nlohmann::json deps = nlohmann::json::array();
        for (const uint32_t dep : node.deps) deps.push_back(rank_class.program[dep].id);
        entry["deps"] = deps;
      }
      switch (node.kind) {
        case GraphNodeKind::kCompute:
          entry["duration_ns"] = node.duration_ns;
          break;
        case GraphNodeKind::kCollective:
          entry["kind"] = ToString(node.collective);
          entry["size_bytes"] = node.size_bytes;
          entry["communicator"] = graph.communicators[node.communicator].name;
          if (node.count != 1) entry["count"] = node.count;
          break;
        case GraphNodeKind::kSend:
        case GraphNodeKind::kRecv:
          entry["peer"] = node.peer;
          entry["tag"] = node.tag;
          entry["size_bytes"] = node.size_bytes;
          break;
      }
      nodes.push_back(std::move(entry));
    }
    programs.push_back({{"ranks", rank_class.ranks}, {"nodes", std::move(nodes)}});
  }
  nlohmann::json section = {{"communicators", communicators}, {"programs", programs}};
  if (graph.eager_sends) section["sends"] = "eager";
  return {{"graph", std::move(section)}};
}

}  // namespace hfsim
