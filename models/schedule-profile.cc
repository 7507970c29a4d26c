#include "models/schedule-profile.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "models/schedule-profile-closed-form.h"
#include "topologies/dimension-links.h"

namespace hfsim {
namespace {

// Per-step link loads, counted in whole blocks so that sums are exact.
class LinkLoads {
 public:
  explicit LinkLoads(const DimensionLinks& links)
      : m_links(links),
        m_use_arcs(links.Kind() == DimensionKind::kRing && links.Size() >= 3),
        m_load(m_use_arcs ? 0 : links.LinkIdCount(), 0),
        m_clockwise(m_use_arcs ? links.Size() + 1 : 0, 0),
        m_counter(m_use_arcs ? links.Size() + 1 : 0, 0),
        m_clos(links.Kind() == DimensionKind::kClos),
        m_leaf_out(m_clos ? links.Size() / links.LeafNpus() : 0, 0),
        m_leaf_in(m_leaf_out.size(), 0) {}

  void Add(uint32_t src, uint32_t dst, uint64_t blocks) {
    if (m_clos) {
      // The NPU links as on a Switch; what leaves a leaf is counted per leaf, to be spread over
      // its spines (TakeSpine), not put on the one spine a route with no ECMP value would take.
      for (const uint32_t link : {src, m_links.Size() + dst}) {
        if (m_load[link] == 0) m_touched.push_back(link);
        m_load[link] += blocks;
      }
      const uint32_t from = src / m_links.LeafNpus();
      const uint32_t to = dst / m_links.LeafNpus();
      if (from != to) {
        m_leaf_out[from] += blocks;
        m_leaf_in[to] += blocks;
      }
      return;
    }
    if (m_use_arcs) {
      // An arc adds the same load to consecutive links: two difference-array updates instead of
      // one per hop, so a direct all-to-all on a large ring costs O(transfers + n) per step.
      const DimensionLinks::RingArc arc = m_links.RingRoute(src, dst);
      const uint32_t n = m_links.Size();
      if (arc.clockwise) {
        AddRange(m_clockwise, arc.start_peer, arc.hops, blocks);  // links src, src+1, ...
      } else {
        // Counter-clockwise link n+i leaves peer i: the arc covers peers src-hops+1 .. src.
        AddRange(m_counter, (arc.start_peer + n - arc.hops + 1) % n, arc.hops, blocks);
      }
      return;
    }
    m_links.ForEachLinkOnRoute(src, dst, [&](uint32_t link) {
      if (m_load[link] == 0) m_touched.push_back(link);
      m_load[link] += blocks;
    });
  }

  /// The busiest link's load since the last call, in blocks; resets the loads.
  uint64_t TakeMax() {
    uint64_t busiest = 0;
    if (m_use_arcs) {
      for (std::vector<int64_t>* diff : {&m_clockwise, &m_counter}) {
        int64_t load = 0;
        for (int64_t& delta : *diff) {
          load += delta;
          busiest = std::max(busiest, static_cast<uint64_t>(load));
          delta = 0;
        }
      }
      return busiest;
    }
    for (uint32_t link : m_touched) {
      busiest = std::max(busiest, m_load[link]);
      m_load[link] = 0;
    }
    m_touched.clear();
    return busiest;
  }

  /// Clos: blocks on the busiest leaf-spine link since the last call when ECMP spreads each
  /// leaf's traffic to other leaves evenly over the S spines (the busiest leaf's out or in,
  /// divided by S); resets the counts.
  double TakeSpine() {
    uint64_t busiest = 0;
    for (std::vector<uint64_t>* counts : {&m_leaf_out, &m_leaf_in}) {
      for (uint64_t& count : *counts) {
        busiest = std::max(busiest, count);
        count = 0;
      }
    }
    return static_cast<double>(busiest) / m_links.Spines();
  }

 private:
  // Adds `value` to the circular index range [first, first + count) of a ring of size n.
  void AddRange(std::vector<int64_t>& diff, uint32_t first, uint32_t count, uint64_t value) {
    const uint32_t n = m_links.Size();
    const auto v = static_cast<int64_t>(value);
    diff[first] += v;
    if (first + count <= n) {
      diff[first + count] -= v;
    } else {
      diff[n] -= v;
      diff[0] += v;
      diff[first + count - n] -= v;
    }
  }

  const DimensionLinks& m_links;
  bool m_use_arcs;
  std::vector<uint64_t> m_load;
  std::vector<uint32_t> m_touched;
  std::vector<int64_t> m_clockwise;  // difference arrays over link ids [0,n) and [n,2n)
  std::vector<int64_t> m_counter;
  bool m_clos;
  std::vector<uint64_t> m_leaf_out;  // Clos: blocks each leaf sends to other leaves this step
  std::vector<uint64_t> m_leaf_in;   // and receives from them
};

}  // namespace

double ScheduleProfile::TimeNs(double buffer_bytes, double bandwidth_Bpns, double latency_ns,
                               double endpoint_delay_ns, double reduction_Bpns,
                               const HostStack& host) const {
  double time = steps * endpoint_delay_ns + messages * host.send_per_message_ns +
                latency_hops * latency_ns + bandwidth_coefficient * buffer_bytes / bandwidth_Bpns;
  if (reduction_Bpns > 0.0) time += reduction_coefficient * buffer_bytes / reduction_Bpns;
  // Only a posting cost (kind none, host_overhead_ns_per_message): the sum above, unchanged.
  if (host.HasMoreThanPosting()) time += HostExtraNs(buffer_bytes, latency_ns, host);
  return time;
}

double ScheduleProfile::HostExtraNs(double buffer_bytes, double latency_ns,
                                    const HostStack& host) const {
  return received_messages * host.receive_per_message_ns +
         (sent_bytes_coefficient * host.send_per_byte_ns +
          received_bytes_coefficient * host.receive_per_byte_ns) *
             buffer_bytes +
         host.extra_round_trips * 2.0 * latency_hops * latency_ns;
}

ScheduleProfile ProfileSchedule(const Schedule& schedule, DimensionKind dimension_kind) {
  Dimension dim;
  dim.kind = dimension_kind;
  dim.size = schedule.peers;
  return ProfileSchedule(schedule, dim);
}

ScheduleProfile ProfileSchedule(const Schedule& schedule, const Dimension& dim) {
  if (dim.size != schedule.peers) {
    throw std::invalid_argument("ProfileSchedule: the schedule is for another group size");
  }
  const DimensionLinks links(dim);
  const double spine_fraction =
      dim.kind == DimensionKind::kClos ? links.LinkBandwidthFraction(2 * dim.size) : 0.0;
  const double blocks = static_cast<double>(schedule.block_count);
  LinkLoads loads(links);
  std::vector<uint64_t> reduced(schedule.peers, 0);  // blocks reduced at each NPU in a step
  std::vector<uint32_t> reducers;
  std::vector<uint32_t> posted(schedule.peers, 0);      // messages each NPU sends in a step
  std::vector<uint32_t> received(schedule.peers, 0);    // messages each NPU receives in a step
  std::vector<uint64_t> out_blocks(schedule.peers, 0);  // blocks each NPU sends in a step
  std::vector<uint64_t> in_blocks(schedule.peers, 0);   // blocks each NPU receives in a step
  uint64_t sent_blocks = 0;
  uint64_t link_blocks = 0;

  ScheduleProfile profile;
  profile.steps = static_cast<uint32_t>(schedule.steps.size());
  for (const Step& step : schedule.steps) {
    uint32_t longest = 0;
    for (const Transfer& t : step.transfers) {
      const uint32_t hops = links.Hops(t.src, t.dst);
      longest = std::max(longest, hops);
      loads.Add(t.src, t.dst, t.block_count);
      ++posted[t.src];
      ++received[t.dst];
      out_blocks[t.src] += t.block_count;
      in_blocks[t.dst] += t.block_count;
      sent_blocks += t.block_count;
      link_blocks += static_cast<uint64_t>(t.block_count) * hops;
      if (t.reduce) {
        if (reduced[t.dst] == 0) reducers.push_back(t.dst);
        reduced[t.dst] += t.block_count;
      }
    }
    uint64_t most_reduced = 0;
    for (uint32_t npu : reducers) {
      most_reduced = std::max(most_reduced, reduced[npu]);
      reduced[npu] = 0;
    }
    reducers.clear();
    uint32_t most_posted = 0;
    for (uint32_t& count : posted) {
      most_posted = std::max(most_posted, count);
      count = 0;
    }
    uint32_t most_received = 0;
    uint64_t most_out = 0;
    uint64_t most_in = 0;
    for (uint32_t npu = 0; npu < schedule.peers; ++npu) {
      most_received = std::max(most_received, received[npu]);
      most_out = std::max(most_out, out_blocks[npu]);
      most_in = std::max(most_in, in_blocks[npu]);
      received[npu] = 0;
      out_blocks[npu] = 0;
      in_blocks[npu] = 0;
    }
    profile.messages += most_posted;
    profile.received_messages += most_received;
    profile.sent_bytes_coefficient += static_cast<double>(most_out) / blocks;
    profile.received_bytes_coefficient += static_cast<double>(most_in) / blocks;
    profile.latency_hops += longest;
    // As ProfileSum (schedule-profile-closed-form.cc) adds it, to the bit.
    const double npu_links =
        static_cast<double>(loads.TakeMax()) / blocks / links.LinkBandwidthFraction();
    profile.bandwidth_coefficient +=
        spine_fraction > 0.0 ? std::max(npu_links, loads.TakeSpine() / blocks / spine_fraction)
                             : npu_links;
    profile.reduction_coefficient += static_cast<double>(most_reduced) / blocks;
  }
  profile.traffic_coefficient = static_cast<double>(sent_blocks) / blocks / schedule.peers;
  profile.link_bytes_coefficient = static_cast<double>(link_blocks) / blocks;
  return profile;
}

const ScheduleProfile& CachedProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                     uint32_t peers, DimensionKind dimension_kind) {
  Dimension dim;
  dim.kind = dimension_kind;
  dim.size = peers;
  return CachedProfile(kind, algorithm, dim);
}

const ScheduleProfile& CachedProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                     const Dimension& dim) {
  // Only what shapes the links: a Clos's leaves, spines and oversubscription (0 / 1 elsewhere).
  using Key = std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t, DimensionKind, uint32_t,
                         uint32_t, double>;
  // std::map nodes never move, so references handed out stay valid as the cache grows.
  static std::shared_mutex mutex;
  static std::map<Key, ScheduleProfile> cache;
  const Key key{kind,       algorithm,           dim.size, dim.kind, dim.leaf_npus,
                dim.spines, dim.oversubscription};
  {
    std::shared_lock lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  // Computed outside the lock so that other lookups are not held up; two threads racing on the
  // same key compute the same value and the first insert wins. The closed form gives the walked
  // profile bit for bit in O(steps) time and O(1) memory; walking the schedule is left for the
  // double binary tree, whose 4(peers-1) transfers keep it linear in the group size.
  std::optional<ScheduleProfile> closed = ClosedFormProfile(kind, algorithm, dim);
  ScheduleProfile profile =
      closed ? *closed : ProfileSchedule(BuildSchedule(kind, algorithm, dim.size), dim);
  std::unique_lock lock(mutex);
  return cache.try_emplace(key, profile).first->second;
}

}  // namespace hfsim
