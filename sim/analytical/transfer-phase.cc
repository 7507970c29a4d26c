#include "sim/analytical/transfer-phase.h"

#include <algorithm>
#include <vector>

namespace hfsim {

double ConcurrentTransfersNs(const FabricGraph& graph, std::span<const PhaseTransfer> transfers) {
  std::vector<double> load(graph.LinkCount(), 0.0);
  double latency_ns = 0.0;
  for (const PhaseTransfer& t : transfers) {
    if (t.bytes == 0.0 || t.source == t.destination) continue;
    graph.ForEachLinkOnRoute(t.source, t.destination, [&](LinkId link) { load[link] += t.bytes; });
    latency_ns = std::max(latency_ns, graph.RouteLatency_ns(t.source, t.destination));
  }
  double bandwidth_ns = 0.0;
  for (LinkId link = 0; link < load.size(); ++link) {
    if (load[link] > 0.0) bandwidth_ns = std::max(bandwidth_ns, load[link] / graph.Link(link).bandwidth_Bpns);
  }
  return bandwidth_ns + latency_ns;
}

}  // namespace hfsim
