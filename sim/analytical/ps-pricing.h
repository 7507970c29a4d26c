// Closed-form price of one parameter-server iteration (docs/parameter-server.md, "Analytical
// model"). The iteration runs in four phases, each waiting for the previous one everywhere:
//
//   compute   = worker_compute_ns
//   push      = max over links l of (push bytes routed over l) / bandwidth(l)
//               + max over push messages of the route's latency (sum of its links' latencies)
//   aggregate = max over shards m of (bytes pushed to m) / R     (R = reduction memory
//               bandwidth; 0 when R is 0, i.e. reductions are free)
//   pull      = as push, for the pulls (server -> worker, same bytes)
//
// The busiest link is where the incast shows: on a Switch dimension the down-link of a server
// carries every push to it (N x slice bytes) and the up-link of a worker every push it sends (its
// slices to M shards), so the push phase is max(largest server incast, largest worker
// out-going) / B + 2 hops of latency. Messages share a link fairly and finish together, so a
// server has all its pushes only at the end of the push phase and then reduces them one after
// another. Routes are the fabric's dimension-order routes (topologies/fabric-graph.h), the same
// the packet engine forwards on. Messages between a worker and a server on the same NPU cost
// nothing on the fabric.
#pragma once

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "topologies/fabric-graph.h"
#include "workloads/parameter-server.h"

namespace hfsim {

struct PsIterationPrice {
  double compute_ns = 0.0;
  double push_ns = 0.0;
  double aggregate_ns = 0.0;
  double pull_ns = 0.0;
  double TotalNs() const { return compute_ns + push_ns + aggregate_ns + pull_ns; }
};

class PsPricer {
 public:
  /// `reduction_Bpns`: the servers' reduction memory bandwidth (bytes/ns), 0 = free.
  PsPricer(const FabricGraph& graph, double reduction_Bpns)
      : m_graph(graph), m_reduction_Bpns(reduction_Bpns) {}

  PsIterationPrice Price(const ParameterServerWorkload& workload,
                         const PsIterationTraffic& traffic) const;

 private:
  /// The push phase (to_servers) or the pull phase.
  double PhaseNs(const ParameterServerWorkload& workload, const PsIterationTraffic& traffic,
                 bool to_servers) const;

  const FabricGraph& m_graph;
  double m_reduction_Bpns;
};

/// The analytical engine's run of a parameter_server scenario: prices every iteration (sparse
/// iterations differ by their sampled keys), fills report.iteration.total_ns with the mean
/// iteration time and report.parameter_server.
void RunParameterServerAnalytical(const Scenario& scenario, Report& report);

}  // namespace hfsim
