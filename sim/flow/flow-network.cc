#include "sim/flow/flow-network.h"

#include <algorithm>
#include <stdexcept>

#include "sim/flow/max-min-rates.h"

namespace hfsim {

FlowNetwork::FlowNetwork(const FabricGraph& fabric)
    : m_fabric(&fabric),
      m_link_bytes(fabric.LinkCount(), 0),
      m_link_peak(fabric.LinkCount(), 0),
      m_flows_on(fabric.LinkCount()),
      m_link_mark(fabric.LinkCount(), 0),
      m_local(fabric.LinkCount(), 0) {}

FlowNetwork::FlowId FlowNetwork::Start(uint32_t src, uint32_t dst, uint64_t bytes) {
  const FlowId id = m_next_id++;
  std::vector<LinkId> route = m_fabric->Route(src, dst);
  const double latency = m_fabric->RouteLatency_ns(route);
  if (route.empty() || bytes == 0) {
    Push(m_arrivals, {m_now + latency, id});
    return id;
  }
  uint32_t slot;
  if (m_free.empty()) {
    slot = static_cast<uint32_t>(m_slots.size());
    m_slots.emplace_back();
  } else {
    slot = m_free.back();
    m_free.pop_back();
  }
  Flow& flow = m_slots[slot];
  flow = Flow{
      id, std::move(route), static_cast<double>(bytes), m_now, 0.0, latency, true, flow.version + 1,
      0};
  for (const LinkId link : flow.route) {
    if (__builtin_add_overflow(m_link_bytes[link], bytes, &m_link_bytes[link])) {
      throw std::overflow_error("FlowNetwork: a link carried more than 2^64 bytes");
    }
    m_flows_on[link].push_back(slot);
    m_link_peak[link] = std::max(m_link_peak[link], static_cast<uint32_t>(m_flows_on[link].size()));
  }
  // Solved lazily, once for every flow started at this time (a collective's step starts many).
  m_dirty.insert(m_dirty.end(), m_slots[slot].route.begin(), m_slots[slot].route.end());
  return id;
}

// Max-min rates of disjoint sets of links are independent: only the flows connected to the
// changed links (through links they share, transitively) need new rates. Each of them has its
// bytes left settled at the old rate first, and its drain time filed anew.
void FlowNetwork::Solve(const std::vector<LinkId>& changed) {
  ++m_generation;
  std::vector<LinkId> links;
  std::vector<uint32_t> flows;
  auto visit_link = [&](LinkId link) {
    if (m_link_mark[link] == m_generation) return;
    m_link_mark[link] = m_generation;
    links.push_back(link);
  };
  for (const LinkId link : changed) visit_link(link);
  for (size_t next = 0; next < links.size(); ++next) {
    for (const uint32_t slot : m_flows_on[links[next]]) {
      Flow& flow = m_slots[slot];
      if (flow.mark == m_generation) continue;
      flow.mark = m_generation;
      flows.push_back(slot);
      for (const LinkId link : flow.route) visit_link(link);
    }
  }
  if (flows.empty()) return;
  ++m_solves;
  m_largest_solve = std::max<uint64_t>(m_largest_solve, flows.size());
  std::sort(flows.begin(), flows.end());  // deterministic: by slot, whatever the search order
  std::vector<double> capacity;
  capacity.reserve(links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    capacity.push_back(m_fabric->Link(links[i]).bandwidth_Bpns);
    m_local[links[i]] = static_cast<uint32_t>(i);
  }
  std::vector<FlowDemand> demands(flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    for (const LinkId link : m_slots[flows[f]].route) demands[f].links.push_back(m_local[link]);
  }
  const std::vector<double> rates = MaxMinRates(capacity, demands);
  for (size_t f = 0; f < flows.size(); ++f) {
    Flow& flow = m_slots[flows[f]];
    flow.remaining -= flow.rate * (m_now - flow.since);
    flow.since = m_now;
    flow.rate = rates[f];
    ++flow.version;
    Push(m_drains, {m_now + std::max(0.0, flow.remaining) / flow.rate, flows[f], flow.version});
  }
}

void FlowNetwork::DropStale() {
  while (!m_drains.empty()) {
    const Drain& top = m_drains.front();
    const Flow& flow = m_slots[top.key];
    if (flow.draining && flow.version == top.version) return;
    Pop(m_drains);
  }
}

void FlowNetwork::Flush() {
  if (m_dirty.empty()) return;
  std::vector<LinkId> changed;
  changed.swap(m_dirty);
  Solve(changed);
}

double FlowNetwork::NextEvent() {
  Flush();
  DropStale();
  double next = std::numeric_limits<double>::infinity();
  if (!m_drains.empty()) next = m_drains.front().at;
  if (!m_arrivals.empty()) next = std::min(next, m_arrivals.front().at);
  return next;
}

std::vector<FlowNetwork::FlowId> FlowNetwork::AdvanceTo(double until) {
  if (until < m_now || until > NextEvent() * (1 + 1e-12)) {
    throw std::invalid_argument("FlowNetwork::AdvanceTo: from now to the next event at most");
  }
  m_now = until;
  // Flows drained by now leave; their last byte is on its way, and the flows that shared their
  // links get new rates.
  std::vector<LinkId> freed;
  while (true) {
    DropStale();
    if (m_drains.empty() || m_drains.front().at > m_now) break;
    const uint32_t slot = m_drains.front().key;
    Pop(m_drains);
    Flow& flow = m_slots[slot];
    flow.draining = false;
    for (const LinkId link : flow.route) {
      auto& on = m_flows_on[link];
      on.erase(std::find(on.begin(), on.end(), slot));
      freed.push_back(link);
    }
    Push(m_arrivals, {m_now + flow.latency, flow.id});
    flow.route.clear();
    m_free.push_back(slot);
  }
  if (!freed.empty()) {
    m_dirty.insert(m_dirty.end(), freed.begin(), freed.end());
    Flush();
  }
  std::vector<FlowId> arrived;
  while (!m_arrivals.empty() && m_arrivals.front().at <= m_now) {
    arrived.push_back(m_arrivals.front().key);
    Pop(m_arrivals);
  }
  std::sort(arrived.begin(), arrived.end());
  return arrived;
}

}  // namespace hfsim
