// Ring: each NPU links to its two neighbours, half its bandwidth each way; a ring of 2 has one
// link each way carrying all of it.
//
// Local link ids, group of n:
//   n >= 3: link i     = i -> i+1 (clockwise),         i in [0, n)
//           link n + i = i -> i-1 (counter-clockwise)
//           a route takes the shorter way round, clockwise on a tie.
//           Example n = 4: 0 -> 2 uses links 0 (0->1) and 1 (1->2).
//   n == 2: link 0 = 0 -> 1, link 1 = 1 -> 0.
#include <algorithm>

#include "topologies/dimension-kinds.h"

namespace hfsim {
namespace {

class RingShape final : public DimensionShape {
 public:
  explicit RingShape(const Dimension& dim) : DimensionShape(dim) {}

  uint32_t LinkIdCount() const override { return Size() == 2 ? 2 : 2 * Size(); }
  LinkEnds Ends(uint32_t local) const override {
    // n == 2 has ids 0 (0->1) and 1 (1->0): clockwise ids only.
    const uint32_t n = Size();
    const uint32_t i = local % n;
    return {{false, i}, {false, local < n ? (i + 1) % n : (i + n - 1) % n}};
  }
  double NpuLinkFraction() const override { return Size() == 2 ? 1.0 : 0.5; }
  uint32_t NpuDegree() const override { return Size() == 2 ? 1 : 2; }

  GroupRoute Route(uint32_t a, uint32_t b, uint64_t) const override {
    GroupRoute route;
    if (Size() == 2) {
      route.AddLink(a);  // link 0 = 0->1, link 1 = 1->0
    } else {
      route.Add(CycleArc(a, b, Size(), 0, Size()));
    }
    return route;
  }
  bool LongRoutes() const override { return Size() >= 3; }
  double RouteShare(uint32_t, uint32_t) const override { return NpuLinkFraction(); }

  // Loads (models/schedule-profile-closed-form.cc derives the steps; here what they put on the
  // ring). A shift by m puts all n routes min(m, n-m) hops the same way round, so on a ring of
  // n >= 3 each link of that direction lies on `hops` of them. Neighbour exchanges give every
  // route a link of its own except on a ring of 2 (both go over the one link). All pairs:
  // routes of clockwise distance d <= n/2 go clockwise d hops (ties clockwise), so a clockwise
  // link lies on the routes of d sources for each d = 1..h, h = floor(n/2): h(h+1)/2 blocks (the
  // counter-clockwise ones carry only distances 1..ceil(n/2)-1: fewer); blocks x hops from one
  // source: the sum over peers of min(d, n-d) = floor(n^2/4) (also for n = 2). XOR partners m
  // apart: a rank with bit m clear sends clockwise m hops, one with it set counter-clockwise
  // (clockwise when m = n/2: the tie); bit m alternates in runs of m ranks, so a link lies on
  // the routes of at most m sources of its direction, each with n/(2m) blocks: n/2 (when
  // m = n/2 all n routes go clockwise n/2 hops, one block each: n/2 again; a ring of 2: 1).
  std::optional<StepLoad> Load(const StepTraffic& traffic) const override {
    const uint32_t n = Size();
    const bool arcs = n >= 3;
    switch (traffic.pattern) {
      case TrafficPattern::kShift: {
        const uint32_t hops = Hops(0, traffic.distance);
        return StepLoad{hops, arcs ? hops : 1, static_cast<uint64_t>(n) * hops};
      }
      case TrafficPattern::kNeighbours: {
        const uint32_t hops = Hops(0, 1);
        return StepLoad{hops, n == 2 ? 2u : 1u, 2 * static_cast<uint64_t>(n) * hops};
      }
      case TrafficPattern::kAllPairs: {
        const uint64_t h = n / 2;
        return StepLoad{Hops(0, n / 2), arcs ? h * (h + 1) / 2 : 1,
                        static_cast<uint64_t>(n) * (static_cast<uint64_t>(n) * n / 4)};
      }
      case TrafficPattern::kXorPartner: {
        const uint32_t hops = Hops(0, traffic.distance);
        return StepLoad{hops, n / 2, static_cast<uint64_t>(n) * traffic.blocks * hops};
      }
      case TrafficPattern::kAnyTransfers:
        break;
    }
    return std::nullopt;
  }

  CostTiers Cost() const override { return {{CostTier{1.0, 0.0, 0.0, 1.0}}, 1}; }

 protected:
  uint32_t HopsApart(uint32_t a, uint32_t b) const override {
    return CycleDistance(a, b, Size());
  }
};

uint32_t AstraHops(uint32_t npus, uint32_t distance) {
  // ASTRA-sim's Ring is bidirectional: the shorter way.
  return std::min(distance, npus - distance);
}

double WholeShare(uint32_t, uint32_t) { return 1.0; }

std::unique_ptr<const DimensionShape> Make(const Dimension& dim) {
  return std::make_unique<RingShape>(dim);
}

constexpr DimensionKindEntry kEntry{
    .kind = DimensionKind::kRing,
    .parameters = {},
    .min_size = 2,
    .max_size = 65536,
    .default_algorithm = "ring",
    .patterns = PatternBit(TrafficPattern::kShift) | PatternBit(TrafficPattern::kNeighbours) |
                PatternBit(TrafficPattern::kAllPairs) | PatternBit(TrafficPattern::kXorPartner) |
                PatternBit(TrafficPattern::kAnyTransfers),
    .partial_group_share = &WholeShare,
    .astra_hops = &AstraHops,
    .make = &Make,
};

}  // namespace

const DimensionKindEntry& RingKindEntry() { return kEntry; }

}  // namespace hfsim
