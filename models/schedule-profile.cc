#include "models/schedule-profile.h"

#include <algorithm>
#include <array>
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

// Per-step link loads, counted in whole blocks so that sums are exact. Transfers are between
// ranks; the kind places them (DimensionShape::PositionOfRank) and routes them.
class LinkLoads {
 public:
  explicit LinkLoads(const DimensionLinks& links)
      : m_shape(links.Shape()),
        m_use_runs(m_shape.LongRoutes()),
        m_load(m_use_runs ? 0 : links.LinkIdCount(), 0),
        m_diff(m_use_runs ? links.LinkIdCount() + 1 : 0, 0),
        m_spread(m_shape.SpreadGroupCount(), 0) {}

  void Add(uint32_t src, uint32_t dst, uint64_t blocks) {
    // On a kind with ECMP the route's spread groups stand for the links ECMP would pick: what
    // they carry is spread over SpreadWidth() links (TakeSpread), not put on one path.
    const GroupRoute route = m_shape.SpreadRoute(src, dst);
    for (uint32_t g = 0; g < route.spread_count; ++g) m_spread[route.spread[g]] += blocks;
    if (m_use_runs) {
      // A run adds the same load to consecutive links: two difference-array updates instead of
      // one per hop, so a direct all-to-all on a large ring costs O(transfers + n) per step.
      for (uint32_t r = 0; r < route.run_count; ++r) AddRun(route.runs[r], blocks);
      return;
    }
    route.ForEachLink([&](uint32_t link, uint32_t) {
      if (m_load[link] == 0) m_touched.push_back(link);
      m_load[link] += blocks;
    });
  }

  /// The busiest link's load since the last call, in blocks; resets the loads.
  uint64_t TakeMax() {
    uint64_t busiest = 0;
    if (m_use_runs) {
      int64_t load = 0;
      for (int64_t& delta : m_diff) {
        load += delta;
        busiest = std::max(busiest, static_cast<uint64_t>(load));
        delta = 0;
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

  /// Blocks on the busiest link of a spread group since the last call when ECMP spreads each
  /// group's traffic evenly over its SpreadWidth() links (a Clos: the busiest leaf's out or in,
  /// divided by S); resets the counts.
  double TakeSpread() {
    uint64_t busiest = 0;
    for (uint64_t& count : m_spread) {
      busiest = std::max(busiest, count);
      count = 0;
    }
    return static_cast<double>(busiest) / m_shape.SpreadWidth();
  }

 private:
  // Adds `value` to the run's links: the circular index range it covers within [0, modulus),
  // offset by its base.
  void AddRun(const LinkRun& run, uint64_t value) {
    const uint32_t n = run.modulus;
    const uint32_t first = run.backward ? (run.start + n - run.count + 1) % n : run.start;
    const uint32_t count = run.count;
    const auto v = static_cast<int64_t>(value);
    int64_t* diff = m_diff.data() + run.base;
    diff[first] += v;
    if (first + count <= n) {
      diff[first + count] -= v;
    } else {
      diff[n] -= v;
      diff[0] += v;
      diff[first + count - n] -= v;
    }
  }

  const DimensionShape& m_shape;
  bool m_use_runs;
  std::vector<uint64_t> m_load;
  std::vector<uint32_t> m_touched;
  std::vector<int64_t> m_diff;  // difference array over the local link ids (+ 1)
  std::vector<uint64_t> m_spread;
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
  const DimensionShape& shape = links.Shape();
  const double second_tier_fraction = shape.SecondTierFraction();
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
      const uint32_t from = shape.PositionOfRank(t.src);
      const uint32_t to = shape.PositionOfRank(t.dst);
      const uint32_t hops = links.Hops(from, to);
      longest = std::max(longest, hops);
      loads.Add(from, to, t.block_count);
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
        second_tier_fraction > 0.0
            ? std::max(npu_links, loads.TakeSpread() / blocks / second_tier_fraction)
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
  // Only what shapes the links: the kind, size and the kind's parameters.
  using Key = std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t, DimensionKind,
                         std::array<double, kMaxShapeParameters>>;
  // std::map nodes never move, so references handed out stay valid as the cache grows.
  static std::shared_mutex mutex;
  static std::map<Key, ScheduleProfile> cache;
  const Key key{kind, algorithm, dim.size, dim.kind, dim.parameters};
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
