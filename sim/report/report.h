// What a simulation produces, engine-independent. Writers (report-json, report-csv,
// summary-table) turn it into files and text; docs/report.md documents every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/collective.h"
#include "sim/report/convergence-report.h"
#include "sim/report/flow-report.h"
#include "sim/report/gossip-report.h"
#include "sim/report/in-network-report.h"
#include "sim/report/packet-report.h"
#include "sim/report/ps-report.h"
#include "sim/report/timeline.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// One distinct collective of the iteration; identical ones (same phase, kind, group, size) are
/// merged and counted.
struct CollectiveReport {
  std::string phase;  ///< "forward", "input_grad", "weight_grad" or "collective"
  std::string group;  ///< "data", "tensor" or "all" (a collective workload)
  CollectiveKind kind = CollectiveKind::kAllReduce;
  std::vector<uint32_t> dimensions;
  uint64_t size_bytes = 0;
  /// How many times per iteration it runs (layers x collectives per layer).
  uint64_t occurrences = 0;
  /// Layers it belongs to (first and last in model order; equal for one layer).
  std::string first_layer;
  std::string last_layer;
  /// Time of one occurrence, ns.
  double time_ns = 0.0;
  /// Per topology dimension, for one occurrence: occupied time (ns; see DimensionReport::busy_ns)
  /// and bytes sent per NPU.
  std::vector<double> dimension_busy_ns;
  std::vector<double> dimension_traffic_bytes;
};

struct DimensionReport {
  uint32_t index = 0;
  std::string kind;
  uint32_t size = 0;
  double bandwidth_GBps = 0.0;
  double latency_ns = 0.0;
  /// Bytes one NPU sends into this dimension per iteration.
  double traffic_bytes_per_npu = 0.0;
  /// Time this dimension is occupied per iteration, ns: its stages' bandwidth time plus their
  /// hop latencies, endpoint delays and reduction time, once per chunk.
  double busy_ns = 0.0;
  /// traffic / (bandwidth x iteration time): the share of the dimension's capacity used.
  double utilisation = 0.0;
};

/// What an execution graph given in the scenario (workload "graph") holds, and whose breakdown
/// the report shows.
struct GraphReport {
  uint32_t programs = 0;  ///< rank classes
  uint64_t nodes = 0;     ///< over all programs
  uint32_t communicators = 0;
  /// The rank class the iteration breakdown, collectives and per-NPU traffic describe: the one
  /// that ends last. Its first rank and how many ranks it stands for.
  uint32_t reported_rank = 0;
  uint64_t reported_class_ranks = 0;
};

struct Report {
  std::string hfsim_version;
  std::string engine;
  uint64_t npus = 0;
  IterationTimeline iteration;
  /// Sum over collectives of occurrences x time: how long the fabric spends communicating,
  /// whether or not it is hidden behind compute.
  double communication_ns = 0.0;
  std::vector<CollectiveReport> collectives;
  /// Per topology dimension, per iteration, the reported rank's sends (graph workloads with
  /// sends and receives; empty otherwise): bytes it puts into the dimension and the time its
  /// sends crossing the dimension take. Counted in the dimension reports.
  std::vector<double> point_to_point_traffic_bytes;
  std::vector<double> point_to_point_busy_ns;
  std::vector<DimensionReport> dimensions;
  /// Bytes sent by all NPUs together per iteration.
  double total_traffic_bytes = 0.0;
  /// Filled by the packet engine only.
  std::optional<PacketReport> packet;
  /// Filled by the flow engine only.
  std::optional<FlowReport> flow;
  /// Filled for workload "parameter_server" only.
  std::optional<ParameterServerReport> parameter_server;
  /// Filled when workload.parameter_server.convergence is given.
  std::optional<ConvergenceReport> convergence;
  /// Filled for workload "gossip" only.
  std::optional<GossipReport> gossip;
  /// Filled for workload "graph" only.
  std::optional<GraphReport> graph;
  /// Filled when an "in_network" collective ran (docs/in-network.md).
  std::optional<InNetworkReport> in_network;
  /// What each rank class's first rank did, when the run was asked for it (RunOptions::timeline)
  /// and its engine records one (graph workloads). For people to look at (--trace, gantt.png);
  /// no writer of the report's files reads it.
  std::optional<Timeline> timeline;
};

}  // namespace hfsim
