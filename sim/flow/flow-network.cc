#include "sim/flow/flow-network.h"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "sim/flow/max-min-rates.h"
#include "topologies/dimension-kinds.h"

namespace hfsim {

FlowNetwork::FlowNetwork(const FabricGraph& fabric, uint64_t seed)
    : m_fabric(&fabric),
      m_seed(seed),
      m_has_ecmp(std::any_of(
          fabric.GetTopology().Dimensions().begin(), fabric.GetTopology().Dimensions().end(),
          [](const Dimension& dim) { return KindEntry(dim.kind).ecmp; })),
      m_link_bytes(fabric.LinkCount(), 0),
      m_link_peak(fabric.LinkCount(), 0),
      m_flows_on(fabric.LinkCount()),
      m_link_mark(fabric.LinkCount(), 0),
      m_local(fabric.LinkCount(), 0) {}

FlowNetwork::FlowId FlowNetwork::Start(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t tag) {
  const FlowId id = m_next_id++;
  if (src == dst || bytes == 0) {
    m_arrivals.Add(m_now + m_fabric->RouteLatency_ns(src, dst), {id, tag, bytes});
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
  flow.route.clear();  // a reused slot keeps its route's memory
  m_fabric->AppendRoute(src, dst, flow.route, m_has_ecmp ? EcmpValue(m_seed, src, dst, tag) : 0);
  flow.id = id;
  flow.tag = tag;
  flow.bytes = bytes;
  flow.remaining = static_cast<double>(bytes);
  flow.since = m_now;
  flow.rate = 0.0;
  flow.latency = m_fabric->RouteLatency_ns(flow.route);
  flow.draining = true;
  ++flow.version;
  flow.mark = 0;
  for (const LinkId link : flow.route) {
    if (__builtin_add_overflow(m_link_bytes[link], bytes, &m_link_bytes[link])) {
      throw std::overflow_error("FlowNetwork: a link carried more than 2^64 bytes");
    }
    m_flows_on[link].push_back(slot);
    m_link_peak[link] = std::max(m_link_peak[link], static_cast<uint32_t>(m_flows_on[link].size()));
  }
  // Solved lazily, once for every flow started at this time (a collective's step starts many).
  m_dirty.insert(m_dirty.end(), flow.route.begin(), flow.route.end());
  return id;
}

// Max-min rates of disjoint sets of links are independent: only the flows connected to the
// changed links (through links they share, transitively) need new rates. Each of them has its
// bytes left settled at the old rate first, and its drain time filed anew.
void FlowNetwork::Solve(const std::vector<LinkId>& changed) {
  ++m_generation;
  // Scratch kept between solves: a run makes millions of them.
  std::vector<LinkId>& links = m_solve_links;
  std::vector<uint32_t>& flows = m_solve_flows;
  links.clear();
  flows.clear();
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
  // No sorting: the search order is itself deterministic, and max-min rates do not depend on
  // the order of the flows.
  std::vector<double>& capacity = m_solve_capacity;
  capacity.clear();
  for (size_t i = 0; i < links.size(); ++i) {
    capacity.push_back(m_fabric->Link(links[i]).bandwidth_Bpns);
    m_local[links[i]] = static_cast<uint32_t>(i);
  }
  // Demands are reused whole (their link lists keep their memory); only the first
  // flows.size() are passed.
  if (m_solve_demands.size() < flows.size()) m_solve_demands.resize(flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    std::vector<uint32_t>& on = m_solve_demands[f].links;
    on.clear();
    for (const LinkId link : m_slots[flows[f]].route) on.push_back(m_local[link]);
  }
  const std::span<const FlowDemand> demands(m_solve_demands.data(), flows.size());
  const std::vector<double> rates = MaxMinRates(capacity, demands);
  for (size_t f = 0; f < flows.size(); ++f) {
    Flow& flow = m_slots[flows[f]];
    // A flow whose rate has not changed keeps its drain time: its entry stays valid, and
    // re-filing it would only grow the heap with stale entries (most of a large component is
    // untouched by one flow leaving).
    if (flow.rate == rates[f]) continue;
    flow.remaining -= flow.rate * (m_now - flow.since);
    flow.since = m_now;
    flow.rate = rates[f];
    ++flow.version;
    m_drains.Add(m_now + std::max(0.0, flow.remaining) / flow.rate, {flows[f], flow.version});
  }
}

void FlowNetwork::DropStale() {
  while (!m_drains.Empty()) {
    std::vector<Drain>& first = m_drains.First();
    while (!first.empty() && Stale(first.front())) {
      first.front() = first.back();
      first.pop_back();
    }
    if (!first.empty()) return;
    m_drains.DropFirst();
  }
}

void FlowNetwork::Flush() {
  if (m_dirty.empty()) return;
  m_changed.swap(m_dirty);  // both keep their memory
  m_dirty.clear();
  Solve(m_changed);
}

double FlowNetwork::NextEvent() {
  Flush();
  DropStale();
  double next = std::numeric_limits<double>::infinity();
  if (!m_drains.Empty()) next = m_drains.FirstTime();
  if (!m_arrivals.Empty()) next = std::min(next, m_arrivals.FirstTime());
  return next;
}

const std::vector<FlowNetwork::Arrival>& FlowNetwork::Advance(double until) {
  if (until < m_now || until > NextEvent() * (1 + 1e-12)) {
    throw std::invalid_argument("FlowNetwork::AdvanceTo: from now to the next event at most");
  }
  m_now = until;
  // Flows drained by now leave; their last byte is on its way, and the flows that shared their
  // links get new rates at the next solve. That solve is left for NextEvent, before time moves
  // on, so that it also covers the flows that the arrivals start at this same time (a step's
  // sends follow its receives at once): one solve of the links where two would do the same.
  DropStale();
  while (!m_drains.Empty() && m_drains.FirstTime() <= m_now) {
    for (const Drain& drain : m_drains.First()) {
      if (Stale(drain)) continue;
      Flow& flow = m_slots[drain.slot];
      flow.draining = false;
      for (const LinkId link : flow.route) {
        auto& on = m_flows_on[link];
        on.erase(std::find(on.begin(), on.end(), drain.slot));
        m_dirty.push_back(link);
      }
      m_arrivals.Add(m_now + flow.latency, {flow.id, flow.tag, flow.bytes});
      m_free.push_back(drain.slot);
    }
    m_drains.DropFirst();
    DropStale();
  }
  m_arrived.clear();
  while (!m_arrivals.Empty() && m_arrivals.FirstTime() <= m_now) {
    m_arrived.insert(m_arrived.end(), m_arrivals.First().begin(), m_arrivals.First().end());
    m_arrivals.DropFirst();
  }
  std::sort(m_arrived.begin(), m_arrived.end(),
            [](const Arrival& a, const Arrival& b) { return a.id < b.id; });
  return m_arrived;
}

std::vector<FlowNetwork::FlowId> FlowNetwork::AdvanceTo(double until) {
  std::vector<FlowId> ids;
  for (const Arrival& a : Advance(until)) ids.push_back(a.id);
  return ids;
}

}  // namespace hfsim
