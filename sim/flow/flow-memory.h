// What a flow-engine run will need in memory, estimated from the scenario before anything is
// built, so that a run that cannot fit is refused at once (exit 2) instead of ending in bad_alloc
// or the machine's out-of-memory killer. Documented in docs/flow.md ("Memory"), calibrated on
// measured runs (bench/RESULTS.md) and meant to err high:
//
//   bytes = 32 MiB + 1 KiB * (NPUs + switches) + 512 B * directed links + 48 B * transfers
//
// where transfers are the block transfers of every distinct collective schedule the run uses
// (one per collective kind, algorithm and group size: the executor builds each whole and keeps
// it). A ring all-reduce on n NPUs is 4n(n - 1) transfers, so this term dominates on one large
// dimension. Unlike the packet engine, nothing is kept per message once it has arrived.
#pragma once

#include <cstdint>

#include "sim/scenario/scenario.h"

namespace hfsim {

struct FlowMemoryEstimate {
  double fabric_bytes = 0.0;
  double schedule_transfers = 0.0;
  double schedule_bytes = 0.0;
  double TotalBytes() const { return fabric_bytes + schedule_bytes; }
};

FlowMemoryEstimate EstimateFlowMemory(const Scenario& scenario);

}  // namespace hfsim
