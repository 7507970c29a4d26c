#include "sim/packet/link-faults.h"

namespace hfsim {

LinkFaults::LinkFaults(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed)
    : m_random(seed) {
  const uint64_t links = graph.LinkCount();
  m_loss_rate.assign(links, 0.0);
  m_down.resize(links);
  // The most specific entry wins whatever the order (docs/packet-engine.md): the whole fabric,
  // then a dimension, then one link. The loader refuses two entries with the same scope.
  for (const LinkLoss& loss : spec.link_loss) {
    if (loss.link || loss.dimension) continue;
    for (LinkId l = 0; l < links; ++l) m_loss_rate[l] = loss.rate;
  }
  for (const LinkLoss& loss : spec.link_loss) {
    if (loss.link || !loss.dimension) continue;
    for (LinkId l = 0; l < links; ++l) {
      if (graph.Link(l).dimension == *loss.dimension) m_loss_rate[l] = loss.rate;
    }
  }
  for (const LinkLoss& loss : spec.link_loss) {
    if (loss.link) m_loss_rate[*loss.link] = loss.rate;
  }
  for (const LinkDown& down : spec.link_down) {
    m_down[down.link].emplace_back(down.from_ns, down.until_ns);
  }
}

bool LinkFaults::Lose(LinkId link, double now_ns) {
  bool lost = m_loss_rate[link] > 0.0 && m_uniform(m_random) < m_loss_rate[link];
  for (const auto& [from, until] : m_down[link]) {
    if (now_ns >= from && now_ns < until) lost = true;
  }
  return lost;
}

}  // namespace hfsim
