// Switch: each NPU has one up-link to its group's switch carrying all its bandwidth; every route
// is 2 hops, the source's up-link and the destination's down-link.
//
// Local link ids, group of n: link i = i -> switch (up), link n + j = switch -> j (down).
#include "topologies/dimension-kinds.h"

namespace hfsim {
namespace {

class SwitchShape final : public DimensionShape {
 public:
  explicit SwitchShape(const Dimension& dim) : DimensionShape(dim) {}

  uint32_t LinkIdCount() const override { return 2 * Size(); }
  LinkEnds Ends(uint32_t local) const override {
    const uint32_t n = Size();
    if (local < n) return {{false, local}, {true, 0}};
    return {{true, 0}, {false, local - n}};
  }
  double NpuLinkFraction() const override { return 1.0; }
  uint32_t NpuDegree() const override { return 1; }
  uint32_t SwitchCount() const override { return 1; }
  uint32_t SwitchDegree() const override { return Size(); }

  GroupRoute Route(uint32_t a, uint32_t b, uint64_t) const override {
    GroupRoute route;
    route.AddLink(a);
    route.AddLink(Size() + b);
    return route;
  }
  uint32_t SwitchNextLink(uint32_t, uint32_t dst, uint64_t) const override {
    return Size() + dst;
  }

  // Every transfer has the source's up-link and the destination's down-link: a link's load is
  // what one NPU sends (or receives) in the step.
  std::optional<StepLoad> Load(const StepTraffic& traffic) const override {
    const uint64_t n = Size();
    switch (traffic.pattern) {
      case TrafficPattern::kShift:
        return StepLoad{2, 1, n * 2};
      case TrafficPattern::kNeighbours:
        return StepLoad{2, 2, 2 * n * 2};
      case TrafficPattern::kAllPairs:
        return StepLoad{2, n - 1, n * ((n - 1) * 2)};
      case TrafficPattern::kXorPartner:
        return StepLoad{2, traffic.blocks, n * traffic.blocks * 2};
      case TrafficPattern::kAnyTransfers:
        break;
    }
    return std::nullopt;
  }

  // The NPU's link, a switch port and a NIC per GB/s.
  CostTiers Cost() const override { return {{CostTier{1.0, 1.0, 1.0, 1.0}}, 1}; }

 protected:
  uint32_t HopsApart(uint32_t, uint32_t) const override { return 2; }
};

uint32_t AstraHops(uint32_t, uint32_t) { return 2; }

double WholeShare(uint32_t, uint32_t) { return 1.0; }

std::unique_ptr<const DimensionShape> Make(const Dimension& dim) {
  return std::make_unique<SwitchShape>(dim);
}

constexpr DimensionKindEntry kEntry{
    .kind = DimensionKind::kSwitch,
    .parameters = {},
    .min_size = 2,
    .max_size = 65536,
    .default_algorithm = "ring",
    .patterns = PatternBit(TrafficPattern::kShift) | PatternBit(TrafficPattern::kNeighbours) |
                PatternBit(TrafficPattern::kAllPairs) | PatternBit(TrafficPattern::kXorPartner) |
                PatternBit(TrafficPattern::kAnyTransfers),
    .aggregating_switch = true,
    .partial_group_share = &WholeShare,
    .astra_hops = &AstraHops,
    .make = &Make,
};

}  // namespace

const DimensionKindEntry& SwitchKindEntry() { return kEntry; }

}  // namespace hfsim
