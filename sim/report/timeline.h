// What ran when, for people to look at: spans on tracks, one group of tracks per rank class.
// Engines fill it when asked (hfsim run --trace); trace-json.h writes it as Chrome trace-event
// JSON, which Perfetto and chrome://tracing open.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/graph/execution-graph.h"

namespace hfsim {

struct TimelineSpan {
  uint32_t rank_class = 0;
  /// Track within the class: "compute", "communication" (the main stream's collectives and
  /// sends), "stream N" (a background stream), or "dimension D" (the time dimension D is busy
  /// with each collective that crosses it, from the collective's start).
  std::string track;
  std::string name;      ///< layer and operation, e.g. "layer_3 all_reduce"
  std::string category;  ///< "compute", "collective", "send", "recv"
  std::string phase;     ///< forward, input_grad, weight_grad, step, collective
  double start_ns = 0.0;
  double duration_ns = 0.0;
  double bytes = 0.0;  ///< a double: size x count can pass 2^64
  std::string group;     ///< communicator name, or the peer rank for a send or receive
};

struct TimelineClass {
  std::vector<uint32_t> ranks;
};

/// "rank 3", "ranks 0-4095" for consecutive ranks, else the first few and the count.
std::string RanksLabel(const std::vector<uint32_t>& ranks);

/// Where a track sits among its class's tracks (smaller first): compute, the communication
/// stream, background streams in order, then dimensions in order. Streams are below 64 and
/// dimensions below 8, so the numbers never collide.
int TrackOrder(const std::string& track);

/// The span a node of rank class `rank_class` draws, without its times: its track, name,
/// category, phase, bytes and group, the same in every engine. False for a compute node of
/// zero duration (a layer without weights: nothing to see).
bool DescribeNode(const ExecutionGraph& graph, uint32_t rank_class, const GraphNode& node,
                  TimelineSpan& span);

struct Timeline {
  std::vector<TimelineClass> classes;
  std::vector<TimelineSpan> spans;
  double total_ns = 0.0;
};

}  // namespace hfsim
