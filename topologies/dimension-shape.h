// What a dimension of one kind looks like inside one of its groups: its links and switches, the
// route between two members, and the link loads of the traffic patterns collective algorithms
// make. Every kind implements this interface once (topologies/kinds/); the fabric graph, the
// analytical engine's closed forms and walks, the flow and packet engines, the cost model and
// the topology command ask it instead of switching on the kind.
//
// Positions: the members of a group are numbered 0..n-1 by their coordinate along the dimension.
// Local link ids: each kind numbers its links within a group (its file says how); a kind may
// leave some ids unused (FullyConnected's i -> i), and FabricGraph numbers the used ones densely.
//
// Why a virtual class: nothing here sits in a per-evaluation loop. The analytical engine calls it
// when it compiles a scenario (closed forms are cached per dimension, collective-pricing.cc then
// prices from the cached profiles), the flow engine once per message and dimension (a route is
// one call returning its runs, walked inline), the packet engine once per packet hop, next to
// ns-3's own virtual calls per packet.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "topologies/dimension.h"

namespace hfsim {

/// One end of a link inside a group: a member (its position) or one of the group's switches.
struct LinkEnd {
  bool is_switch = false;
  uint32_t index = 0;  ///< the member's position, or the switch's index within the group
};

struct LinkEnds {
  LinkEnd source;
  LinkEnd target;
};

/// Consecutive links of a route: local ids base + at for at = start, start + 1, ... (start - 1,
/// ... when backward), `count` of them, `at` wrapping within [0, modulus). dense_base is the
/// run's first id in the dense numbering (equal to base except on a kind with unused ids).
struct LinkRun {
  uint32_t base = 0;
  uint32_t dense_base = 0;
  uint32_t start = 0;
  uint32_t count = 0;
  uint32_t modulus = 1;
  bool backward = false;
};

/// A route within one group, as at most four runs in order. For the analytical model's even ECMP
/// spread (DimensionShape::SpreadRoute), `spread` lists the spread groups standing in for the
/// links ECMP would pick.
struct GroupRoute {
  std::array<LinkRun, 4> runs{};
  uint32_t run_count = 0;
  std::array<uint32_t, 2> spread{};
  uint32_t spread_count = 0;

  void Add(const LinkRun& run) { runs[run_count++] = run; }
  /// A run of one link.
  void AddLink(uint32_t local, uint32_t dense) { Add(LinkRun{local, dense, 0, 1, 1, false}); }
  void AddLink(uint32_t local) { AddLink(local, local); }

  /// Calls visit(local_id, dense_id) for every link in route order.
  template <typename Visit>
  void ForEachLink(Visit&& visit) const {
    for (uint32_t r = 0; r < run_count; ++r) {
      const LinkRun& run = runs[r];
      uint32_t at = run.start;
      for (uint32_t i = 0; i < run.count; ++i) {
        visit(run.base + at, run.dense_base + at);
        if (run.backward) {
          at = at == 0 ? run.modulus - 1 : at - 1;
        } else {
          at = at + 1 == run.modulus ? 0 : at + 1;
        }
      }
    }
  }
};

/// The traffic one step of a collective algorithm puts on a group, in the terms of its ranks
/// (DimensionShape::PositionOfRank places them). models/collective.cc says which patterns each
/// algorithm makes; a kind's entry says which it carries (dimension-kinds.h).
enum class TrafficPattern : uint8_t {
  kShift,         ///< every rank r sends `blocks` blocks to rank r + distance (mod n)
  kNeighbours,    ///< every rank sends one block to rank r + 1 and one to r - 1
  kAllPairs,      ///< every rank sends one block to every other rank
  kXorPartner,    ///< every rank r sends `blocks` blocks to rank r XOR distance (n a power of 2)
  kAnyTransfers,  ///< transfers with no regular pattern (a tree): priced by walking them
};

constexpr uint32_t PatternBit(TrafficPattern pattern) {
  return uint32_t{1} << static_cast<uint32_t>(pattern);
}

struct StepTraffic {
  TrafficPattern pattern = TrafficPattern::kNeighbours;
  uint32_t distance = 0;
  uint32_t blocks = 1;
};

/// What a step's traffic puts on the group's links, in blocks (whole numbers, so that the closed
/// forms equal a walk of the transfers to the bit).
struct StepLoad {
  uint32_t longest_hops = 0;  ///< the longest route
  uint64_t busiest_link = 0;  ///< blocks on the busiest link among the NPUs' links
  uint64_t link_blocks = 0;   ///< blocks x hops, summed over the transfers
  /// Blocks on the busiest link of a second tier (a Clos's leaf-spine links) with ECMP spreading
  /// each leaf's traffic evenly (SecondTierFraction gives their share); 0 without one.
  double second_tier = 0.0;
};

/// The hardware one GB/s of an NPU's bandwidth into the dimension buys, tier by tier: tier t costs
/// (links x link price + switch_ports x switch price + nics x NIC price) / divisor per GB/s
/// (models/cost-model.cc adds the tiers up).
struct CostTier {
  double links = 0.0;
  double switch_ports = 0.0;
  double nics = 0.0;
  double divisor = 1.0;
};

struct CostTiers {
  std::array<CostTier, 2> tiers{};
  uint32_t count = 0;
};

class DimensionShape {
 public:
  virtual ~DimensionShape() = default;
  DimensionShape(const DimensionShape&) = delete;
  DimensionShape& operator=(const DimensionShape&) = delete;

  const Dimension& Dim() const { return m_dim; }
  DimensionKind Kind() const { return m_dim.kind; }
  uint32_t Size() const { return m_dim.size; }

  // --- Link layout -------------------------------------------------------------------------

  /// Local link ids run over [0, LinkIdCount()).
  virtual uint32_t LinkIdCount() const = 0;
  /// Local ids a group really has (the others are gaps in the numbering).
  virtual bool IsUsedLink(uint32_t local) const {
    (void)local;
    return true;
  }
  virtual uint64_t UsedLinkCount() const { return LinkIdCount(); }
  /// The used local id's place among the used ones.
  virtual uint32_t DenseLink(uint32_t local) const { return local; }
  virtual LinkEnds Ends(uint32_t local) const = 0;
  /// Share of the NPU's per-dimension bandwidth one of the NPUs' links carries.
  virtual double NpuLinkFraction() const = 0;
  /// The same for any link (a Clos's leaf-spine links differ).
  virtual double LinkFraction(uint32_t local) const {
    (void)local;
    return NpuLinkFraction();
  }
  /// Links out of (and into) one NPU.
  virtual uint32_t NpuDegree() const = 0;
  /// Switch vertices per group, and the most links out of one of them.
  virtual uint32_t SwitchCount() const { return 0; }
  virtual uint32_t SwitchDegree() const { return 0; }

  // --- Routes ------------------------------------------------------------------------------

  /// Links traversed from position a to position b (0 when a == b). The one hop rule.
  uint32_t Hops(uint32_t a, uint32_t b) const { return a == b ? 0 : HopsApart(a, b); }
  /// The route a -> b (a != b). `ecmp` picks among equal paths where the kind has them.
  virtual GroupRoute Route(uint32_t a, uint32_t b, uint64_t ecmp) const = 0;
  /// The route as the analytical model loads it: ECMP spreading evenly over the paths, which a
  /// kind with ECMP returns as spread groups (each standing for SpreadWidth() links that share
  /// its traffic) in place of the links it would pick.
  virtual GroupRoute SpreadRoute(uint32_t a, uint32_t b) const { return Route(a, b, 0); }
  virtual uint32_t SpreadGroupCount() const { return 0; }
  virtual uint32_t SpreadWidth() const { return 1; }
  /// True when routes grow with the group (a ring's arcs): a walk then adds whole runs at once.
  virtual bool LongRoutes() const { return false; }
  /// The local link a packet at switch `switch_index` of the group takes toward member `dst`.
  virtual uint32_t SwitchNextLink(uint32_t switch_index, uint32_t dst, uint64_t ecmp) const;
  /// The smallest share of the NPU's bandwidth among the links of the route a -> b (a != b)
  /// when ECMP pins a message to one path: a point-to-point message's rate on an idle fabric.
  virtual double RouteShare(uint32_t a, uint32_t b) const;
  /// The position of rank `rank` of a collective over the whole group: the kind's logical
  /// order, in which a ring's neighbours are one hop apart (position order on most kinds).
  virtual uint32_t PositionOfRank(uint32_t rank) const { return rank; }

  // --- Analytical pricing ------------------------------------------------------------------

  /// The links loaded by one step of `traffic` in closed form, or nullopt when the kind has no
  /// formula for it (the step is then priced by walking its transfers over Route).
  virtual std::optional<StepLoad> Load(const StepTraffic& traffic) const = 0;
  /// Share of the NPU's bandwidth one second-tier link carries (StepLoad::second_tier); 0 when
  /// the kind has no second tier.
  virtual double SecondTierFraction() const { return 0.0; }

  // --- Cost and description ----------------------------------------------------------------

  virtual CostTiers Cost() const = 0;
  /// Lines the topology command prints under the dimension's summary (each ending in "\n").
  virtual std::string Describe() const { return {}; }

 protected:
  explicit DimensionShape(const Dimension& dim) : m_dim(dim) {}
  /// Hops between two different positions.
  virtual uint32_t HopsApart(uint32_t a, uint32_t b) const = 0;

 private:
  Dimension m_dim;
};

/// Shortest distance between a and b round a cycle of n (the hop rule of a ring's arcs).
constexpr uint32_t CycleDistance(uint32_t a, uint32_t b, uint32_t n) {
  const uint32_t forward = (b + n - a) % n;
  return forward <= n - forward ? forward : n - forward;
}

/// The run of a shortest arc from a to b (a != b) round a cycle of n whose links i -> i+1 have ids
/// forward_base + i and links i -> i-1 have ids backward_base + i (dense ids alike): clockwise on
/// a tie.
LinkRun CycleArc(uint32_t a, uint32_t b, uint32_t n, uint32_t forward_base,
                 uint32_t backward_base);

}  // namespace hfsim
