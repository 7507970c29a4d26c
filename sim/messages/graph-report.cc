#include "sim/messages/graph-report.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "sim/analytical/collective-pricing.h"
#include "sim/scenario/scenario-graph.h"

namespace hfsim {

namespace {

// A collective that ran, for the report: what it was and how long it took on the wire.
struct RanCollective {
  std::string phase;
  std::string group;
  CollectiveKind kind;
  uint64_t size_bytes;
  GroupShape shape;  ///< the group's shape on the fabric (its dimensions, in stage order)
  double duration_ns;
  uint32_t layer = 0;      ///< model order (kNoLayer last)
  int phase_index = 0;     ///< forward, input_grad, weight_grad, step, collective
  std::string layer_name;  ///< empty for nodes of no layer
};

// Merges identical collectives (same phase, group, kind and size) as the analytical report does,
// in its order (layers in model order, and per layer forward, input_grad, weight_grad; the run
// itself meets the backward collectives last layer first), with the first and last layer that
// issue each. time_ns is their mean measured duration, traffic per NPU comes from the schedules.
void AddCollectives(const Scenario& scenario, std::vector<RanCollective> ran, Report& report) {
  std::stable_sort(ran.begin(), ran.end(), [](const RanCollective& a, const RanCollective& b) {
    return std::tie(a.layer, a.phase_index) < std::tie(b.layer, b.phase_index);
  });
  const CollectivePricer pricer(scenario.dimensions, scenario.communication);
  for (const RanCollective& r : ran) {
    auto same = std::find_if(report.collectives.begin(), report.collectives.end(),
                             [&](const CollectiveReport& c) {
                               return c.phase == r.phase && c.group == r.group &&
                                      c.kind == r.kind && c.size_bytes == r.size_bytes;
                             });
    if (same == report.collectives.end()) {
      CollectiveReport entry;
      entry.phase = r.phase;
      entry.group = r.group;
      entry.kind = r.kind;
      entry.dimensions = r.shape.dimensions;
      entry.size_bytes = r.size_bytes;
      entry.first_layer = r.layer_name;
      entry.dimension_traffic_bytes =
          pricer.Price(pricer.Plan(r.kind, r.size_bytes, r.shape)).dimension_traffic_bytes;
      entry.dimension_busy_ns.assign(scenario.dimensions.size(), 0.0);
      report.collectives.push_back(std::move(entry));
      same = report.collectives.end() - 1;
    }
    same->last_layer = r.layer_name;
    // Running mean over the merged occurrences.
    same->occurrences += 1;
    same->time_ns += (r.duration_ns - same->time_ns) / static_cast<double>(same->occurrences);
    report.communication_ns += r.duration_ns;
  }
}

// What each class's first rank did, as spans from when each node started to when it ended
// there (a collective's span includes waiting for its group: that is what the rank saw).
Timeline MeasuredTimeline(const ExecutionGraph& graph, const GraphDriver& driver) {
  Timeline timeline;
  timeline.total_ns = driver.TotalNs();
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const RankClass& rank_class = graph.classes[c];
    const MeasuredProgram& measured = driver.Measured()[c];
    timeline.classes.push_back(TimelineClass{rank_class.ranks});
    for (uint32_t i = 0; i < rank_class.program.size(); ++i) {
      TimelineSpan span;
      if (!DescribeNode(graph, c, rank_class.program[i], span)) continue;
      span.start_ns = measured.start_ns[i];
      span.duration_ns = measured.end_ns[i] - measured.start_ns[i];
      timeline.spans.push_back(std::move(span));
    }
  }
  return timeline;
}

}  // namespace

std::optional<double> FillGraphReport(const Scenario& scenario, const GraphPricing& pricing,
                                      const GraphDriver& driver, const CollectiveExecutor& executor,
                                      const Topology& topology, Report& report,
                                      bool want_timeline) {
  const ExecutionGraph& graph = pricing.Graph();
  // The rank the analytical engine reports, so the two engines describe the same rank.
  const uint32_t reported_class = pricing.ReportedClass();
  report.iteration = driver.Breakdown(reported_class);
  const RankClass& reported = graph.classes[reported_class];
  const MeasuredProgram& measured = driver.Measured()[reported_class];
  const uint32_t rank = reported.ranks.front();
  std::vector<RanCollective> ran;
  for (uint32_t i = 0; i < reported.program.size(); ++i) {
    const GraphNode& node = reported.program[i];
    const std::string layer = node.layer == kNoLayer ? "" : graph.layers[node.layer];
    if (node.kind == GraphNodeKind::kCollective) {
      const GroupShape& shape = pricing.ShapeOf(node.communicator, rank);
      for (uint32_t r = 0; r < node.count; ++r) {
        const double took = r < measured.collectives[i].size()
                                ? executor.Stats(measured.collectives[i][r]).DurationNs()
                                : 0.0;  // a group of one
        ran.push_back({std::string(ToString(node.phase)),
                       graph.communicators[node.communicator].name, node.collective,
                       node.size_bytes, shape, took, node.layer, static_cast<int>(node.phase),
                       layer});
      }
      continue;
    }
    if (node.kind != GraphNodeKind::kSend && node.kind != GraphNodeKind::kRecv) continue;
    // Sends and receives: their time is communication; a send's bytes go to the dimensions its
    // route crosses, busy for as long as it took.
    const double took = measured.took_ns[i].front();
    report.communication_ns += took;
    if (node.kind != GraphNodeKind::kSend) continue;
    if (report.point_to_point_traffic_bytes.empty()) {
      report.point_to_point_traffic_bytes.assign(scenario.dimensions.size(), 0.0);
      report.point_to_point_busy_ns.assign(scenario.dimensions.size(), 0.0);
    }
    for (uint32_t d = 0; d < scenario.dimensions.size(); ++d) {
      if (topology.Coordinate(rank, d) == topology.Coordinate(node.peer, d)) continue;
      report.point_to_point_traffic_bytes[d] += static_cast<double>(node.size_bytes);
      report.point_to_point_busy_ns[d] += took;
    }
  }
  AddCollectives(scenario, std::move(ran), report);
  if (want_timeline) report.timeline = MeasuredTimeline(graph, driver);
  if (!RanksRunDifferentPrograms(scenario)) return std::nullopt;
  report.graph = pricing.Summary();
  return pricing.JobTrafficBytes();
}

}  // namespace hfsim
