// ASTRA-sim-compatible pricing ("communication": {"pricing": "astra_sim"}): the semantics of
// ASTRA-sim's congestion-unaware analytical backend, so that imported ASTRA-sim inputs give the
// collective times ASTRA-sim gives. Every choice is documented in docs/astra-sim.md:
//
//  * one message of m bytes over h hops: floor(h * latency + m / link_bandwidth) ns, with the
//    link bandwidth = the dimension's bandwidth_GBps / links one NPU drives (Ring 2, or 1 when
//    size 2; FullyConnected size-1; Switch 1) -- the per-link figure ASTRA-sim was given;
//  * each schedule step: its slowest message + endpoint_delay_ns, plus for reduction steps
//    floor(3 * reduced bytes / reduction bandwidth) (read two operands, write one);
//  * the collective is cut into `chunks` equal chunks; each chunk runs the stages in order;
//    a dimension runs at most active_chunks_per_dimension chunk-stages at once (first come,
//    first served) and concurrent messages never slow each other (congestion-unaware).
#pragma once

#include <cstdint>
#include <vector>

#include "models/multi-dim-collective.h"
#include "sim/analytical/collective-pricing.h"
#include "sim/scenario.h"
#include "topologies/topology.h"

namespace hfsim {

/// Links one NPU drives in a dimension (the factor between per-link and per-NPU bandwidth).
uint32_t LinksPerNpu(const Dimension& dimension);

/// Time of one stage for one chunk of `chunk_bytes` (the stage's buffer), in whole ns.
double AstraStageNs(const CollectiveStage& stage, const Dimension& dimension, double chunk_bytes,
                    const CommunicationSpec& communication);

/// Time of the whole chunk pipeline: `chunks` chunks through stages taking stage_ns[s] on
/// stage_dimension[s], at most `active` chunk-stages per dimension at once.
double AstraPipelineNs(const std::vector<uint32_t>& stage_dimension,
                       const std::vector<double>& stage_ns, uint32_t chunks, uint32_t active);

/// The collective's price under astra_sim pricing.
CollectivePrice AstraSimPrice(const Topology& topology, const CommunicationSpec& communication,
                              CollectiveKind kind, uint64_t size_bytes,
                              const std::vector<uint32_t>& dimensions);

}  // namespace hfsim
