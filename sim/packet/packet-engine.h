// The packet-level engine: the same scenario as the analytical engine, simulated packet by
// packet on ns-3 (queues, congestion, incast, loss). This header holds no ns-3 type; everything
// ns-3 lives behind Run in packet-engine.cc.
//
// ns-3 keeps one simulator per process, so packet runs in one process happen one after
// another (Run owns Simulator::Destroy); parallel sweeps use processes.
#pragma once

#include "sim/engine.h"

namespace hfsim {

class PacketEngine final : public Engine {
 public:
  using Engine::Run;
  /// options.progress hears the simulated time reached (event-scheduler.h); options.timeline
  /// asks, for training, collective and graph workloads, for each rank class's first rank's
  /// nodes from start to end as measured (none for the others); options.verify_schedules
  /// replays every stage symbolically as it runs.
  Report Run(const Scenario& scenario, const RunOptions& options) const override;
};

}  // namespace hfsim
