// The analytical engine's execution of a graph (workloads/graph/): every collective priced in
// closed form over the dimensions its group spans (collective-pricing.h), every send by its
// route, compute by its duration, all combined by the graph's schedule with + and max only.
//
// Compiled from the scenario's placed graph (workloads/graph/placed-graph.h, built once by the
// loader and shared, never copied), played at any bandwidths and on any timeline number type:
// the engine plays it once on doubles at the scenario's bandwidths; the optimiser and sweeps
// play the same object on a number type carrying a gradient (sim/optimize/time-model.h), so
// there is one pricer.
//
// The report describes one rank: the one whose program ends last (the first such class). Its
// compute and communication are summed by phase in program order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/analytical/astra-sim-phase.h"
#include "sim/analytical/astra-sim-pricing.h"
#include "base/expected.h"
#include "sim/analytical/collective-pricing.h"
#include "sim/report/report.h"
#include "sim/report/timeline.h"
#include "sim/scenario/scenario.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/graph/graph-breakdown.h"
#include "workloads/graph/graph-schedule.h"
#include "workloads/graph/placed-graph.h"

namespace hfsim {

/// A send's route priced in closed form: dimension-order routing, cut-through, paced by the
/// slowest link it crosses (docs/graph.md).
struct PointToPointPlan {
  double latency_ns = 0.0;      ///< hop latencies plus the endpoint delay
  double bytes = 0.0;
  /// The dimensions crossed and, for each, its link's bandwidth as a fraction of the
  /// dimension's: the slowest is found at the bandwidths played (the optimiser's may differ).
  std::vector<std::pair<uint32_t, double>> links;
  std::vector<double> traffic_bytes;  ///< per dimension, bytes the sender puts into it
  bool local = false;           ///< peer on the same NPU: free
  /// Priced as ASTRA-sim prices a send (astra_sim pricing): floor(hops x latency + bytes / the
  /// link's bandwidth) on links.front()'s dimension alone, no endpoint delay.
  bool astra_sim = false;
  uint32_t astra_hops = 0;
};

class GraphPricing {
 public:
  /// Prices a graph placed on the scenario's fabric (std::invalid_argument when it was placed
  /// on another): a plan per distinct collective, a route per send, and the class the report
  /// describes, chosen at the scenario's bandwidths. The placed graph is shared, not copied.
  static GraphPricing Compile(const Scenario& scenario, std::shared_ptr<const PlacedGraph> placed);
  /// Places a graph that passed CheckGraph (generators' graphs do by construction) on the
  /// scenario's fabric (PlaceGraph) and prices it. Refuses, naming `where` (a JSON path or a
  /// file) and the node or group, a graph whose ranks wait on each other in a circle or whose
  /// group cannot be priced.
  static Expected<GraphPricing> Compile(const Scenario& scenario, ExecutionGraph graph,
                                        const std::string& where);
  /// How many times this process has priced a graph (Compile, either form): tests hold a run
  /// to what it needs.
  static uint64_t CompileCount();

  /// Plays the graph with bandwidth_Bpns[d] on dimension d. Fills start/end (per schedule
  /// unit) when given.
  template <typename Time>
  BasicIterationTimeline<Time> Play(const std::vector<double>& bandwidth_Bpns,
                                    std::vector<Time>* start = nullptr,
                                    std::vector<Time>* end = nullptr) const;

  /// Only the job's time, the same number as Play(...).total_ns, for callers that play the
  /// graph many times (the optimiser, sweeps): no breakdown, buffers kept per thread.
  template <typename Time>
  Time TotalNs(const std::vector<double>& bandwidth_Bpns) const;

  /// At the scenario's bandwidths: the iteration breakdown, one entry per distinct collective
  /// (same phase, communicator, kind and size) in layer order, and communication_ns (the
  /// reported rank's collectives, sends and receives).
  void FillReport(Report& report) const;
  /// What the graph holds and whose breakdown the report shows (report.graph).
  GraphReport Summary() const;

  /// Every rank class's nodes as spans at the scenario's bandwidths (hfsim run --trace).
  Timeline BuildTimeline() const;

  /// Bytes the reported rank sends into each dimension per iteration (bandwidth-independent).
  std::vector<double> TrafficBytes() const;
  /// Bytes all ranks together send per iteration: each class's traffic times its ranks.
  double JobTrafficBytes() const;

  /// The graph as compiled (rank classes split where their groups' shapes differ).
  const ExecutionGraph& Graph() const { return *m_graph; }
  /// The placed graph it prices.
  const std::shared_ptr<const PlacedGraph>& Placed() const { return m_placed; }
  /// The rank class whose breakdown the report shows: the first whose program ends last.
  uint32_t ReportedClass() const { return m_reported_class; }

  /// Communicator k's group holding rank `rank`'s shape on the fabric.
  const GroupShape& ShapeOf(uint32_t communicator, uint32_t rank) const {
    return m_placed->ShapeOf(communicator, rank);
  }

 private:
  explicit GraphPricing(const Scenario& scenario);

  enum class WorkKind : uint8_t { kCompute, kCollective, kPointToPoint };
  struct Work {
    WorkKind kind = WorkKind::kCompute;
    uint32_t plan = 0;       ///< into m_plans or m_routes
    double value = 0.0;      ///< compute: duration; collective: count
  };

  template <typename Time>
  Time RouteNs(const PointToPointPlan& route, const std::vector<double>& bandwidth_Bpns) const;
  /// Each schedule unit's duration at some bandwidths: compute at its duration, a collective
  /// at its plan's price times its count, a send at its route's price. Computed when asked
  /// (a unit's duration is read twice per play: walking the schedule and summing the
  /// breakdown), from prices of the few plans and routes made once per play.
  template <typename Time>
  class UnitDurations {
   public:
    UnitDurations(const std::vector<Work>& work, const std::vector<Time>& prices,
                  const std::vector<Time>& routes)
        : m_work(work), m_prices(prices), m_routes(routes) {}
    Time operator()(uint32_t unit) const {
      const Work& work = m_work[unit];
      switch (work.kind) {
        case WorkKind::kCompute: return Time(work.value);
        case WorkKind::kCollective: return m_prices[work.plan] * work.value;
        case WorkKind::kPointToPoint: return m_routes[work.plan];
      }
      return Time(0.0);
    }

   private:
    const std::vector<Work>& m_work;
    const std::vector<Time>& m_prices;
    const std::vector<Time>& m_routes;
  };
  /// Prices every plan and route at these bandwidths, into buffers kept per thread (valid until
  /// the next call on this thread).
  template <typename Time>
  UnitDurations<Time> PriceUnits(const std::vector<double>& bandwidth_Bpns) const;
  /// Play, calling visit(position, node, its own duration) for every node of the reported
  /// class in program order as its time is added to the breakdown (FillReport gathers its
  /// collectives in the same pass).
  template <typename Time, typename Visit>
  BasicIterationTimeline<Time> PlayReported(const std::vector<double>& bandwidth_Bpns,
                                            std::vector<Time>* start, std::vector<Time>* end,
                                            Visit&& visit) const;

  CollectivePricer m_pricer;
  std::vector<Dimension> m_dimensions;
  double m_endpoint_delay_ns = 0.0;
  bool m_astra_sim = false;  ///< communication.pricing is astra_sim: sends as ASTRA-sim's
  /// The placed graph, shared; the two references below point into it (kept alive by it).
  std::shared_ptr<const PlacedGraph> m_placed;
  const ExecutionGraph* m_graph = nullptr;
  const GraphSchedule* m_schedule = nullptr;
  std::vector<CollectivePlan> m_plans;
  std::vector<PointToPointPlan> m_routes;
  std::vector<Work> m_unit_work;       ///< per schedule unit
  uint32_t m_reported_class = 0;
};

template <typename Time>
Time GraphPricing::RouteNs(const PointToPointPlan& route,
                           const std::vector<double>& bandwidth_Bpns) const {
  if (route.local) return Time(0.0);
  if (route.astra_sim) {
    // ASTRA-sim's event times are whole ns: a step function of the bandwidth, with no
    // derivative to give (optimize refuses astra_sim pricing).
    const uint32_t d = route.links.front().first;
    const Dimension& dim = m_dimensions[d];
    return Time(AstraMessageNs(route.astra_hops, dim.latency_ns,
                               AstraLinkBpns(dim, bandwidth_Bpns[d]),
                               static_cast<uint64_t>(route.bytes)));
  }
  // The slowest link paces the transfer (the first of equals).
  auto [bottleneck, share] = route.links.front();
  for (const auto& [d, s] : route.links) {
    if (bandwidth_Bpns[d] * s < bandwidth_Bpns[bottleneck] * share) bottleneck = d, share = s;
  }
  const double bandwidth = bandwidth_Bpns[bottleneck] * share;
  Time time(route.latency_ns + route.bytes / bandwidth);
  SetBandwidthDerivative(
      time, bottleneck,
      -route.bytes / (share * bandwidth_Bpns[bottleneck] * bandwidth_Bpns[bottleneck]));
  return time;
}

template <typename Time>
GraphPricing::UnitDurations<Time> GraphPricing::PriceUnits(
    const std::vector<double>& bandwidth_Bpns) const {
  // Kept per thread: a report plays its graph once per evaluation, and evaluations are many.
  thread_local std::vector<Time> prices, routes;
  prices.clear();
  for (const CollectivePlan& plan : m_plans) {
    prices.push_back(m_pricer.TimeNs<Time>(plan, bandwidth_Bpns));
  }
  routes.clear();
  for (const PointToPointPlan& route : m_routes)
    routes.push_back(RouteNs<Time>(route, bandwidth_Bpns));
  return UnitDurations<Time>(m_unit_work, prices, routes);
}

template <typename Time>
Time GraphPricing::TotalNs(const std::vector<double>& bandwidth_Bpns) const {
  return m_schedule->PlayTotal<Time>(PriceUnits<Time>(bandwidth_Bpns));
}

template <typename Time>
BasicIterationTimeline<Time> GraphPricing::Play(const std::vector<double>& bandwidth_Bpns,
                                                std::vector<Time>* start,
                                                std::vector<Time>* end) const {
  return PlayReported<Time>(bandwidth_Bpns, start, end,
                            [](uint32_t, const GraphNode&, const Time&) {});
}

template <typename Time, typename Visit>
BasicIterationTimeline<Time> GraphPricing::PlayReported(const std::vector<double>& bandwidth_Bpns,
                                                        std::vector<Time>* start_out,
                                                        std::vector<Time>* end_out,
                                                        Visit&& visit) const {
  const UnitDurations<Time> duration = PriceUnits<Time>(bandwidth_Bpns);
  thread_local std::vector<Time> end_local;  // when the caller keeps none
  std::vector<Time>& end = end_out ? *end_out : end_local;
  if (start_out) {
    m_schedule->Play<Time>(duration, *start_out, end);
  } else {
    m_schedule->PlayEnds<Time>(duration, end);
  }

  // The reported rank's breakdown, summed in program order into a local (kept in registers
  // rather than added to memory node after node).
  BasicIterationTimeline<Time> sums;
  const RankClass& reported = m_graph->classes[m_reported_class];
  Time main_stream_gradient_comm(0.0);
  for (uint32_t i = 0; i < reported.program.size(); ++i) {
    const GraphNode& node = reported.program[i];
    // A node's own duration: time spent waiting for other ranks is not its work.
    const Time took = duration(m_schedule->UnitOf(m_reported_class, i));
    AddToBreakdown(node, took, sums, main_stream_gradient_comm);
    visit(i, node, took);
  }
  BasicIterationTimeline<Time> timeline = sums;
  timeline.total_ns = m_schedule->Total(end);
  // Gradient communication on the main stream is all exposed; on a background stream, only the
  // tail that runs on after the main stream ends. (Other work beside the main stream, a
  // trace's host operations, is no gradient communication: its tail does not count here.)
  const uint32_t main_end = m_schedule->MainStreamEnd(m_reported_class);
  Time tail(0.0);
  if (main_end != UINT32_MAX) {
    bool any = false;
    Time latest(0.0);
    for (uint32_t i = 0; i < reported.program.size(); ++i) {
      if (!IsBackgroundGradientComm(reported.program[i])) continue;
      const Time& ends = end[m_schedule->UnitOf(m_reported_class, i)];
      latest = any ? TimeMax(latest, ends) : ends;
      any = true;
    }
    if (any) tail = TimeMax(Time(0.0), latest - end[main_end]);
  }
  timeline.weight_grad_comm_exposed_ns = main_stream_gradient_comm + tail;
  return timeline;
}

}  // namespace hfsim
