// Clos: two tiers. NPUs sit on leaf switches (k each, L = n / k leaves), every leaf links to every
// spine (S of them); routes between leaves pick a spine by ECMP. JSON: "leaf_npus", "spines",
// "oversubscription" (docs/scenario.md §3.1).
//
// Local link ids, group of n:
//   link i = i -> leaf i/k (up), link n + j = leaf j/k -> j (down), the NPU's full bandwidth;
//   link 2n + l*S + s = leaf l -> spine s, link 2n + L*S + l*S + s = spine s -> leaf l, each with
//   k / (S x r) of the NPU's bandwidth (r: the oversubscription).
//   Within a leaf a route is up, down (2 hops); across leaves up, leaf -> spine, spine -> leaf,
//   down (4 hops), the spine chosen by the ECMP value (its remainder modulo S).
// Switches of a group: leaves 0..L-1, spines L..L+S-1.
#include "topologies/kinds/clos.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "topologies/dimension-kinds.h"

namespace hfsim {
namespace {

// Members of one leaf (k of n, in blocks of k) whose peer m places ahead, (i + m) mod n, is on
// another leaf. Every leaf has as many (the pattern is a rotation), and as many arrive.
uint64_t ShiftCross(uint32_t n, uint32_t k, uint32_t m) {
  const int64_t stay_low = std::max<int64_t>(0, int64_t{k} - m);       // i + m < k
  const int64_t stay_wrap = std::max<int64_t>(0, int64_t{k} + m - n);  // i + m >= n
  return static_cast<uint64_t>(int64_t{k} - stay_low - stay_wrap);
}

class ClosShape final : public DimensionShape {
 public:
  explicit ClosShape(const Dimension& dim)
      : DimensionShape(dim),
        m_k(ClosParametersOf(dim).leaf_npus),
        m_spines(ClosParametersOf(dim).spines),
        m_leaves(dim.size / m_k),
        m_oversubscription(ClosParametersOf(dim).oversubscription),
        m_spine_fraction(static_cast<double>(m_k) /
                         (static_cast<double>(m_spines) * m_oversubscription)) {}

  uint32_t LinkIdCount() const override { return 2 * Size() + 2 * m_leaves * m_spines; }
  LinkEnds Ends(uint32_t local) const override {
    const uint32_t n = Size();
    const uint32_t leaf_links = m_leaves * m_spines;
    if (local < n) return {{false, local}, {true, local / m_k}};
    if (local < 2 * n) return {{true, (local - n) / m_k}, {false, local - n}};
    if (local < 2 * n + leaf_links) {
      const uint32_t i = local - 2 * n;
      return {{true, i / m_spines}, {true, m_leaves + i % m_spines}};
    }
    const uint32_t i = local - 2 * n - leaf_links;
    return {{true, m_leaves + i % m_spines}, {true, i / m_spines}};
  }
  double NpuLinkFraction() const override { return 1.0; }
  double LinkFraction(uint32_t local) const override {
    return local >= 2 * Size() ? m_spine_fraction : 1.0;
  }
  uint32_t NpuDegree() const override { return 1; }
  uint32_t SwitchCount() const override { return m_leaves + m_spines; }
  // A leaf links its NPUs and the spines; a spine every leaf.
  uint32_t SwitchDegree() const override { return std::max(m_k + m_spines, m_leaves); }

  GroupRoute Route(uint32_t a, uint32_t b, uint64_t ecmp) const override {
    GroupRoute route;
    route.AddLink(a);
    const uint32_t from = a / m_k;
    const uint32_t to = b / m_k;
    if (from != to) {
      const uint32_t spine = static_cast<uint32_t>(ecmp % m_spines);
      route.AddLink(2 * Size() + from * m_spines + spine);
      route.AddLink(2 * Size() + m_leaves * m_spines + to * m_spines + spine);
    }
    route.AddLink(Size() + b);
    return route;
  }
  // The NPU links as on a Switch; what leaves a leaf loads that leaf's up-links (spread group
  // `from`), what enters one its down-links (group L + to), S links sharing each.
  GroupRoute SpreadRoute(uint32_t a, uint32_t b) const override {
    GroupRoute route;
    route.AddLink(a);
    route.AddLink(Size() + b);
    const uint32_t from = a / m_k;
    const uint32_t to = b / m_k;
    if (from != to) {
      route.spread = {from, m_leaves + to};
      route.spread_count = 2;
    }
    return route;
  }
  uint32_t SpreadGroupCount() const override { return 2 * m_leaves; }
  uint32_t SpreadWidth() const override { return m_spines; }
  // A spine sends down to the destination's leaf; a leaf down to the destination when it holds
  // it, else up to the spine ECMP picks.
  uint32_t SwitchNextLink(uint32_t index, uint32_t dst, uint64_t ecmp) const override {
    const uint32_t n = Size();
    if (index >= m_leaves) {
      return 2 * n + m_leaves * m_spines + (dst / m_k) * m_spines + (index - m_leaves);
    }
    if (dst / m_k == index) return n + dst;
    return 2 * n + index * m_spines + static_cast<uint32_t>(ecmp % m_spines);
  }

  // NPU links behave as a Switch's (up-link and down-link at the full bandwidth), routes across
  // leaves take 2 more hops through a spine, and every leaf's traffic to other leaves shares its
  // S up-links. With ECMP spreading evenly (the analytical model; the flow and packet engines
  // hash each message to one spine), a step whose busiest leaf sends c blocks to other leaves
  // puts c / S on each of its up-links (and as many arrive on each of the busiest receiving
  // leaf's down-links from the spines: every pattern here is symmetric).
  std::optional<StepLoad> Load(const StepTraffic& traffic) const override {
    const uint32_t n = Size();
    const uint32_t k = m_k;
    switch (traffic.pattern) {
      case TrafficPattern::kShift: {
        // Each up-link and down-link carries one block.
        const uint64_t cross = ShiftCross(n, k, traffic.distance);
        const double spines = m_spines;
        return StepLoad{cross > 0 ? 4u : 2u, 1,
                        2 * uint64_t{n} + 2 * uint64_t{m_leaves} * cross,
                        static_cast<double>(cross) / spines};
      }
      case TrafficPattern::kNeighbours: {
        // i sends one block to i + 1 and one to i - 1; both go through i's up-link, and i's
        // down-link brings both neighbours' (as on a Switch). Per leaf one route leaves each way:
        // 2 blocks to other leaves (L >= 2).
        const uint64_t cross = ShiftCross(n, k, 1) + ShiftCross(n, k, n - 1);
        const uint64_t sent = 2 * static_cast<uint64_t>(n);
        const double spines = m_spines;
        return StepLoad{4, 2, 2 * sent + 2 * uint64_t{m_leaves} * cross,
                        static_cast<double>(cross) / spines};
      }
      case TrafficPattern::kAllPairs: {
        // A leaf's k members each send n - k blocks to other leaves.
        const uint64_t cross = uint64_t{k} * (n - k);
        const uint64_t sent = static_cast<uint64_t>(n) * (n - 1);
        return StepLoad{4, n - 1u, 2 * sent + 2 * static_cast<uint64_t>(n) * (n - k),
                        static_cast<double>(cross) / m_spines};
      }
      case TrafficPattern::kXorPartner: {
        // n a power of two, so k, which divides n, is one too and leaves are aligned runs of k:
        // the partner is on another leaf exactly when the mask is at least k, for every member,
        // and then the step puts k runs per leaf on its spines.
        const uint32_t mask = traffic.distance;
        const uint32_t length = traffic.blocks;
        const uint32_t hops = Hops(0, mask);
        const uint64_t sent = static_cast<uint64_t>(n) * length;
        const double spine =
            mask >= k ? static_cast<double>(uint64_t{k} * length) / m_spines : 0.0;
        return StepLoad{hops, length, sent * hops, spine};
      }
      case TrafficPattern::kAnyTransfers:
        break;
    }
    return std::nullopt;
  }
  double SecondTierFraction() const override { return m_spine_fraction; }

  // A Switch's unit (the NPU's link, a leaf port, a NIC), plus, per GB/s of the NPU's, 1/r GB/s
  // of leaf-spine capacity: a link and two switch ports (the leaf's up-port and the spine's).
  CostTiers Cost() const override {
    return {{CostTier{1.0, 1.0, 1.0, 1.0}, CostTier{1.0, 2.0, 0.0, m_oversubscription}}, 2};
  }

  std::string Describe() const override {
    return fmt::format(
        "    {} leaves of {} NPUs and {} spines per group, leaf-spine "
        "links of {:.4g} GB/s, oversubscription {:.4g}:1\n",
        m_leaves, m_k, m_spines, Dim().bandwidth_Bpns * m_spine_fraction, m_oversubscription);
  }

 protected:
  uint32_t HopsApart(uint32_t a, uint32_t b) const override {
    return a / m_k == b / m_k ? 2 : 4;
  }

 private:
  uint32_t m_k;
  uint32_t m_spines;
  uint32_t m_leaves;
  double m_oversubscription;
  double m_spine_fraction;
};

ParameterRange LeafRange(const Dimension& dim) { return {1.0, static_cast<double>(dim.size / 2)}; }
ParameterRange SpineRange(const Dimension& dim) { return {1.0, dim.parameters[0]}; }
// Below 1 a leaf could send up more than its NPUs send it: not a Clos anyone builds.
ParameterRange OversubscriptionRange(const Dimension&) { return {1.0, 1024.0}; }

constexpr std::array<ShapeParameter, 3> kParameters = {{
    {"leaf_npus", "an integer number of NPUs per leaf switch that divides \"size\"", true,
     std::nullopt, &LeafRange},
    {"spines", "an integer number of spine switches, at most \"leaf_npus\"", true, std::nullopt,
     &SpineRange},
    {"oversubscription", "a number of at least 1 (leaf up-link capacity to NPU capacity)", false,
     1.0, &OversubscriptionRange},
}};

// k divides n with at least 2 leaves (the range keeps k <= n / 2).
std::optional<std::string> Check(const Dimension& dim, size_t index) {
  if (index != 0) return std::nullopt;
  const auto k = static_cast<uint32_t>(dim.parameters[0]);
  if (dim.size % k == 0) return std::nullopt;
  return fmt::format(
      "got {}, which does not divide the size {}; accepted: a divisor of {} "
      "of at most {} (at least 2 leaves)",
      k, dim.size, dim.size, dim.size / 2);
}

std::unique_ptr<const DimensionShape> Make(const Dimension& dim) {
  return std::make_unique<ClosShape>(dim);
}

constexpr DimensionKindEntry kEntry{
    .kind = DimensionKind::kClos,
    .parameters = kParameters,
    .min_size = 2,
    .max_size = 65536,
    .default_algorithm = "ring",
    .patterns = PatternBit(TrafficPattern::kShift) | PatternBit(TrafficPattern::kNeighbours) |
                PatternBit(TrafficPattern::kAllPairs) | PatternBit(TrafficPattern::kXorPartner) |
                PatternBit(TrafficPattern::kAnyTransfers),
    .ecmp = true,
    // Which leaves part of a Clos holds decides its cost; that is not modelled yet.
    .partial_group_share = nullptr,
    .astra_hops = nullptr,
    .check = &Check,
    .make = &Make,
};

}  // namespace

ClosParameters ClosParametersOf(const Dimension& dim) {
  return {static_cast<uint32_t>(dim.parameters[0]), static_cast<uint32_t>(dim.parameters[1]),
          dim.parameters[2]};
}

Dimension ClosDimension(uint32_t size, const ClosParameters& parameters, double bandwidth_Bpns,
                        double latency_ns) {
  Dimension dim;
  dim.kind = DimensionKind::kClos;
  dim.size = size;
  dim.bandwidth_Bpns = bandwidth_Bpns;
  dim.latency_ns = latency_ns;
  dim.parameters[0] = parameters.leaf_npus;
  dim.parameters[1] = parameters.spines;
  dim.parameters[2] = parameters.oversubscription;
  return dim;
}

const DimensionKindEntry& ClosKindEntry() { return kEntry; }

}  // namespace hfsim
