// Torus2D: one dimension whose group is a 2-D torus of R rows and C = n / R columns. Each NPU
// links to its 4 neighbours with wrap-around (east, west, south, north), a quarter of its
// bandwidth on each link, as a Ring splits it over 2. JSON: "kind": "Torus2D", "size": n,
// "rows": R, with R dividing n and R, C >= 3 (docs/scenario.md §3.2).
//
// Why not 2 x k: a torus with 2 rows would join each NPU to the one other NPU of its column by
// both its north and its south link, two parallel links; its wires are those of the fabric
// [Ring k, Ring 2] (a Ring of 2 already bonds its two links into one), which is how to describe
// it. A 1 x k torus is a Ring. So both sides must be 3 or more: at least 9 NPUs.
//
// Positions: member p is at row y = p / C, column x = p % C.
// Local link ids (n = R x C): link          y*C + x = (y, x) -> (y, x+1)   east
//                             link     n +  y*C + x = (y, x) -> (y, x-1)   west
//                             link 2n +     x*R + y = (y, x) -> (y+1, x)   south
//                             link 3n +     x*R + y = (y, x) -> (y-1, x)   north
// (columns wrap round C, rows round R). Rows are numbered row by row and columns column by
// column, so the links of any arc along a row or a column have consecutive ids.
//
// Routes: dimension order, row then column. From (y1, x1) to (y2, x2): along row y1 the shorter
// way round from x1 to x2 (east on a tie), then along column x2 the shorter way from y1 to y2
// (south on a tie). Hops: the wrapped Manhattan distance, min(|dx|, C-|dx|) + min(|dy|, R-|dy|).
// An NPU on the way routes on to the same place the same way, so packets forwarded hop by hop
// follow the source's route.
//
// Ranks: a collective over the whole group places its ranks along a Hamiltonian cycle of
// one-hop steps (PositionOfRank), so every step of the ring algorithm is one hop: rank 0 at
// (0, 0); then column 0 down rows 1..R-1, column 1 up rows R-1..1, column 2 down, ... (a snake
// over rows 1..R-1); then back along row 0 from column C-1 to column 1, and to (0, 0). The snake
// ends in row R-1 when C is odd, whence the south wrap-around link reaches (0, C-1); in row 1
// when C is even, next to it. Example 3 x 4 (positions):
//   ranks  0  1  2  3  4  5  6  7  8  9 10 11
//   at     0  4  8  9  5  6 10 11  7  3  2  1
#include "topologies/kinds/torus-2d.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "topologies/dimension-kinds.h"

namespace hfsim {
namespace {

class Torus2DShape final : public DimensionShape {
 public:
  explicit Torus2DShape(const Dimension& dim)
      : DimensionShape(dim), m_rows(Torus2DRows(dim)), m_columns(dim.size / m_rows) {}

  uint32_t LinkIdCount() const override { return 4 * Size(); }
  LinkEnds Ends(uint32_t local) const override {
    const uint32_t n = Size();
    const uint32_t direction = local / n;
    const uint32_t rest = local % n;
    uint32_t y = 0, x = 0, to_y = 0, to_x = 0;
    if (direction < 2) {
      y = to_y = rest / m_columns;
      x = rest % m_columns;
      to_x = direction == 0 ? (x + 1) % m_columns : (x + m_columns - 1) % m_columns;
    } else {
      x = to_x = rest / m_rows;
      y = rest % m_rows;
      to_y = direction == 2 ? (y + 1) % m_rows : (y + m_rows - 1) % m_rows;
    }
    return {{false, Position(y, x)}, {false, Position(to_y, to_x)}};
  }
  double NpuLinkFraction() const override { return 0.25; }
  uint32_t NpuDegree() const override { return 4; }

  GroupRoute Route(uint32_t a, uint32_t b, uint64_t) const override {
    const uint32_t n = Size();
    const uint32_t y1 = a / m_columns, x1 = a % m_columns;
    const uint32_t y2 = b / m_columns, x2 = b % m_columns;
    GroupRoute route;
    if (x1 != x2) route.Add(CycleArc(x1, x2, m_columns, y1 * m_columns, n + y1 * m_columns));
    if (y1 != y2) route.Add(CycleArc(y1, y2, m_rows, 2 * n + x2 * m_rows, 3 * n + x2 * m_rows));
    return route;
  }
  bool LongRoutes() const override { return true; }
  double RouteShare(uint32_t, uint32_t) const override { return NpuLinkFraction(); }

  uint32_t PositionOfRank(uint32_t rank) const override {
    const uint32_t r = m_rows;
    const uint32_t c = m_columns;
    if (rank == 0) return 0;
    const uint32_t snake = c * (r - 1);  // ranks 1..snake cover rows 1..R-1
    if (rank <= snake) {
      const uint32_t column = (rank - 1) / (r - 1);
      const uint32_t step = (rank - 1) % (r - 1);
      const uint32_t row = column % 2 == 0 ? 1 + step : r - 1 - step;
      return Position(row, column);
    }
    return Position(0, c - (rank - snake));  // row 0, from column C-1 back to column 1
  }

  // Loads, in blocks (each transfer one block):
  //
  // Neighbours (ring reduce-scatter and all-gather steps): every rank sends to the ranks before
  // and after it on the cycle, one hop each (R, C >= 3: adjacent NPUs are one hop apart and the
  // cycle's n edges join n different pairs), so each of the 2n transfers has a link of its own:
  // busiest link 1 block, longest route 1 hop, 2n blocks x hops.
  //
  // All pairs (direct): every rank sends one block to every other. An east link of row y lies on
  // the row part of the routes from row y whose columns are d <= hc = floor(C/2) apart going
  // east (ties go east), covering it: for each d, d source columns, and each source-destination
  // column pair serves the R destination rows: R x hc(hc+1)/2 blocks. A south link of column x
  // likewise carries the column part of the routes into column x, from every source column:
  // C x hr(hr+1)/2, hr = floor(R/2). West and north links carry only the shorter distances below
  // C/2 and R/2: fewer. The longest route is hc + hr hops; the hops from one source to all the
  // others sum to R x floor(C^2/4) + C x floor(R^2/4) (the sum over columns of min(d, C-d) is
  // floor(C^2/4), as round a ring), for each of the n sources.
  //
  // The flow engine takes this time where it says so: all n(n-1) messages start together, every
  // east (or, when busier, south) link holds the same number of them, the most any link holds,
  // so max-min fairness gives each of them that link's share and none finishes later
  // (tests/flow/torus-engines-test.cc).
  std::optional<StepLoad> Load(const StepTraffic& traffic) const override {
    const uint64_t n = Size();
    switch (traffic.pattern) {
      case TrafficPattern::kNeighbours:
        return StepLoad{1, 1, 2 * n};
      case TrafficPattern::kAllPairs: {
        const uint64_t r = m_rows;
        const uint64_t c = m_columns;
        const uint64_t hc = c / 2;
        const uint64_t hr = r / 2;
        return StepLoad{static_cast<uint32_t>(hc + hr),
                        std::max(r * (hc * (hc + 1) / 2), c * (hr * (hr + 1) / 2)),
                        n * (r * (c * c / 4) + c * (r * r / 4))};
      }
      case TrafficPattern::kShift:
      case TrafficPattern::kXorPartner:
      case TrafficPattern::kAnyTransfers:
        break;
    }
    return std::nullopt;
  }

  CostTiers Cost() const override { return {{CostTier{1.0, 0.0, 0.0, 1.0}}, 1}; }

  std::string Describe() const override {
    return fmt::format(
        "    {} rows of {} NPUs, each NPU linked to its 4 neighbours (wrap-around)\n", m_rows,
        m_columns);
  }

 protected:
  uint32_t HopsApart(uint32_t a, uint32_t b) const override {
    return CycleDistance(a % m_columns, b % m_columns, m_columns) +
           CycleDistance(a / m_columns, b / m_columns, m_rows);
  }

 private:
  uint32_t Position(uint32_t row, uint32_t column) const { return row * m_columns + column; }

  uint32_t m_rows;
  uint32_t m_columns;
};

ParameterRange RowRange(const Dimension& dim) { return {3.0, static_cast<double>(dim.size / 3)}; }

constexpr std::array<ShapeParameter, 1> kParameters = {{
    {"rows", "an integer number of rows, at least 3, that divides \"size\" into at least 3 columns",
     true, std::nullopt, &RowRange},
}};

std::optional<std::string> Check(const Dimension& dim, size_t) {
  const uint32_t rows = Torus2DRows(dim);
  if (dim.size % rows == 0) return std::nullopt;
  return fmt::format(
      "got {}, which does not divide the size {}; accepted: a divisor of {} from 3 to {} (rows "
      "and columns of at least 3; a 2 x k torus is the fabric [Ring k, Ring 2])",
      rows, dim.size, dim.size, dim.size / 3);
}

std::unique_ptr<const DimensionShape> Make(const Dimension& dim) {
  return std::make_unique<Torus2DShape>(dim);
}

constexpr DimensionKindEntry kEntry{
    .kind = DimensionKind::kTorus2D,
    .parameters = kParameters,
    .min_size = 9,
    .max_size = 65536,
    // Ring runs on the Hamiltonian cycle; all_to_all, whose ring shifts are not one hop, falls
    // back to direct (models/collective.cc, DefaultAlgorithm).
    .default_algorithm = "ring",
    .patterns = PatternBit(TrafficPattern::kNeighbours) | PatternBit(TrafficPattern::kAllPairs),
    // A group of part of a torus is not a torus.
    .partial_group_share = nullptr,
    .astra_hops = nullptr,
    .check = &Check,
    .make = &Make,
};

}  // namespace

uint32_t Torus2DRows(const Dimension& dim) { return static_cast<uint32_t>(dim.parameters[0]); }

Dimension Torus2DDimension(uint32_t rows, uint32_t columns, double bandwidth_Bpns,
                           double latency_ns) {
  Dimension dim;
  dim.kind = DimensionKind::kTorus2D;
  dim.size = rows * columns;
  dim.bandwidth_Bpns = bandwidth_Bpns;
  dim.latency_ns = latency_ns;
  dim.parameters[0] = rows;
  return dim;
}

const DimensionKindEntry& Torus2DKindEntry() { return kEntry; }

}  // namespace hfsim
