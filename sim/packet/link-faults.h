// The scenario's injected faults on links (packet.faults): random loss per link and intervals
// in which a link drops everything. One definition for both fabrics (the L2 fabric of the RDMA
// transport and the IP fabric of TCP), so a scenario means the same on either transport.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sim/scenario/scenario.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

class LinkFaults {
 public:
  LinkFaults(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed);

  /// Whether the link has any fault at all (random loss or a down interval).
  bool HasFaults(LinkId link) const { return m_loss_rate[link] > 0.0 || !m_down[link].empty(); }
  /// Whether a packet crossing `link` at `now_ns` is lost. Draws a random number only on links
  /// with random loss, so adding loss to one link leaves every other link's packets (and the
  /// run's determinism) untouched.
  bool Lose(LinkId link, double now_ns);
  /// The random loss probability of `link` (the most specific `link_loss` entry that covers it).
  double LossRate(LinkId link) const { return m_loss_rate[link]; }

 private:
  std::vector<double> m_loss_rate;                             ///< by link id
  std::vector<std::vector<std::pair<double, double>>> m_down;  ///< by link id: [from, until)
  std::mt19937_64 m_random;
  std::uniform_real_distribution<double> m_uniform{0.0, 1.0};
};

}  // namespace hfsim
