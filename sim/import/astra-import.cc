#include "sim/import/astra-import.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/import/astra-network.h"
#include "sim/import/astra-system.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

Expected<uint64_t> ParseByteSize(const std::string& text) {
  const UserError bad{"--size", fmt::format("got \"{}\"; accepted: a number of bytes from 1 to 2^50, optionally "
                                            "with a unit B, KiB, MiB, GiB, TiB (2^10 steps) or KB, MB, GB, TB "
                                            "(10^3 steps), e.g. 64MiB", text)};
  if (text.empty() || text.size() > 40 || !(std::isdigit(static_cast<unsigned char>(text[0])))) return bad;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0}, {"B", 1.0}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40},
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = number * scale;
    if (!std::isfinite(bytes) || bytes < 1.0 || bytes > static_cast<double>(ScenarioLimits::kMaxCollectiveBytes) ||
        bytes != std::floor(bytes)) {
      return bad;
    }
    return static_cast<uint64_t>(bytes);
  }
  return bad;
}

std::optional<UserError> AstraImplementationRefusal(const Scenario& scenario,
                                                    const std::string& system_path) {
  if (!RunsAsGraph(scenario)) return std::nullopt;
  auto text = ReadTextFile(system_path, "the ASTRA-sim system file", kMaxAstraInputBytes);
  if (!text) return text.Error();
  auto parsed = ParseJsonText(text.Value(), system_path, {kMaxAstraInputBytes, 64});
  if (!parsed) return parsed.Error();
  const nlohmann::json& root = parsed.Value();
  constexpr std::pair<CollectiveKind, const char*> kKeys[] = {
      {CollectiveKind::kAllReduce, "all-reduce-implementation"},
      {CollectiveKind::kReduceScatter, "reduce-scatter-implementation"},
      {CollectiveKind::kAllGather, "all-gather-implementation"},
      {CollectiveKind::kAllToAll, "all-to-all-implementation"}};
  bool any_missing = false;
  for (const auto& [kind, key] : kKeys) any_missing = any_missing || !root.contains(key);
  if (!any_missing) return std::nullopt;
  // Collectives a custom implementation runs are sends and receives in the graph by now.
  const ExecutionGraph graph = BuildExecutionGraph(scenario);
  for (const RankClass& rank_class : graph.classes) {
    for (const GraphNode& node : rank_class.program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      for (const auto& [kind, key] : kKeys) {
        if (kind != node.collective || root.contains(key)) continue;
        return UserError{
            fmt::format("{}: {}", system_path, key),
            fmt::format("missing, and rank {}'s program runs the collective {} (node {}{}), for which ASTRA-sim "
                        "has no default implementation: it stops there (\"No collective "
                        "implementation found\", CollectiveImplLookup::get_collective_impl); "
                        "accepted: a list with one of \"ring\", \"direct\", "
                        "\"halvingDoubling\" per dimension",
                        rank_class.ranks.front(), ToString(kind), node.id,
                        node.layer != kNoLayer ? ", layer \"" + graph.layers[node.layer] + "\""
                                               : std::string())};
      }
    }
  }
  return std::nullopt;
}

Expected<nlohmann::json> ImportAstraSim(const AstraInputs& inputs) {
  auto network = ReadAstraNetwork(inputs.network_path);
  if (!network) return network.Error();
  auto communication = ReadAstraSystem(inputs.system_path, network.Value().sizes, inputs.chakra);
  if (!communication) return communication.Error();
  nlohmann::json document;
  if (!inputs.workload_path.empty()) {
    auto loaded = LoadScenarioDocument(inputs.workload_path);
    if (!loaded) return loaded.Error();
    document = std::move(loaded).Value();
    if (!document.is_object()) {
      return UserError{inputs.workload_path + ": (top level)", "expected an object with \"workload\""};
    }
    for (const char* key : {"topology", "communication"}) {
      if (document.contains(key)) {
        return UserError{inputs.workload_path + ": " + key,
                         fmt::format("comes from the ASTRA-sim {} file when importing; remove it",
                                     std::string_view(key) == "topology" ? "network" : "system")};
      }
    }
  } else {
    const std::string& kind = inputs.collective;
    if (kind != "all_reduce" && kind != "reduce_scatter" && kind != "all_gather" && kind != "all_to_all") {
      return UserError{"--collective", fmt::format("got \"{}\"; accepted: all_reduce, reduce_scatter, "
                                                   "all_gather, all_to_all", kind)};
    }
    auto bytes = ParseByteSize(inputs.size);
    if (!bytes) return bytes.Error();
    document["name"] = fmt::format("astra-sim {} {}", kind, inputs.size);
    document["workload"] = {{"collective", {{"kind", kind}, {"size_bytes", bytes.Value()}}}};
  }
  document["topology"] = std::move(network).Value().topology;
  document["communication"] = std::move(communication).Value();
  return document;
}

}  // namespace hfsim
