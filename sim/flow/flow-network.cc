#include "sim/flow/flow-network.h"

#include <algorithm>
#include <stdexcept>

#include "sim/flow/max-min-rates.h"

namespace hfsim {

FlowNetwork::FlowNetwork(const FabricGraph& fabric)
    : m_fabric(&fabric),
      m_link_bytes(fabric.LinkCount(), 0.0),
      m_link_peak(fabric.LinkCount(), 0),
      m_link_flows(fabric.LinkCount(), 0) {}

FlowNetwork::FlowId FlowNetwork::Start(uint32_t src, uint32_t dst, uint64_t bytes) {
  const FlowId id = m_next_id++;
  Flow flow{id, m_fabric->Route(src, dst), static_cast<double>(bytes), 0.0, 0.0};
  flow.latency = m_fabric->RouteLatency_ns(flow.route);
  if (flow.route.empty() || bytes == 0) {
    m_in_flight.push_back({id, m_now + flow.latency});
    return id;
  }
  for (const LinkId link : flow.route) {
    m_link_bytes[link] += flow.remaining;
    m_link_peak[link] = std::max(m_link_peak[link], ++m_link_flows[link]);
  }
  m_draining.push_back(std::move(flow));
  Solve();
  return id;
}

void FlowNetwork::Solve() {
  std::vector<double> capacity;
  capacity.reserve(m_fabric->LinkCount());
  for (const FabricLink& link : m_fabric->Links()) capacity.push_back(link.bandwidth_Bpns);
  std::vector<FlowDemand> demands;
  demands.reserve(m_draining.size());
  for (const Flow& flow : m_draining) demands.push_back({flow.route});
  const std::vector<double> rates = MaxMinRates(capacity, demands);
  for (size_t f = 0; f < m_draining.size(); ++f) m_draining[f].rate = rates[f];
}

double FlowNetwork::NextEvent() const {
  double next = std::numeric_limits<double>::infinity();
  for (const Flow& flow : m_draining) next = std::min(next, m_now + flow.remaining / flow.rate);
  for (const InFlight& message : m_in_flight) next = std::min(next, message.arrival);
  return next;
}

std::vector<FlowNetwork::FlowId> FlowNetwork::AdvanceTo(double until) {
  if (until < m_now || until > NextEvent() * (1 + 1e-12)) {
    throw std::invalid_argument("FlowNetwork::AdvanceTo: from now to the next event at most");
  }
  for (Flow& flow : m_draining) flow.remaining -= flow.rate * (until - m_now);
  m_now = until;
  // Flows drained by now (within rounding) leave the solve; their last byte is on its way.
  bool drained = false;
  for (size_t f = 0; f < m_draining.size();) {
    Flow& flow = m_draining[f];
    if (flow.remaining > 1e-9 * flow.rate) {
      ++f;
      continue;
    }
    for (const LinkId link : flow.route) --m_link_flows[link];
    m_in_flight.push_back({flow.id, m_now + flow.latency});
    m_draining.erase(m_draining.begin() + static_cast<std::ptrdiff_t>(f));
    drained = true;
  }
  if (drained && !m_draining.empty()) Solve();
  std::sort(m_in_flight.begin(), m_in_flight.end(),
            [](const InFlight& a, const InFlight& b) { return a.id < b.id; });
  std::vector<FlowId> arrived;
  std::vector<InFlight> still;
  for (const InFlight& message : m_in_flight) {
    if (message.arrival <= m_now) {
      arrived.push_back(message.id);
    } else {
      still.push_back(message);
    }
  }
  m_in_flight = std::move(still);
  return arrived;
}

}  // namespace hfsim
