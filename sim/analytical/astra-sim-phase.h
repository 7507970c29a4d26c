// One collective phase (one chunk on one dimension) as ASTRA-sim 2.x's system layer runs it over
// its congestion-unaware analytical network: the time from the phase's start to its end, in
// whole ns, and the bytes it hands to the next phase. docs/astra-sim.md §4 traces every rule to
// ASTRA-sim's source.
#pragma once

#include <cstdint>

#include "models/collective.h"
#include "topologies/dimension.h"

namespace hfsim {

struct AstraPhase {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  DimensionKind topology = DimensionKind::kRing;
  uint32_t npus = 2;
  double latency_ns = 0.0;
  /// One link's bandwidth in bytes/ns, computed as ASTRA-sim computes it from the YAML's GB/s.
  double link_Bpns = 1.0;
  /// ASTRA-sim's endpoint-delay, whole cycles (= ns).
  uint64_t endpoint_delay = 0;
  /// local-mem-bw in GB/s (10^9 B/s); 0 = absent (reductions cost nothing).
  double local_mem_GBps = 0.0;
  /// The phase's data size as ASTRA-sim passes it (the all-gather's is its input).
  uint64_t data_bytes = 0;
};

/// ASTRA-sim's message time: (hops * latency + bytes / link bandwidth) truncated to whole ns.
uint64_t AstraMessageNs(uint32_t hops, double latency_ns, double link_Bpns, uint64_t bytes);

/// One reduction of `bytes` read twice and written once, each pass truncated to whole ns;
/// 0 when local_mem_GBps is 0.
uint64_t AstraReductionNs(uint64_t bytes, double local_mem_GBps);

/// The phase's duration for one chunk.
uint64_t AstraPhaseNs(const AstraPhase& phase);

/// The data size the phase leaves for the next one (ASTRA-sim's final_data_size).
uint64_t AstraPhaseOutputBytes(CollectiveKind kind, uint32_t npus, uint64_t data_bytes);

}  // namespace hfsim
