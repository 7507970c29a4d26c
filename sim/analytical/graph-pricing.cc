#include "sim/analytical/graph-pricing.h"

#include "sim/analytical/astra-sim-phase.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <optional>
#include <tuple>

#include "topologies/dimension-kinds.h"
#include "topologies/dimension-links.h"

namespace hfsim {

namespace {

// A send's route: per dimension it crosses, the hops (DimensionShape::Hops) and the smallest
// share of the NPU's bandwidth among its links (DimensionShape::RouteShare: a Ring's half, a
// FullyConnected pair's 1/(size-1), a Clos spine link's share across leaves, where ECMP pins the
// message to one path). `links` holds each dimension's links, made on first use.
PointToPointPlan RouteOf(const Topology& topology,
                         std::vector<std::optional<DimensionLinks>>& links,
                         double endpoint_delay_ns, bool astra_sim, uint32_t src, uint32_t dst,
                         uint64_t bytes) {
  PointToPointPlan route;
  route.bytes = static_cast<double>(bytes);
  route.traffic_bytes.assign(topology.DimensionCount(), 0.0);
  route.local = true;
  if (astra_sim) {
    // ASTRA-sim's analytical backend sends along the first dimension in which the two NPUs
    // differ, whatever the others (MultiDimTopology::send), with its hops and link bandwidth,
    // and adds no endpoint delay (docs/astra-sim.md §4.1).
    for (uint32_t d = 0; d < topology.DimensionCount() && route.local; ++d) {
      const uint32_t a = topology.Coordinate(src, d);
      const uint32_t b = topology.Coordinate(dst, d);
      if (a == b) continue;
      const Dimension& dim = topology.Dim(d);
      route.astra_sim = true;
      route.astra_hops = AstraHops(dim.kind, dim.size, a > b ? a - b : b - a);
      route.latency_ns = route.astra_hops * dim.latency_ns;
      route.traffic_bytes[d] = route.bytes;
      route.links.emplace_back(d, 1.0);
      route.local = false;
    }
    return route;
  }
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const uint32_t a = topology.Coordinate(src, d);
    const uint32_t b = topology.Coordinate(dst, d);
    if (a == b) continue;
    const Dimension& dim = topology.Dim(d);
    if (!links[d]) links[d].emplace(dim);
    const DimensionShape& shape = links[d]->Shape();
    route.latency_ns += shape.Hops(a, b) * dim.latency_ns;
    route.traffic_bytes[d] = route.bytes;
    route.links.emplace_back(d, shape.RouteShare(a, b));
    route.local = false;
  }
  if (!route.local) route.latency_ns += endpoint_delay_ns;
  return route;
}

// A map for the few distinct keys a training job has (a handful of collectives repeated every
// layer): searched as a flat list, which for a handful of keys is several times faster than a
// tree, and moved into a tree once it passes 32 keys (a hand-written graph may hold very many).
template <typename Key>
class FewKeys {
 public:
  /// The value of `key`, inserting `make()`'s result first when it is new.
  template <typename Make>
  uint32_t Find(const Key& key, Make&& make) {
    if (m_tree.empty()) {
      for (const auto& [k, v] : m_list) {
        if (k == key) return v;
      }
      const uint32_t value = make();
      if (m_list.empty()) m_list.reserve(8);
      m_list.emplace_back(key, value);
      if (m_list.size() > 32) {
        for (auto& [k, v] : m_list) m_tree.emplace(std::move(k), v);
        m_list.clear();
      }
      return value;
    }
    auto found = m_tree.find(key);
    if (found != m_tree.end()) return found->second;
    const uint32_t value = make();
    m_tree.emplace(key, value);
    return value;
  }

 private:
  std::vector<std::pair<Key, uint32_t>> m_list;
  std::map<Key, uint32_t> m_tree;
};

// (size, kind, communicator, group): a call. The size first: it tells most keys apart at the
// first comparison.
using CallKey = std::tuple<uint64_t, CollectiveKind, uint32_t, uint32_t>;

// (size, kind, group shape): a plan. The shape is compared by value but held by pointer (into
// the compiled shapes, which outlive the lookups): looking a key up copies no vectors.
struct PlanKey {
  uint64_t size_bytes;
  CollectiveKind kind;
  const GroupShape* shape;
  bool operator==(const PlanKey& other) const {
    return size_bytes == other.size_bytes && kind == other.kind && *shape == *other.shape;
  }
  bool operator<(const PlanKey& other) const {
    return std::tie(size_bytes, kind, shape->dimensions, shape->sizes) <
           std::tie(other.size_bytes, other.kind, other.shape->dimensions, other.shape->sizes);
  }
};

}  // namespace

GraphPricing::GraphPricing(const Scenario& scenario)
    : m_pricer(scenario.dimensions, scenario.communication, scenario.aggregation),
      m_dimensions(scenario.dimensions),
      m_endpoint_delay_ns(scenario.communication.endpoint_delay_ns),
      m_astra_sim(scenario.communication.pricing == PricingModel::kAstraSim) {}

namespace {

std::atomic<uint64_t> g_compiled{0};

}  // namespace

uint64_t GraphPricing::CompileCount() { return g_compiled.load(std::memory_order_relaxed); }

Expected<GraphPricing> GraphPricing::Compile(const Scenario& scenario, ExecutionGraph graph,
                                             const std::string& where) {
  auto placed = PlaceGraph(Topology(scenario.dimensions), std::move(graph));
  if (auto* reason = std::get_if<std::string>(&placed)) return UserError{where, *reason};
  return Compile(scenario,
                 std::make_shared<const PlacedGraph>(std::get<PlacedGraph>(std::move(placed))));
}

GraphPricing GraphPricing::Compile(const Scenario& scenario,
                                   std::shared_ptr<const PlacedGraph> placed) {
  g_compiled.fetch_add(1, std::memory_order_relaxed);
  const ExecutionGraph& graph = placed->Graph();
  if (graph.dimension_sizes.size() != scenario.dimensions.size()) {
    throw std::invalid_argument("GraphPricing: the graph was placed on another fabric");
  }
  for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
    if (graph.dimension_sizes[d] != scenario.dimensions[d].size) {
      throw std::invalid_argument("GraphPricing: the graph was placed on another fabric");
    }
  }
  const Topology topology(scenario.dimensions);
  GraphPricing pricing(scenario);
  pricing.m_placed = std::move(placed);
  pricing.m_graph = &pricing.m_placed->Graph();
  pricing.m_schedule = &pricing.m_placed->Schedule();
  const PlacedGraph& shapes = *pricing.m_placed;

  // What each unit costs: identical collectives share one plan.
  FewKeys<PlanKey> plans;
  FewKeys<CallKey> calls;  // call -> plan
  // The last call seen on each communicator: a training job repeats a handful of collectives
  // layer after layer, so the lookup is nearly always this one comparison.
  std::vector<std::pair<CallKey, uint32_t>> last_call(graph.communicators.size(),
                                                      {CallKey{0, {}, UINT32_MAX, 0}, 0});
  const GraphSchedule& schedule = *pricing.m_schedule;
  // A collective's plan, when it is not the communicator's last one.
  auto plan_of = [&](const GraphNode& node, uint32_t rank, const CallKey& call)
      __attribute__((noinline)) {
    return calls.Find(call, [&] {
      const GroupShape& shape = shapes.ShapeOf(node.communicator, rank);
      return plans.Find(PlanKey{node.size_bytes, node.collective, &shape}, [&] {
        pricing.m_plans.push_back(pricing.m_pricer.Plan(node.collective, node.size_bytes, shape));
        return static_cast<uint32_t>(pricing.m_plans.size() - 1);
      });
    });
  };
  std::vector<std::optional<DimensionLinks>> links(topology.DimensionCount());
  // A send's route, priced from the sender's side, whichever member of unit u came first.
  auto route_of = [&](uint32_t u, const GraphNode& node) __attribute__((noinline)) {
    uint32_t src = 0, dst = 0;
    for (uint32_t m = 0; m < schedule.MemberCount(u); ++m) {
      const GraphSchedule::Member member = schedule.MemberOf(u, m);
      const GraphNode& side = graph.classes[member.rank_class].program[member.position];
      if (side.kind != GraphNodeKind::kSend) continue;
      src = graph.classes[member.rank_class].ranks.front();
      dst = side.peer;
    }
    pricing.m_routes.push_back(
        RouteOf(topology, links, pricing.m_endpoint_delay_ns, pricing.m_astra_sim, src, dst,
                node.size_bytes));
    return static_cast<uint32_t>(pricing.m_routes.size() - 1);
  };
  // Each unit's work; the common cases (compute, the collective of the communicator's last
  // call) make no call.
  pricing.m_unit_work.resize(schedule.UnitCount());
  for (uint32_t u = 0; u < schedule.UnitCount(); ++u) {
    const GraphSchedule::Member unit = schedule.MemberOf(u);
    const RankClass& rank_class = graph.classes[unit.rank_class];
    const GraphNode& node = rank_class.program[unit.position];
    Work& work = pricing.m_unit_work[u];
    switch (node.kind) {
      case GraphNodeKind::kCompute:
        work.kind = WorkKind::kCompute;
        work.value = node.duration_ns;
        break;
      case GraphNodeKind::kCollective: {
        // Looked up by communicator and group first (integers), by shape only when new: a
        // training job has hundreds of collectives and a handful of distinct ones.
        const uint32_t rank = rank_class.ranks.front();
        const CallKey call{node.size_bytes, node.collective, node.communicator,
                           shapes.GroupOf(node.communicator, rank)};
        auto& [last_key, last_plan] = last_call[node.communicator];
        if (call != last_key) {
          last_key = call;
          last_plan = plan_of(node, rank, call);
        }
        work.kind = WorkKind::kCollective;
        work.plan = last_plan;
        work.value = node.count;
        break;
      }
      case GraphNodeKind::kRecv:
        if (graph.eager_sends) {  // ends when its send's unit has: nothing of its own
          work.kind = WorkKind::kCompute;
          work.value = 0.0;
          break;
        }
        [[fallthrough]];
      case GraphNodeKind::kSend:
        work.kind = WorkKind::kPointToPoint;
        work.plan = route_of(u, node);
        break;
    }
  }

  // The reported rank: the class whose last node ends last at the scenario's bandwidths.
  if (graph.classes.size() > 1) {
    std::vector<double> end;
    pricing.Play<double>(pricing.m_pricer.Bandwidths(), nullptr, &end);
    pricing.m_reported_class = pricing.m_placed->LastToEnd(end);
  }
  return pricing;
}

namespace {

// Bytes one rank of `rank_class` sends into each dimension per iteration.
template <typename WorkOf>
std::vector<double> ClassTraffic(const RankClass& rank_class, size_t dimension_count,
                                 const std::vector<CollectivePlan>& plans,
                                 const std::vector<PointToPointPlan>& routes, WorkOf&& work_of) {
  std::vector<double> traffic(dimension_count, 0.0);
  for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
    const GraphNode& node = rank_class.program[i];
    const auto [plan, count] = work_of(i);
    if (node.kind == GraphNodeKind::kCollective) {
      for (size_t d = 0; d < dimension_count; ++d)
        traffic[d] += plans[plan].traffic_bytes[d] * count;
    } else if (node.kind == GraphNodeKind::kSend) {
      for (size_t d = 0; d < dimension_count; ++d) traffic[d] += routes[plan].traffic_bytes[d];
    }
  }
  return traffic;
}

}  // namespace

std::vector<double> GraphPricing::TrafficBytes() const {
  return ClassTraffic(m_graph->classes[m_reported_class], m_dimensions.size(), m_plans, m_routes,
                      [&](uint32_t i) {
                        const Work& work = m_unit_work[m_schedule->UnitOf(m_reported_class, i)];
                        return std::pair(work.plan, work.value);
                      });
}

double GraphPricing::JobTrafficBytes() const {
  double total = 0.0;
  for (uint32_t c = 0; c < m_graph->classes.size(); ++c) {
    const auto traffic =
        ClassTraffic(m_graph->classes[c], m_dimensions.size(), m_plans, m_routes, [&](uint32_t i) {
          const Work& work = m_unit_work[m_schedule->UnitOf(c, i)];
          return std::pair(work.plan, work.value);
        });
    for (const double bytes : traffic) {
      total += bytes * static_cast<double>(m_graph->classes[c].ranks.size());
    }
  }
  return total;
}

void GraphPricing::FillReport(Report& report) const {
  // One entry per distinct collective, found in program order. Entries are then ordered as
  // layer by layer, phases forward, input_grad, weight_grad within a layer, would find them
  // (nodes of no layer last): by their earliest (layer, phase), the first layer being that
  // one and the last layer the latest. Gathered while the graph is played: one pass.
  const RankClass& reported = m_graph->classes[m_reported_class];
  using OrderKey = std::pair<uint32_t, GraphPhase>;  // (layer, phase)
  struct Entry {
    GraphPhase phase;
    uint32_t communicator;
    CollectiveKind kind;
    uint64_t size_bytes;
    uint32_t first_node;           // position of a node with the earliest (layer, phase)
    uint32_t last_node;            // ... and of one with the latest
    OrderKey first_key, last_key;  // theirs, kept here rather than read back from the nodes
    uint64_t occurrences;
  };
  std::vector<Entry> entries;
  entries.reserve(8);  // a training job has a handful
  FewKeys<std::tuple<uint64_t, GraphPhase, uint32_t, CollectiveKind>> entry_of;
  uint32_t last_entry[static_cast<size_t>(GraphPhase::kCollective) + 1];
  std::fill(std::begin(last_entry), std::end(last_entry), UINT32_MAX);
  // The reported rank's sends and receives: their time is communication; its sends' bytes and
  // link time go to the dimensions they cross.
  double point_to_point_ns = 0.0;
  // What is rare (a collective not seen yet, a send or receive) is kept out of line, so that
  // the loop summing the breakdown makes no call on its common path.
  auto new_collective = [&](uint32_t i, const GraphNode& node) __attribute__((noinline)) {
    const auto key = std::tuple(node.size_bytes, node.phase, node.communicator, node.collective);
    const OrderKey order(node.layer, node.phase);
    return entry_of.Find(key, [&] {
      entries.push_back(Entry{node.phase, node.communicator, node.collective, node.size_bytes, i, i,
                              order, order, 0});
      return static_cast<uint32_t>(entries.size() - 1);
    });
  };
  auto point_to_point = [&](uint32_t i, const GraphNode& node, double took)
      __attribute__((noinline)) {
    point_to_point_ns += took;  // a unit's duration is its route's price
    if (node.kind != GraphNodeKind::kSend) return;
    const PointToPointPlan& route =
        m_routes[m_unit_work[m_schedule->UnitOf(m_reported_class, i)].plan];
    if (report.point_to_point_traffic_bytes.empty()) {
      report.point_to_point_traffic_bytes.assign(m_dimensions.size(), 0.0);
      report.point_to_point_busy_ns.assign(m_dimensions.size(), 0.0);
    }
    for (size_t d = 0; d < m_dimensions.size(); ++d) {
      report.point_to_point_traffic_bytes[d] += route.traffic_bytes[d];
      if (route.traffic_bytes[d] > 0.0) report.point_to_point_busy_ns[d] += took;
    }
  };
  auto gather = [&](uint32_t i, const GraphNode& node, double took) {
    if (node.kind == GraphNodeKind::kCompute) return;
    if (node.kind != GraphNodeKind::kCollective) return point_to_point(i, node, took);
    // The entry of the last collective of this phase first: layers repeat theirs.
    uint32_t& last = last_entry[static_cast<size_t>(node.phase)];
    if (last == UINT32_MAX || entries[last].size_bytes != node.size_bytes ||
        entries[last].communicator != node.communicator || entries[last].kind != node.collective) {
      last = new_collective(i, node);
    }
    Entry& found = entries[last];
    found.occurrences += node.count;
    // Ties (same layer and phase) keep the earlier node first and the later node last.
    const OrderKey order(node.layer, node.phase);
    if (order < found.first_key) found.first_node = i, found.first_key = order;
    if (!(order < found.last_key)) found.last_node = i, found.last_key = order;
  };
  report.iteration = PlayReported<double>(m_pricer.Bandwidths(), nullptr, nullptr, gather);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.first_key < b.first_key; });
  const uint32_t rank = reported.ranks.front();
  auto layer_name = [&](uint32_t i) -> const std::string& {
    static const std::string kNone;
    const uint32_t layer = reported.program[i].layer;
    return layer == kNoLayer ? kNone : m_graph->layers[layer];
  };
  report.collectives.reserve(report.collectives.size() + entries.size());
  for (const Entry& e : entries) {
    const Work& work = m_unit_work[m_schedule->UnitOf(m_reported_class, e.first_node)];
    CollectivePrice price = m_pricer.Price(m_plans[work.plan]);
    CollectiveReport& entry = report.collectives.emplace_back();
    entry.phase = ToString(e.phase);
    entry.group = m_graph->communicators[e.communicator].name;
    entry.kind = e.kind;
    entry.dimensions = ShapeOf(e.communicator, rank).dimensions;
    entry.size_bytes = e.size_bytes;
    entry.occurrences = e.occurrences;
    entry.first_layer = layer_name(e.first_node);
    entry.last_layer = layer_name(e.last_node);
    entry.time_ns = price.time_ns;
    entry.dimension_busy_ns = std::move(price.dimension_busy_ns);
    entry.dimension_traffic_bytes = std::move(price.dimension_traffic_bytes);
  }
  report.communication_ns += point_to_point_ns;
  for (const CollectiveReport& collective : report.collectives) {
    report.communication_ns += collective.time_ns * collective.occurrences;
  }
}

GraphReport GraphPricing::Summary() const {
  GraphReport summary;
  summary.programs = static_cast<uint32_t>(m_graph->classes.size());
  for (const RankClass& rank_class : m_graph->classes) summary.nodes += rank_class.program.size();
  summary.communicators = static_cast<uint32_t>(m_graph->communicators.size());
  const RankClass& reported = m_graph->classes[m_reported_class];
  summary.reported_rank = reported.ranks.front();
  summary.reported_class_ranks = reported.ranks.size();
  return summary;
}

Timeline GraphPricing::BuildTimeline() const {
  const std::vector<double>& bandwidths = m_pricer.Bandwidths();
  const UnitDurations<double> duration = PriceUnits<double>(bandwidths);
  std::vector<double> start, end;
  m_schedule->Play<double>(duration, start, end);
  std::vector<CollectivePrice> prices;
  for (const CollectivePlan& plan : m_plans) prices.push_back(m_pricer.Price(plan));

  Timeline timeline;
  timeline.total_ns = m_schedule->Total(end);
  for (uint32_t c = 0; c < m_graph->classes.size(); ++c) {
    const RankClass& rank_class = m_graph->classes[c];
    timeline.classes.push_back(TimelineClass{rank_class.ranks});
    for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
      const GraphNode& node = rank_class.program[i];
      const uint32_t unit = m_schedule->UnitOf(c, i);
      const Work& work = m_unit_work[unit];
      TimelineSpan span;
      if (!DescribeNode(*m_graph, c, node, span)) continue;
      span.start_ns = start[unit];
      span.duration_ns = duration(unit);
      timeline.spans.push_back(span);
      if (node.kind != GraphNodeKind::kCollective) continue;
      // What each dimension the collective crosses is busy with, from its start.
      const CollectivePrice& price = prices[work.plan];
      for (size_t d = 0; d < price.dimension_busy_ns.size(); ++d) {
        if (price.dimension_busy_ns[d] <= 0.0) continue;
        TimelineSpan busy = span;
        busy.track = fmt::format("dimension {}", d);
        busy.duration_ns = price.dimension_busy_ns[d] * work.value;
        timeline.spans.push_back(std::move(busy));
      }
    }
  }
  return timeline;
}

}  // namespace hfsim
