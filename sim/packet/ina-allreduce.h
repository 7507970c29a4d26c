// The in-network all-reduce (SwitchML) at packet level, in ns-3: every switch of the collective's
// Switch dimension runs the aggregation pipeline (models/aggregation/switch-aggregator.h) and
// every NPU the worker's slot pool (models/aggregation/aggregation-worker.h), driven by ns-3
// events (arrivals and retransmission timeouts). Frames are the real bytes of the wire format
// (models/aggregation/aggregation-packet.h) carried over point-to-point links of the dimension's
// bandwidth and latency, with drop-tail queues and the scenario's link faults
// (packet.faults.link_loss / link_down, sim/packet/link-faults.h), so loss exercises the
// shadow-copy recovery and early timeouts produce duplicates.
//
// Each NPU's tensor is drawn from the scenario's seed. At the end the run checks what the
// protocol promises: every slot round completed exactly once at its switch, every worker took one
// result per packet, and every worker's integer sums equal the exact sums of all workers'
// quantised values (computed independently, block by block, with the agreed exponents).
//
// THC jobs (aggregation.value_format "thc", with communication.compression "thc"): each NPU runs
// THC's encoder (models/compression/thc.h) on its gradient; its worker announces the norm
// exponent, encodes at the agreed bound once the first result brings it, and sends the indices;
// the switches look them up and add lanes. The checks: every worker agreed on its group's largest
// norm exponent, its lane sums equal AggregateThc of the group's packed indices (the software
// aggregator, computed independently), and the mean decoded from them is within THC's error of
// the exact mean (decoded_nmse).
#pragma once

#include <cstdint>
#include <vector>

#include "models/aggregation/aggregation-worker.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Runs the scenario's in_network all_reduce (InNetworkPacketRefusal(scenario) must be nullopt and
/// the collective's dimension must use "in_network") and fills the whole report: iteration time,
/// the collective, dimensions, packet section (links, losses) and in_network (plan and measured).
/// The caller destroys the ns-3 simulator afterwards.
void RunInNetworkAllReduce(const Scenario& scenario, Report& report);

/// Whether the packet engine should run the scenario through RunInNetworkAllReduce.
bool RunsInNetworkAllReduce(const Scenario& scenario);

/// NPU `npu`'s gradient of `values` values, drawn from `seed`: uniform in (-1, 1) times
/// 2^((block mod 8) - 4) for blocks of k values, so the blocks' exponents differ and the workers
/// must agree on each through the switch.
std::vector<float> DrawAggregationTensor(uint64_t seed, uint64_t npu, uint64_t values, uint32_t k);

/// The independent truth for one switch's workers (in worker-id order, with their tensors): per
/// block, the exponent is the largest of the workers' own (block exponents), each worker
/// quantises with it, and the exact sum is their int64 sum. Returns the (worker, value) pairs
/// whose switch-computed sum differs (a block whose agreed exponent differs counts all its values).
uint64_t CountGroupSumMismatches(const AggregationSwitchSpec& spec,
                                 const std::vector<const std::vector<float>*>& tensors,
                                 const std::vector<const AggregationWorker*>& workers);

}  // namespace hfsim
