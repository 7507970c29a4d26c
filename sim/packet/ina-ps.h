// Libra-style hot-key aggregation at packet level (docs/in-network.md §3): the cold keys go the
// PS-lite way through the PS driver (sim/messages/ps-driver.h) on the RDMA-style transport, and at
// the same time, on the same links, the hot keys go through the switch as real aggregation frames
// (models/aggregation/aggregation-packet.h, PacketFabric::SendFrame):
//
//   worker --update--> switch (SwitchAggregator, parameter-server mode) --completed slot--> the
//   shard owning the block (counts it, "updates its parameters") --result--> switch --multicast-->
//   every worker (AggregationWorker)
//
// A duplicate update into a completed slot is forwarded to the shard with the worker's id, and
// the shard answers that worker alone. Loss (packet.faults) and early timeouts exercise the
// shadow-copy recovery as in the all-reduce.
//
// The hot region of every iteration is streamed as one tensor per worker (iterations x hot
// values, iteration i at offset i x hot values): the protocol's round parity then carries on from
// one iteration to the next, so a late duplicate of iteration i can never be added into iteration
// i + 1 (a fresh switch per iteration could not tell them apart). The packet engine's switch is
// therefore given the spec with every streamed key hot; the hot/cold split itself is the
// analytical engine's (SplitHotKeys). Hot and cold each run at their own pace; the iteration time
// is the later of the two ends divided by the iterations.
//
// A shard applies each block's sum once, from the first copy that reaches it: the completed slot,
// or, when that was lost on its way, a duplicate the switch forwarded for one worker.
//
// Checks: every slot round completed once at the switch, every hot block applied at its owning
// shard (and reaching no other), every worker took one result per packet and holds the exact
// integer sums; the cold part's own checks (keys aggregated once at their shard) as in PS-lite.
#pragma once

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Runs a Libra-style scenario (IsLibraScenario) with the RDMA-style transport and fills the
/// report: iteration, parameter_server (cold part), in_network (plan and measured), packet,
/// dimensions. The caller destroys the ns-3 simulator afterwards.
void RunLibraPacket(const Scenario& scenario, Report& report);

}  // namespace hfsim
