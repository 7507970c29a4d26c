// Messages as fluid flows on the fabric graph's links. A message from one NPU to another drains
// over its route (FabricGraph's dimension-order route) at a rate that max-min fairness gives it
// among every flow draining at the same time; rates are re-solved whenever a flow starts or
// finishes draining. Its last byte arrives the route's latency (each hop's, added once) after
// it has drained. There is no loss and no queue: what a flow-level model cannot see is written
// down in docs/flow.md.
//
// The caller drives time: it starts flows at the current time, asks when the next event is (a
// flow finishing draining, which changes the others' rates, or a message arriving), and
// advances to it, or to an earlier time of its own to start more flows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "sim/flow/max-min-rates.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

class FlowNetwork {
 public:
  using FlowId = uint64_t;  // in start order; 2^64 never wraps

  /// `seed` feeds ECMP's hash on Clos dimensions (EcmpValue of the ends and the tag), as the
  /// packet engine's does.
  explicit FlowNetwork(const FabricGraph& fabric, uint64_t seed = 0);

  /// Starts a message of `bytes` from NPU `src` to NPU `dst` now (the time of the last
  /// AdvanceTo, 0 at first). A message to itself, or of 0 bytes, only waits for the latency.
  /// `tag` is the caller's, handed back on arrival (so that it needs no map of its own).
  FlowId Start(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t tag = 0);

  /// When the next flow finishes draining or the next message arrives (infinity when nothing is
  /// under way).
  double NextEvent();
  double Now() const { return m_now; }

  struct Arrival {
    FlowId id;
    uint64_t tag;
    uint64_t bytes;
  };
  /// Moves time to `until` (at least Now(), at most NextEvent()) and returns the messages that
  /// have arrived by then, in the order they were started. The vector is reused by the next
  /// call.
  const std::vector<Arrival>& Advance(double until);
  /// The same, as flow ids.
  std::vector<FlowId> AdvanceTo(double until);

  /// Per link (LinkId), bytes carried so far and the most flows it carried at once.
  const std::vector<uint64_t>& LinkBytes() const { return m_link_bytes; }
  const std::vector<uint32_t>& LinkPeakFlows() const { return m_link_peak; }
  /// Max-min solves so far, and the most flows one of them re-rated.
  uint64_t Solves() const { return m_solves; }
  uint64_t LargestSolve() const { return m_largest_solve; }

 private:
  struct Flow {
    FlowId id = 0;
    uint64_t tag = 0;
    uint64_t bytes = 0;
    std::vector<LinkId> route;
    double remaining = 0.0;  // bytes not yet drained at time `since`
    double since = 0.0;
    double rate = 0.0;      // bytes per ns
    double latency = 0.0;   // ns, added once the last byte has drained
    bool draining = false;  // false: a free slot
    uint64_t version = 0;   // bumped at every new rate: older drain entries are stale
    uint64_t mark = 0;      // the last solve that reached it
  };
  // Events filed by time, one bucket per distinct time. Many flows share a time (every flow of
  // a collective's step starts, drains and arrives together), and times are mostly filed in
  // increasing order, so a bucket is usually found at the end in O(1): much cheaper than a heap
  // entry per flow, which a step of thousands of flows would sift through.
  template <typename Entry>
  class TimeBuckets {
   public:
    void Add(double at, Entry entry) {
      if (!m_buckets.empty() && m_buckets.rbegin()->first == at) {
        m_buckets.rbegin()->second.push_back(entry);
      } else {
        m_buckets[at].push_back(entry);
      }
    }
    bool Empty() const { return m_buckets.empty(); }
    double FirstTime() const { return m_buckets.begin()->first; }
    std::vector<Entry>& First() { return m_buckets.begin()->second; }
    void DropFirst() { m_buckets.erase(m_buckets.begin()); }

   private:
    std::map<double, std::vector<Entry>> m_buckets;
  };
  struct Drain {
    uint32_t slot;
    uint64_t version;  // the flow's version when filed: stale once the flow changes rate
  };
  bool Stale(const Drain& drain) const {
    const Flow& flow = m_slots[drain.slot];
    return !flow.draining || flow.version != drain.version;
  }
  // New rates for the flows connected, through shared links, to `changed`.
  void Solve(const std::vector<LinkId>& changed);
  // Drops drain entries whose flow has left or changed rate since, until the first bucket
  // starts with a valid one (or none is left).
  void DropStale();
  // Solves for the links changed since the last solve (flows started), if any.
  void Flush();

  const FabricGraph* m_fabric;
  uint64_t m_seed;
  bool m_has_ecmp;  // a dimension routes by ECMP (a Clos): only then does a route need its value
  double m_now = 0.0;
  FlowId m_next_id = 0;
  std::vector<Flow> m_slots;  // draining flows, by slot; freed slots are reused
  std::vector<uint32_t> m_free;
  TimeBuckets<Drain> m_drains;
  TimeBuckets<Arrival> m_arrivals;  // drained (or empty) messages, their last byte on its way
  std::vector<Arrival> m_arrived;   // AdvanceTo's scratch
  std::vector<uint64_t> m_link_bytes;
  std::vector<uint32_t> m_link_peak;
  std::vector<std::vector<uint32_t>> m_flows_on;  // per link: slots of the flows draining on it
  std::vector<uint64_t> m_link_mark;              // per link: the last solve that reached it
  std::vector<uint32_t> m_local;                  // per link: its index in the current solve
  uint64_t m_generation = 0;
  uint64_t m_solves = 0;
  uint64_t m_largest_solve = 0;
  std::vector<LinkId> m_dirty;    // links of flows started or drained since the last solve
  std::vector<LinkId> m_changed;  // Flush's scratch
  // Solve's scratch, kept to spare its allocations.
  std::vector<LinkId> m_solve_links;
  std::vector<uint32_t> m_solve_flows;
  std::vector<double> m_solve_capacity;
  std::vector<FlowDemand> m_solve_demands;
};

}  // namespace hfsim
