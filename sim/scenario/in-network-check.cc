#include "sim/scenario/in-network-check.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "topologies/dimension-kinds.h"

namespace hfsim {

namespace {

// The JSON cursor of the algorithm entry the user wrote for (kind, dimension d): the element of
// a list, or the single name given for every dimension.
JsonCursor AlgorithmEntry(const JsonCursor& root, CollectiveKind kind, uint32_t d) {
  const JsonCursor entry = root.Child("communication").Child("algorithms").Child(ToString(kind));
  return entry.Node().is_string() ? entry : entry.Element(d);
}

}  // namespace

bool UsesInNetwork(const Scenario& scenario) {
  for (CollectiveAlgorithm a : scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce)) {
    if (a == CollectiveAlgorithm::kInNetwork) return true;
  }
  return false;
}

void CheckInNetworkAlgorithms(const JsonCursor& root, const Scenario& scenario) {
  // Defaults are never in_network, so any in_network entry was written by the user.
  constexpr std::array<CollectiveKind, 3> kOtherKinds = {
      CollectiveKind::kReduceScatter, CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
  for (CollectiveKind kind : kOtherKinds) {
    const auto& list = scenario.communication.AlgorithmsFor(kind);
    for (uint32_t d = 0; d < list.size(); ++d) {
      if (list[d] != CollectiveAlgorithm::kInNetwork) continue;
      AlgorithmEntry(root, kind, d)
          .Fail(fmt::format("\"in_network\" runs all_reduce only; accepted for {}: \"ring\", "
                            "\"direct\", \"halving_doubling\"",
                            ToString(kind)));
    }
  }
  if (UsesInNetwork(scenario) && scenario.optimize.given) {
    root.Child("optimize")
        .Fail(
            "the optimiser's time model prices peer-to-peer schedules, and \"in_network\" "
            "(communication.algorithms.all_reduce) has none; remove the \"optimize\" section or "
            "choose another all_reduce algorithm");
  }
  const auto& list = scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce);
  for (uint32_t d = 0; d < list.size(); ++d) {
    if (list[d] != CollectiveAlgorithm::kInNetwork) continue;
    const JsonCursor entry = AlgorithmEntry(root, CollectiveKind::kAllReduce, d);
    const Dimension& dim = scenario.dimensions[d];
    if (scenario.communication.pricing == PricingModel::kAstraSim) {
      entry.Fail(
          "\"in_network\" has no astra_sim pricing; accepted with \"pricing\": "
          "\"astra_sim\": \"ring\", \"direct\", \"halving_doubling\"");
    }
    if (!KindEntry(dim.kind).aggregating_switch) {
      entry.Fail(fmt::format(
          "\"in_network\" needs a Switch dimension to aggregate in, and dimension {} is {}; "
          "accepted on {}: {}",
          d, ToString(dim.kind), ToString(dim.kind),
          AcceptedAlgorithms(CollectiveKind::kAllReduce, dim.kind)));
    }
    if (!scenario.aggregation) {
      entry.Fail(
          "\"in_network\" needs an \"aggregation\" section (the switch spec, "
          "docs/aggregation.md) with \"mode\": \"allreduce\"");
    }
    const JsonCursor section = root.Child("aggregation");
    if (scenario.aggregation->mode != AggregationMode::kAllReduce) {
      section.Child("mode").Fail(
          "\"in_network\" all-reduce needs \"allreduce\" (results multicast to the workers); "
          "\"parameter_server\" serves a parameter_server workload");
    }
    if (scenario.aggregation->workers != dim.size) {
      const JsonCursor where = section.Has("workers") ? section.Child("workers") : section;
      where.Fail(
          fmt::format("the switch of dimension {} aggregates its {} NPUs, and the spec has "
                      "{} workers; accepted: {}",
                      d, dim.size, scenario.aggregation->workers, dim.size));
    }
  }
}

void CheckLibraScenario(const JsonCursor& root, const Scenario& scenario) {
  if (scenario.workload_kind != WorkloadKind::kParameterServer || !scenario.aggregation ||
      scenario.aggregation->mode != AggregationMode::kParameterServer) {
    return;
  }
  const AggregationSwitchSpec& spec = *scenario.aggregation;
  const ParameterServerWorkload& workload = scenario.parameter_server;
  const JsonCursor section = root.Child("aggregation");
  if (scenario.dimensions.size() != 1 ||
      !KindEntry(scenario.dimensions[0].kind).aggregating_switch) {
    root.Child("topology")
        .Child("dimensions")
        .Fail(
            "hot-key aggregation (aggregation.mode \"parameter_server\") needs every worker and "
            "server "
            "under one switch; accepted: one Switch dimension");
  }
  if (spec.workers != workload.Workers()) {
    (section.Has("workers") ? section.Child("workers") : section)
        .Fail(fmt::format("the switch aggregates the workload's {} workers, and the spec has {}; "
                          "accepted: {}",
                          workload.Workers(), spec.workers, workload.Workers()));
  }
  if (spec.server_shards != workload.Shards()) {
    (section.Has("server_shards") ? section.Child("server_shards") : section)
        .Fail(fmt::format("the switch forwards completed slots to the workload's {} server "
                          "shards, and the spec has {}; accepted: {}",
                          workload.Shards(), spec.server_shards, workload.Shards()));
  }
  for (uint64_t server : workload.server_npus) {
    for (uint64_t worker : workload.worker_npus) {
      if (server != worker) continue;
      root.Child("workload")
          .Child("parameter_server")
          .Child("servers")
          .Fail(fmt::format(
              "NPU {} is both a worker and a server; with hot-key aggregation servers run on their "
              "own NPUs (accepted: ids not in \"workers\")",
              server));
    }
  }
}

std::optional<UserError> InNetworkPacketRefusal(const Scenario& scenario) {
  if (scenario.workload_kind == WorkloadKind::kParameterServer && scenario.aggregation &&
      scenario.aggregation->mode == AggregationMode::kParameterServer) {
    if (scenario.packet.transport != TransportKind::kRdma) {
      return UserError{"packet.transport",
                       "hot-key aggregation (aggregation.mode \"parameter_server\") runs its cold "
                       "keys on the RDMA-style transport, whose fabric also carries the switch's "
                       "frames; accepted: \"rdma\""};
    }
    return std::nullopt;
  }
  if (!UsesInNetwork(scenario)) return std::nullopt;
  const std::string where = "communication.algorithms.all_reduce";
  if (scenario.workload_kind != WorkloadKind::kCollective ||
      scenario.collective.kind != CollectiveKind::kAllReduce ||
      scenario.collective.dimensions.size() != 1) {
    return UserError{where,
                     "the packet engine runs \"in_network\" only for a \"collective\" all_reduce "
                     "workload on one dimension; use \"engine\": \"analytical\" for training "
                     "workloads and multi-dimension collectives"};
  }
  const uint32_t d = scenario.collective.dimensions.front();
  if (scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce)[d] !=
      CollectiveAlgorithm::kInNetwork) {
    return std::nullopt;  // the collective's dimension uses a schedule; in_network is unused
  }
  if (scenario.communication.chunks != 1) {
    return UserError{"communication.chunks",
                     fmt::format("got {}; the packet engine's in-network aggregation pipelines by "
                                 "its slot pool, so accepted with \"in_network\": 1",
                                 scenario.communication.chunks)};
  }
  return std::nullopt;
}

}  // namespace hfsim
