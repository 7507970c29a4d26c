#include "models/schedule-profile-closed-form.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "topologies/dimension-links.h"

namespace hfsim {
namespace {

// What ProfileSchedule takes from one step, in whole blocks and messages.
struct StepMaxima {
  uint32_t longest_hops = 0;   // the longest route
  uint64_t busiest_link = 0;   // blocks on the busiest link
  uint64_t most_reduced = 0;   // blocks reduced at one NPU
  uint32_t most_posted = 0;    // messages one NPU sends
  uint32_t most_received = 0;  // messages one NPU receives
  uint64_t most_out = 0;       // blocks one NPU sends
  uint64_t most_in = 0;        // blocks one NPU receives
};

// Adds steps up as ProfileSchedule does: the same conversions and divisions, step by step in
// schedule order, so that the floating-point sums are the same to the last bit.
class ProfileSum {
 public:
  ProfileSum(const DimensionLinks& links, uint32_t block_count)
      : m_blocks(static_cast<double>(block_count)),
        m_fraction(links.LinkBandwidthFraction()),
        m_spine_fraction(links.Kind() == DimensionKind::kClos
                             ? links.LinkBandwidthFraction(2 * links.Size())
                             : 0.0) {}

  /// One step, and the blocks it sends (`sent`) and moves over links (`link`, blocks x hops).
  /// On a Clos, `spine_blocks` is the blocks on the busiest leaf-spine link when ECMP spreads
  /// evenly (ClosSpineBlocks): the step takes the longer of that and the busiest NPU link.
  void AddStep(const StepMaxima& s, uint64_t sent, uint64_t link, double spine_blocks = 0.0) {
    ++m_profile.steps;
    m_profile.messages += s.most_posted;
    m_profile.received_messages += s.most_received;
    m_profile.sent_bytes_coefficient += static_cast<double>(s.most_out) / m_blocks;
    m_profile.received_bytes_coefficient += static_cast<double>(s.most_in) / m_blocks;
    m_profile.latency_hops += s.longest_hops;
    const double npu_links = static_cast<double>(s.busiest_link) / m_blocks / m_fraction;
    m_profile.bandwidth_coefficient +=
        m_spine_fraction > 0.0 ? std::max(npu_links, spine_blocks / m_blocks / m_spine_fraction)
                               : npu_links;
    m_profile.reduction_coefficient += static_cast<double>(s.most_reduced) / m_blocks;
    m_sent_blocks += sent;
    m_link_blocks += link;
  }

  ScheduleProfile Finish(uint32_t peers) {
    m_profile.traffic_coefficient = static_cast<double>(m_sent_blocks) / m_blocks / peers;
    m_profile.link_bytes_coefficient = static_cast<double>(m_link_blocks) / m_blocks;
    return m_profile;
  }

 private:
  double m_blocks;
  double m_fraction;
  double m_spine_fraction;  // a Clos's leaf-spine links; 0 elsewhere
  uint64_t m_sent_blocks = 0;
  uint64_t m_link_blocks = 0;
  ScheduleProfile m_profile;
};

// True when routes are arcs of a physical ring of n >= 3 (half-bandwidth links each way).
bool RingArcs(const DimensionLinks& links) {
  return links.Kind() == DimensionKind::kRing && links.Size() >= 3;
}

// Ring algorithm (ring-schedule.cc).
ScheduleProfile RingAlgorithm(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  if (kind == CollectiveKind::kAllToAll) {
    // Step k: every rank i sends its one block to i+k. All n routes have the same length and
    // direction, so on a physical ring each link of that direction lies on `hops` of the n arcs;
    // elsewhere every route has links of its own (FullyConnected: the pair's link; Switch: the
    // source's up-link and the destination's down-link, one transfer each).
    ProfileSum sum(links, n);
    for (uint32_t k = 1; k < n; ++k) {
      const uint32_t hops = links.Hops(0, k);  // on a Ring the shorter way: min(k, n-k)
      const uint64_t busiest = RingArcs(links) ? hops : 1;
      sum.AddStep({hops, busiest, 0, 1, 1, 1, 1}, n, static_cast<uint64_t>(n) * hops);
    }
    return sum.Finish(n);
  }
  // Reduce-scatter and all-gather steps: rank i sends one block (of 2n) to i+1 and one to i-1.
  // Both are neighbour routes of the same length (1 hop; 2 through a Switch). Two blocks share a
  // link on a Switch (the sender's up-link, and the down-link of a rank fed by both neighbours)
  // and when n = 2 (both neighbours are the one peer, over the one link between them); otherwise
  // each neighbour route has its own link. The receiver reduces both blocks in a reduce-scatter.
  const uint32_t hops = links.Hops(0, 1);
  const uint64_t busiest = links.Kind() == DimensionKind::kSwitch || n == 2 ? 2 : 1;
  const uint64_t sent = 2 * static_cast<uint64_t>(n);
  ProfileSum sum(links, 2 * n);
  const bool reduce_scatter = kind != CollectiveKind::kAllGather;
  const bool all_gather = kind != CollectiveKind::kReduceScatter;
  if (reduce_scatter) {
    for (uint32_t k = 0; k + 1 < n; ++k) {
      sum.AddStep({hops, busiest, 2, 2, 2, 2, 2}, sent, sent * hops);
    }
  }
  if (all_gather) {
    for (uint32_t k = 0; k + 1 < n; ++k) {
      sum.AddStep({hops, busiest, 0, 2, 2, 2, 2}, sent, sent * hops);
    }
  }
  return sum.Finish(n);
}

// Direct algorithm (direct-schedule.cc): each phase is one step in which every rank sends one
// block (of n) to every other rank.
ScheduleProfile DirectAlgorithm(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  // The longest route leads to the farthest peer: n/2 hops round a Ring, else 1 (2 via a Switch).
  const uint32_t longest = links.Hops(0, n / 2);
  // Busiest link. Switch: a rank's up-link carries its n-1 blocks (and a down-link n-1 too).
  // FullyConnected, and a Ring of 2: one block per (ordered) pair's link. A Ring of n >= 3:
  // routes of clockwise distance d <= n/2 go clockwise d hops (ties clockwise), so a clockwise
  // link lies on the routes of d sources for each d = 1..h, h = floor(n/2): h(h+1)/2 blocks. The
  // counter-clockwise links carry only distances 1..ceil(n/2)-1 <= h: fewer.
  uint64_t busiest = 1;
  // Blocks x hops from one source to all its peers: on a Ring the sum over peers of min(d, n-d),
  // which is floor(n^2/4) (also for n = 2: one hop); else (n-1) routes of equal length.
  uint64_t hops_from_one = static_cast<uint64_t>(n - 1) * links.Hops(0, 1);
  if (links.Kind() == DimensionKind::kSwitch) busiest = n - 1;
  if (links.Kind() == DimensionKind::kRing) hops_from_one = static_cast<uint64_t>(n) * n / 4;
  if (RingArcs(links)) {
    const uint64_t h = n / 2;
    busiest = h * (h + 1) / 2;
  }
  const uint64_t sent = static_cast<uint64_t>(n) * (n - 1);
  const uint64_t link = static_cast<uint64_t>(n) * hops_from_one;
  ProfileSum sum(links, n);
  // All-to-all sends as the reduce-scatter does, but stores instead of reducing.
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    sum.AddStep({longest, busiest, n - 1u, n - 1, n - 1, n - 1u, n - 1u}, sent, link);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
      kind == CollectiveKind::kAllToAll) {
    sum.AddStep({longest, busiest, 0, n - 1, n - 1, n - 1u, n - 1u}, sent, link);
  }
  return sum.Finish(n);
}

// Halving-doubling (halving-doubling-schedule.cc), n a power of two. The step with partner
// i XOR m (m = 1, 2, ..., n/2 in the reduce-scatter, the reverse in the all-gather) has every
// rank send one run of L = n/(2m) blocks (of n) to its partner, m hops away on a Ring.
//
// Busiest link: FullyConnected and Switch give every transfer links of its own, so L. On a Ring
// a rank with bit m clear sends clockwise m hops, one with bit m set counter-clockwise m hops
// (clockwise when m = n/2: the tie). Bit m alternates in runs of m ranks, so a link lies on the
// routes of at most m sources of its direction (exactly m after an aligned run): m * L = n/2.
// When m = n/2 all n routes go clockwise n/2 hops: n/2 routes of one block per link, again n/2.
// On a Ring of 2 that is the one block on link 0 -> 1: n/2 too.
//
// On a Clos (n a power of two, so k, which divides n, is one too and leaves are aligned runs of
// k) the partner is on another leaf exactly when m >= k, for every member: the step then also
// puts k runs per leaf on its spines, and Hops(0, m) is the 4 of a route through a spine.
ScheduleProfile HalvingDoubling(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  const bool clos = links.Kind() == DimensionKind::kClos;
  ProfileSum sum(links, n);
  const auto add_step = [&](uint32_t mask, uint32_t length, bool reduce) {
    const uint32_t hops = links.Hops(0, mask);
    const uint64_t busiest = links.Kind() == DimensionKind::kRing ? n / 2 : length;
    const uint64_t sent = static_cast<uint64_t>(n) * length;
    const double spine =
        clos && mask >= links.LeafNpus()
            ? static_cast<double>(uint64_t{links.LeafNpus()} * length) / links.Spines()
            : 0.0;
    sum.AddStep({hops, busiest, reduce ? length : 0u, 1, 1, length, length}, sent, sent * hops,
                spine);
  };
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    uint32_t length = n;
    for (uint32_t mask = 1; mask < n; mask <<= 1) add_step(mask, length /= 2, true);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather) {
    uint32_t length = 1;
    for (uint32_t mask = n / 2; mask >= 1; mask >>= 1, length *= 2) add_step(mask, length, false);
  }
  return sum.Finish(n);
}

// Clos (dimension-links.h): NPU links behave as a Switch's (up-link and down-link at the full
// bandwidth), routes across leaves take 2 more hops through a spine, and every leaf's traffic to
// other leaves shares its S up-links. With ECMP spreading evenly (the analytical model; the flow
// and packet engines hash each message to one spine), a step whose busiest leaf sends c blocks to
// other leaves puts c / S on each of its up-links (and as many arrive on each of the busiest
// receiving leaf's down-links from the spines: every pattern below is symmetric).

// Members of one leaf (k of n, in blocks of k) whose peer m places ahead, (i + m) mod n, is on
// another leaf. Every leaf has as many (the pattern is a rotation), and as many arrive.
uint64_t ClosShiftCross(uint32_t n, uint32_t k, uint32_t m) {
  const int64_t stay_low = std::max<int64_t>(0, int64_t{k} - m);       // i + m < k
  const int64_t stay_wrap = std::max<int64_t>(0, int64_t{k} + m - n);  // i + m >= n
  return static_cast<uint64_t>(int64_t{k} - stay_low - stay_wrap);
}

ScheduleProfile ClosRing(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  const uint32_t k = links.LeafNpus();
  const uint32_t leaves = n / k;
  const double spines = links.Spines();
  if (kind == CollectiveKind::kAllToAll) {
    // Step m: i sends its one block to i + m; each up-link and down-link carries one block.
    ProfileSum sum(links, n);
    for (uint32_t m = 1; m < n; ++m) {
      const uint64_t cross = ClosShiftCross(n, k, m);
      const uint32_t hops = cross > 0 ? 4 : 2;
      const uint64_t link = 2 * uint64_t{n} + 2 * uint64_t{leaves} * cross;
      sum.AddStep({hops, 1, 0, 1, 1, 1, 1}, n, link, static_cast<double>(cross) / spines);
    }
    return sum.Finish(n);
  }
  // Reduce-scatter and all-gather steps: i sends one block (of 2n) to i + 1 and one to i - 1;
  // both go through i's up-link, and i's down-link brings both neighbours' (as on a Switch). Per
  // leaf one route leaves each way: 2 blocks to other leaves (L >= 2).
  const uint64_t cross = ClosShiftCross(n, k, 1) + ClosShiftCross(n, k, n - 1);
  const uint64_t sent = 2 * static_cast<uint64_t>(n);
  const uint64_t link = 2 * sent + 2 * uint64_t{leaves} * cross;
  ProfileSum sum(links, 2 * n);
  const bool reduce_scatter = kind != CollectiveKind::kAllGather;
  const bool all_gather = kind != CollectiveKind::kReduceScatter;
  const double spine = static_cast<double>(cross) / spines;
  if (reduce_scatter) {
    for (uint32_t step = 0; step + 1 < n; ++step) {
      sum.AddStep({4, 2, 2, 2, 2, 2, 2}, sent, link, spine);
    }
  }
  if (all_gather) {
    for (uint32_t step = 0; step + 1 < n; ++step) {
      sum.AddStep({4, 2, 0, 2, 2, 2, 2}, sent, link, spine);
    }
  }
  return sum.Finish(n);
}

// Direct: one step per phase in which every rank sends one block (of n) to every other; a
// leaf's k members each send n - k of them to other leaves.
ScheduleProfile ClosDirect(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  const uint32_t k = links.LeafNpus();
  const uint64_t cross = uint64_t{k} * (n - k);
  const uint64_t sent = static_cast<uint64_t>(n) * (n - 1);
  const uint64_t link = 2 * sent + 2 * static_cast<uint64_t>(n) * (n - k);
  const double spine = static_cast<double>(cross) / links.Spines();
  ProfileSum sum(links, n);
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    sum.AddStep({4, n - 1u, n - 1u, n - 1, n - 1, n - 1u, n - 1u}, sent, link, spine);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
      kind == CollectiveKind::kAllToAll) {
    sum.AddStep({4, n - 1u, 0, n - 1, n - 1, n - 1u, n - 1u}, sent, link, spine);
  }
  return sum.Finish(n);
}

}  // namespace

std::optional<ScheduleProfile> ClosedFormProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                 const Dimension& dim) {
  if (auto reason = UnsupportedReason(kind, algorithm, dim.size)) {
    throw std::invalid_argument("ClosedFormProfile: " + *reason);
  }
  const DimensionLinks links(dim);
  const bool clos = dim.kind == DimensionKind::kClos;
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return clos ? ClosRing(kind, links) : RingAlgorithm(kind, links);
    case CollectiveAlgorithm::kDirect:
      return clos ? ClosDirect(kind, links) : DirectAlgorithm(kind, links);
    case CollectiveAlgorithm::kHalvingDoubling:
      return HalvingDoubling(kind, links);
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:
      break;
  }
  return std::nullopt;
}

std::optional<ScheduleProfile> ClosedFormProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                 uint32_t peers, DimensionKind dimension_kind) {
  Dimension dim;
  dim.kind = dimension_kind;
  dim.size = peers;
  return ClosedFormProfile(kind, algorithm, dim);
}

}  // namespace hfsim
