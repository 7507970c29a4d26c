// ASTRA-sim-compatible pricing ("communication": {"pricing": "astra_sim"}): the collective times
// ASTRA-sim 2.x's system layer gives over its congestion-unaware analytical network backend, to
// the ns, for the ring, direct and halvingDoubling algorithms. docs/astra-sim.md §4 states each
// rule and where in ASTRA-sim's source it comes from:
//
//  * the collective's size is cut into chunks ASTRA-sim's way (integer division, a floor of one
//    byte per NPU, a last partial chunk priced whole); the all-gather's size is its input;
//  * each chunk runs the phases (sim/analytical/astra-sim-phase.h) in order, each phase's data
//    the previous phase's output, with ASTRA-sim's integer truncations;
//  * a dimension runs at most active_chunks_per_dimension chunk-phases at once, first come first
//    served, and concurrent messages never slow each other (congestion-unaware).
#pragma once

#include <cstdint>
#include <vector>

#include "models/multi-dim-collective.h"
#include "sim/analytical/collective-pricing.h"
#include "sim/scenario/scenario.h"
#include "topologies/topology.h"

namespace hfsim {

/// Links one NPU drives in a dimension (the factor between per-link and per-NPU bandwidth).
uint32_t LinksPerNpu(const Dimension& dimension);

/// One link's bandwidth in bytes/ns as ASTRA-sim computes it from the network YAML's GB/s
/// (2^30 B), recovering that figure from the dimension's per-NPU bandwidth_GBps.
double AstraLinkBpns(const Dimension& dimension);
/// The same at a per-NPU bandwidth of `bandwidth_Bpns` on that dimension (a sweep's or the
/// optimiser's, in place of the scenario's).
double AstraLinkBpns(const Dimension& dimension, double bandwidth_Bpns);

/// How ASTRA-sim cuts a collective: `count` chunks of `bytes` each.
struct AstraChunks {
  uint64_t count = 1;
  uint64_t bytes = 0;
};
/// ASTRA-sim's chunking of `size` bytes into `splits` (preferred-dataset-splits) on a system
/// of `total_npus` NPUs.
AstraChunks AstraChunking(CollectiveKind kind, uint64_t size, uint32_t splits, uint64_t total_npus);

/// Bytes one NPU sends in a stage of `kind` on n NPUs per byte of the stage's buffer, as hfsim
/// counts traffic (scenario.md §10.3): the same for every algorithm.
double StageTrafficCoefficient(CollectiveKind kind, uint32_t npus);

/// Time of the whole chunk pipeline: `chunks` chunks through stages taking stage_ns[s] on
/// stage_dimension[s], at most `active` chunk-stages per dimension at once.
double AstraPipelineNs(const std::vector<uint32_t>& stage_dimension,
                       const std::vector<double>& stage_ns, uint64_t chunks, uint32_t active);

/// The collective's price under astra_sim pricing.
CollectivePrice AstraSimPrice(const Topology& topology, const CommunicationSpec& communication,
                              CollectiveKind kind, uint64_t size_bytes,
                              const std::vector<uint32_t>& dimensions);

}  // namespace hfsim
