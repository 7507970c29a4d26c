// ns-3's event queue for every packet run, and the one look into it a progress display needs.
// The look is taken from the queue (every few thousand events it reports the time of the event
// about to run), not by scheduling events of its own: extra events would change the event count
// a report states and the clock a run ends on, and a run watched on a terminal must write the
// same bytes as one that is not.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace hfsim {

/// Called while ns-3 runs, at most once per `interval` of wall time (UseEventScheduler): the
/// simulated time reached (ns) and the events taken from the queue so far.
using SimulationProgressHook = std::function<void(double simulated_ns, uint64_t events)>;

/// Makes ns-3 use a priority-queue scheduler (ordered by time, then insertion: deterministic);
/// with a `hook`, the same queue reporting to it every 4096 events once `interval` has passed
/// since it last did. Call before the simulation schedules anything.
void UseEventScheduler(SimulationProgressHook hook,
                       std::chrono::milliseconds interval = std::chrono::milliseconds(200));

}  // namespace hfsim
