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
        m_spine_fraction(links.Shape().SecondTierFraction()) {}

  /// One step, and the blocks it sends (`sent`) and moves over links (`link`, blocks x hops).
  /// With a second tier (a Clos's leaf-spine links), `spine_blocks` is the blocks on its busiest
  /// link when ECMP spreads evenly (StepLoad::second_tier): the step takes the longer of that and
  /// the busiest NPU link.
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
  double m_spine_fraction;  // a second tier's links (a Clos's leaf-spine links); 0 without one
  uint64_t m_sent_blocks = 0;
  uint64_t m_link_blocks = 0;
  ScheduleProfile m_profile;
};

// The step's load on the dimension's links, from its kind (topologies/kinds/): nullopt when the
// kind has no formula for the pattern.
std::optional<StepLoad> LoadOf(const DimensionLinks& links, TrafficPattern pattern,
                               uint32_t distance = 0, uint32_t blocks = 1) {
  return links.Shape().Load(StepTraffic{pattern, distance, blocks});
}

// Ring algorithm (ring-schedule.cc).
std::optional<ScheduleProfile> RingAlgorithm(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  if (kind == CollectiveKind::kAllToAll) {
    // Step k: every rank i sends its one block to i+k.
    ProfileSum sum(links, n);
    for (uint32_t k = 1; k < n; ++k) {
      const auto load = LoadOf(links, TrafficPattern::kShift, k);
      if (!load) return std::nullopt;
      sum.AddStep({load->longest_hops, load->busiest_link, 0, 1, 1, 1, 1}, n, load->link_blocks,
                  load->second_tier);
    }
    return sum.Finish(n);
  }
  // Reduce-scatter and all-gather steps: rank i sends one block (of 2n) to i+1 and one to i-1,
  // the same traffic every step. The receiver reduces both blocks in a reduce-scatter.
  const auto load = LoadOf(links, TrafficPattern::kNeighbours);
  if (!load) return std::nullopt;
  const uint64_t sent = 2 * static_cast<uint64_t>(n);
  ProfileSum sum(links, 2 * n);
  const bool reduce_scatter = kind != CollectiveKind::kAllGather;
  const bool all_gather = kind != CollectiveKind::kReduceScatter;
  if (reduce_scatter) {
    for (uint32_t k = 0; k + 1 < n; ++k) {
      sum.AddStep({load->longest_hops, load->busiest_link, 2, 2, 2, 2, 2}, sent, load->link_blocks,
                  load->second_tier);
    }
  }
  if (all_gather) {
    for (uint32_t k = 0; k + 1 < n; ++k) {
      sum.AddStep({load->longest_hops, load->busiest_link, 0, 2, 2, 2, 2}, sent, load->link_blocks,
                  load->second_tier);
    }
  }
  return sum.Finish(n);
}

// Direct algorithm (direct-schedule.cc): each phase is one step in which every rank sends one
// block (of n) to every other rank.
std::optional<ScheduleProfile> DirectAlgorithm(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  const auto load = LoadOf(links, TrafficPattern::kAllPairs);
  if (!load) return std::nullopt;
  const uint64_t sent = static_cast<uint64_t>(n) * (n - 1);
  ProfileSum sum(links, n);
  // All-to-all sends as the reduce-scatter does, but stores instead of reducing.
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    sum.AddStep({load->longest_hops, load->busiest_link, n - 1u, n - 1, n - 1, n - 1u, n - 1u},
                sent, load->link_blocks, load->second_tier);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
      kind == CollectiveKind::kAllToAll) {
    sum.AddStep({load->longest_hops, load->busiest_link, 0, n - 1, n - 1, n - 1u, n - 1u}, sent,
                load->link_blocks, load->second_tier);
  }
  return sum.Finish(n);
}

// Halving-doubling (halving-doubling-schedule.cc), n a power of two. The step with partner
// i XOR m (m = 1, 2, ..., n/2 in the reduce-scatter, the reverse in the all-gather) has every
// rank send one run of L = n/(2m) blocks (of n) to its partner.
std::optional<ScheduleProfile> HalvingDoubling(CollectiveKind kind, const DimensionLinks& links) {
  const uint32_t n = links.Size();
  ProfileSum sum(links, n);
  bool priced = true;
  const auto add_step = [&](uint32_t mask, uint32_t length, bool reduce) {
    const auto load = LoadOf(links, TrafficPattern::kXorPartner, mask, length);
    if (!load) {
      priced = false;
      return;
    }
    const uint64_t sent = static_cast<uint64_t>(n) * length;
    sum.AddStep({load->longest_hops, load->busiest_link, reduce ? length : 0u, 1, 1, length,
                 length},
                sent, load->link_blocks, load->second_tier);
  };
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    uint32_t length = n;
    for (uint32_t mask = 1; mask < n; mask <<= 1) add_step(mask, length /= 2, true);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather) {
    uint32_t length = 1;
    for (uint32_t mask = n / 2; mask >= 1; mask >>= 1, length *= 2) add_step(mask, length, false);
  }
  if (!priced) return std::nullopt;
  return sum.Finish(n);
}

}  // namespace

std::optional<ScheduleProfile> ClosedFormProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                 const Dimension& dim) {
  if (auto reason = UnsupportedReason(kind, algorithm, dim.size)) {
    throw std::invalid_argument("ClosedFormProfile: " + *reason);
  }
  const DimensionLinks links(dim);
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return RingAlgorithm(kind, links);
    case CollectiveAlgorithm::kDirect:
      return DirectAlgorithm(kind, links);
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
