// FullyConnected: each NPU links to every peer, 1/(n-1) of its bandwidth on each link.
//
// Local link ids, group of n: link i*n + j = i -> j (i != j); the ids i*n + i are unused, and the
// dense numbering closes their gaps: i*(n-1) + j - (j > i).
#include "topologies/dimension-kinds.h"

namespace hfsim {
namespace {

class FullyConnectedShape final : public DimensionShape {
 public:
  explicit FullyConnectedShape(const Dimension& dim) : DimensionShape(dim) {}

  uint32_t LinkIdCount() const override { return Size() * Size(); }
  bool IsUsedLink(uint32_t local) const override { return local / Size() != local % Size(); }
  uint64_t UsedLinkCount() const override { return uint64_t{Size()} * (Size() - 1); }
  uint32_t DenseLink(uint32_t local) const override {
    const uint32_t n = Size();
    const uint32_t i = local / n;
    const uint32_t j = local % n;
    return i * (n - 1) + j - (j > i ? 1 : 0);
  }
  LinkEnds Ends(uint32_t local) const override {
    return {{false, local / Size()}, {false, local % Size()}};
  }
  double NpuLinkFraction() const override { return 1.0 / static_cast<double>(Size() - 1); }
  uint32_t NpuDegree() const override { return Size() - 1; }

  GroupRoute Route(uint32_t a, uint32_t b, uint64_t) const override {
    GroupRoute route;
    const uint32_t local = a * Size() + b;
    route.AddLink(local, DenseLink(local));
    return route;
  }

  // Every route is the pair's own link, one hop: a step loads each link with the blocks of the
  // one transfer that uses it.
  std::optional<StepLoad> Load(const StepTraffic& traffic) const override {
    const uint64_t n = Size();
    switch (traffic.pattern) {
      case TrafficPattern::kShift:
        return StepLoad{1, 1, n};
      case TrafficPattern::kNeighbours:
        return StepLoad{1, n == 2 ? 2u : 1u, 2 * n};
      case TrafficPattern::kAllPairs:
        return StepLoad{1, 1, n * (n - 1)};
      case TrafficPattern::kXorPartner:
        return StepLoad{1, traffic.blocks, n * traffic.blocks};
      case TrafficPattern::kAnyTransfers:
        break;
    }
    return std::nullopt;
  }

  CostTiers Cost() const override { return {{CostTier{1.0, 0.0, 0.0, 1.0}}, 1}; }

 protected:
  uint32_t HopsApart(uint32_t, uint32_t) const override { return 1; }
};

uint32_t AstraHops(uint32_t, uint32_t) { return 1; }

// A group of m of the n NPUs uses only its m - 1 links among them.
double MembersShare(uint32_t size, uint32_t members) {
  if (members >= size) return 1.0;
  return static_cast<double>(members - 1) / (size - 1);
}

std::unique_ptr<const DimensionShape> Make(const Dimension& dim) {
  return std::make_unique<FullyConnectedShape>(dim);
}

constexpr DimensionKindEntry kEntry{
    .kind = DimensionKind::kFullyConnected,
    .parameters = {},
    .min_size = 2,
    .max_size = 1024,  // n(n-1) links per group
    // A ring would use 2 of the n-1 links.
    .default_algorithm = "direct",
    .patterns = PatternBit(TrafficPattern::kShift) | PatternBit(TrafficPattern::kNeighbours) |
                PatternBit(TrafficPattern::kAllPairs) | PatternBit(TrafficPattern::kXorPartner) |
                PatternBit(TrafficPattern::kAnyTransfers),
    .partial_group_share = &MembersShare,
    .astra_hops = &AstraHops,
    .make = &Make,
};

}  // namespace

const DimensionKindEntry& FullyConnectedKindEntry() { return kEntry; }

}  // namespace hfsim
