#include "sim/packet/link-faults.h"

namespace hfsim {

LinkFaults::LinkFaults(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed)
    : m_random(seed) {
  const uint64_t links = graph.LinkCount();
  m_loss_rate.assign(links, 0.0);
  m_down.resize(links);
  for (const LinkLoss& loss : spec.link_loss) {
    for (LinkId l = 0; l < links; ++l) {
      const bool applies = loss.link ? *loss.link == l
                                     : (!loss.dimension || *loss.dimension == graph.Link(l).dimension);
      if (applies) m_loss_rate[l] = loss.rate;
    }
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
