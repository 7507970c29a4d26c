#include "sim/packet/link-reports.h"

#include <algorithm>

#include "sim/report/link-rows.h"

namespace hfsim {

void FillLinkReports(const FabricGraph& graph, const std::vector<LinkCounters>& counters,
                     double simulated_ns, PacketReport& packet) {
  packet.links.reserve(packet.links.size() + counters.size());
  for (LinkId id = 0; id < counters.size(); ++id) {
    const LinkCounters& c = counters[id];
    LinkReport entry = LinkRow<LinkReport>(graph, id, c.bytes, simulated_ns);
    entry.packets = c.packets;
    entry.queue_peak_bytes = c.queue_peak_bytes;
    entry.drops_queue_full = c.drops_queue_full;
    entry.drops_injected = c.drops_injected;
    entry.ecn_marks = c.ecn_marks;
    packet.drops_queue_full += c.drops_queue_full;
    packet.drops_injected += c.drops_injected;
    packet.ecn_marks += c.ecn_marks;
    packet.queue_peak_bytes = std::max(packet.queue_peak_bytes, c.queue_peak_bytes);
    packet.links.push_back(entry);
  }
}

void TakeBusiestPacketLinks(Report& report) {
  const double iteration_ns = report.iteration.total_ns;
  TakeBusiestLinks(
      report.packet->links, [&](const LinkReport& link) { return link.utilisation * iteration_ns; },
      report.dimensions);
}

}  // namespace hfsim
