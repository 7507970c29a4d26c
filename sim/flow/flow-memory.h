// What a flow-engine run will need in memory, estimated from the scenario before anything is
// built, so that a run that cannot fit is refused at once (exit 2) instead of ending in bad_alloc
// or the machine's out-of-memory killer. Documented in docs/flow.md ("Memory"), calibrated on
// measured peaks of every collective kind and algorithm and of training graphs (the table in
// docs/flow.md and bench/RESULTS.md, `scripts/calibrate-flow-memory`), and meant to err high,
// 1.0 to 1.6 times the measured peak:
//
//   bytes = 32 MiB + 1 KiB * (NPUs + switches) + 512 B * directed links
//         + 48 B * transfers + 400 B * flows at once + 96 B * rank nodes
//
// where
//   transfers     are the block transfers of every distinct collective schedule the run uses
//                 (one per collective kind, algorithm and group size: the executor builds each
//                 whole and keeps it); a ring all-reduce on n NPUs is 4n(n - 1) of them;
//   flows at once is, per distinct schedule, the most messages one NPU sends in one step times
//                 the fabric's NPUs, summed: the flows that may drain together, each with its
//                 route, its place on every link and its share of the rate solve. A direct
//                 all-to-all on n NPUs starts all n(n - 1) at once: this term is what the
//                 estimate used to miss (0.8 GiB estimated, 5.9 GiB used on 4,096 NPUs);
//   rank nodes    are the graph's nodes times the ranks that run them: the driver's state per
//                 rank and node, and per message.
#pragma once

#include <cstdint>

#include "sim/scenario/scenario.h"

namespace hfsim {

struct FlowMemoryEstimate {
  double fabric_bytes = 0.0;
  double schedule_transfers = 0.0;
  double schedule_bytes = 0.0;
  double concurrent_flows = 0.0;
  double flow_bytes = 0.0;
  double collective_runs = 0.0;
  double run_bytes = 0.0;
  double TotalBytes() const { return fabric_bytes + schedule_bytes + flow_bytes + run_bytes; }
};

FlowMemoryEstimate EstimateFlowMemory(const Scenario& scenario);

}  // namespace hfsim
