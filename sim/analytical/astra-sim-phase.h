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

/// Hops between two NPUs `distance` apart along a dimension, as ASTRA-sim's analytical backend
/// counts them: a Ring the shorter way round (its rings are bidirectional), FullyConnected 1,
/// Switch 2 (Ring::compute_hops_count, FullyConnected::..., Switch::...).
uint32_t AstraHops(DimensionKind topology, uint32_t npus, uint32_t distance);

/// ASTRA-sim's message time: (hops * latency + bytes / link bandwidth) truncated to whole ns.
///
/// Times here are whole ns held in doubles: exact, as ASTRA-sim's 64-bit integer ticks are, up
/// to 2^53 ns (104 days), and beyond that rounded to double's precision but never wrapped (a
/// 2^50-byte all-to-all over a 1 MB/s dimension wrapped in 64 bits and was priced 60,000x too
/// short, with exit 0).
double AstraMessageNs(uint32_t hops, double latency_ns, double link_Bpns, uint64_t bytes);

/// One reduction of `bytes` read twice and written once, each pass truncated to whole ns;
/// 0 when local_mem_GBps is 0.
double AstraReductionNs(uint64_t bytes, double local_mem_GBps);

/// The phase's duration for one chunk.
double AstraPhaseNs(const AstraPhase& phase);

/// The data size the phase leaves for the next one (ASTRA-sim's final_data_size).
uint64_t AstraPhaseOutputBytes(CollectiveKind kind, uint32_t npus, uint64_t data_bytes);

}  // namespace hfsim
