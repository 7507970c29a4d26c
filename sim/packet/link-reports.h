// What a packet fabric counts on each link, and the per-link rows of a packet report made from
// it: one filler for every packet run (collectives and graphs, parameter servers, gossip, the
// in-network all-reduce, Libra's hot keys). Free of ns-3.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/report/report.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

struct LinkCounters {
  uint64_t packets = 0;
  uint64_t bytes = 0;             ///< wire bytes handed to the link (header + payload)
  uint64_t queue_peak_bytes = 0;  ///< deepest the egress queue got
  uint64_t drops_queue_full = 0;  ///< tail drops
  uint64_t drops_injected = 0;    ///< random loss and link-down, from the scenario's faults
  uint64_t ecn_marks = 0;
};

/// Appends every link's row to packet.links (its counters, utilisation over `simulated_ns`) and
/// adds them to the fabric-wide totals: drops, ECN marks, the deepest queue.
void FillLinkReports(const FabricGraph& graph, const std::vector<LinkCounters>& counters,
                     double simulated_ns, PacketReport& packet);

/// Each dimension's busy time as measured on the wire: its busiest link's utilisation times
/// the iteration time (report.dimensions and report.packet filled first).
void TakeBusiestPacketLinks(Report& report);

}  // namespace hfsim
