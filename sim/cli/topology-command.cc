#include "sim/cli/topology-command.h"

#include <fmt/format.h>

#include <iostream>

#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/report/number-text.h"
#include "sim/report/summary-table.h"
#include "sim/scenario/scenario-parser.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

int TopologyCommand::Execute() const {
  auto loaded = LoadScenarioFile(scenario_path);
  if (!loaded) {
    std::cerr << "hfsim: error: " << loaded.Error().ToString() << "\n";
    return 2;
  }
  const Scenario& scenario = loaded.Value();
  const Topology topology(scenario.dimensions);
  const FabricGraphSize size = ComputeFabricGraphSize(scenario.dimensions);
  if (auto problem = FabricGraphSizeProblem(size, kDefaultFabricGraphMaxBytes)) {
    std::cerr << "hfsim: error: " << scenario_path << ": topology: " << *problem << "\n";
    return 2;
  }
  const FabricGraph graph(topology);
  uint32_t diameter = 0;
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const DimensionLinks& links = graph.LinksOf(d);
    uint32_t farthest = 0;
    for (uint32_t peer = 1; peer < links.Size(); ++peer)
      farthest = std::max(farthest, links.Hops(0, peer));
    diameter += farthest;  // dimension-order routes: the worst case adds up per dimension
  }
  std::cout << fmt::format("fabric: {} NPUs, {} switches, {} directed links, diameter {} hops\n",
                           graph.NpuCount(), graph.SwitchCount(), graph.LinkCount(), diameter);
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const Dimension& dim = topology.Dim(d);
    std::cout << fmt::format(
        "  dim {}: {} of {} ({} groups), {:.4g} GB/s per NPU over links of "
        "{:.4g} GB/s, {} per hop\n",
        d, ToString(dim.kind), dim.size, topology.GroupCount(d), dim.bandwidth_Bpns,
        dim.bandwidth_Bpns * graph.LinksOf(d).LinkBandwidthFraction(),
        FormatDuration(dim.latency_ns));
    std::cout << graph.LinksOf(d).Shape().Describe();  // the kind's own lines (a Clos's tiers)
  }
  const NpuReachability reachability = graph.CheckReachability();
  std::cout << "reachability: " << reachability.Describe() << "\n";

  if (!route.empty()) {
    const uint64_t src = route[0], dst = route[1];
    if (src >= graph.NpuCount() || dst >= graph.NpuCount()) {
      std::cerr << fmt::format("hfsim: error: --route: NPU ids must be below {}, got {} {}\n",
                               graph.NpuCount(), src, dst);
      return 2;
    }
    const auto hops = graph.Route(static_cast<VertexId>(src), static_cast<VertexId>(dst));
    std::cout << fmt::format("route {} -> {}: {} hops, {} of link latency\n", src, dst, hops.size(),
                             FormatDuration(graph.RouteLatency_ns(hops)));
    for (LinkId id : hops) {
      const FabricLink& link = graph.Link(id);
      auto name = [&](VertexId v) {
        return graph.IsSwitch(v) ? fmt::format("switch {}", v) : fmt::format("NPU {}", v);
      };
      std::cout << fmt::format("  {} -> {}  (dim {}, link {})\n", name(link.source),
                               name(link.target), link.dimension, id);
    }
  }

  if (!out_dir.empty()) {
    std::string csv =
        "link,source,target,source_is_switch,target_is_switch,dimension,local_link,"
        "bandwidth_GBps,latency_ns\n";
    for (LinkId id = 0; id < graph.LinkCount(); ++id) {
      const FabricLink& link = graph.Link(id);
      csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", id, link.source, link.target,
                         graph.IsSwitch(link.source) ? 1 : 0, graph.IsSwitch(link.target) ? 1 : 0,
                         link.dimension, link.local_link, NumberText(link.bandwidth_Bpns),
                         NumberText(link.latency_ns));
    }
    OutputFiles files(out_dir);
    files.Add("links.csv", std::move(csv));
    if (auto error = files.Commit()) {
      std::cerr << "hfsim: error: " << error->message << "\n";
      return error->exit_code;
    }
    std::cout << "wrote " << files.Describe() << "\n";
  }
  return reachability.AllReachable() ? 0 : 1;
}

}  // namespace hfsim
