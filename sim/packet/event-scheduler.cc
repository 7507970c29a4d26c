#include "sim/packet/event-scheduler.h"

#include <chrono>
#include <utility>

#include <ns3/object-factory.h>
#include <ns3/priority-queue-scheduler.h>
#include <ns3/simulator.h>

namespace hfsim {

namespace {

// Who watches the run in progress; ns-3 creates the scheduler from a TypeId, so it cannot take
// constructor arguments.
struct Watcher {
  SimulationProgressHook hook;
  std::chrono::milliseconds interval{200};
};

Watcher& CurrentWatcher() {
  static Watcher watcher;
  return watcher;
}

}  // namespace

/// ns-3's priority queue, looking at the wall clock every 4096 events it hands out.
class ProgressScheduler : public ns3::PriorityQueueScheduler {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("hfsim::ProgressScheduler")
                                 .SetParent<ns3::PriorityQueueScheduler>()
                                 .SetGroupName("hfsim")
                                 .AddConstructor<ProgressScheduler>();
    return tid;
  }

  ns3::Scheduler::Event RemoveNext() override {
    ns3::Scheduler::Event event = PriorityQueueScheduler::RemoveNext();
    if ((++m_events & 4095) == 0) {
      const auto now = std::chrono::steady_clock::now();
      const Watcher& watcher = CurrentWatcher();
      if (now - m_last >= watcher.interval) {
        m_last = now;
        // The key's time is in ns-3's resolution, picoseconds (packet-engine.cc).
        if (watcher.hook) watcher.hook(static_cast<double>(event.key.m_ts) * 1e-3, m_events);
      }
    }
    return event;
  }

 private:
  uint64_t m_events = 0;
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

NS_OBJECT_ENSURE_REGISTERED(ProgressScheduler);

void UseEventScheduler(SimulationProgressHook hook, std::chrono::milliseconds interval) {
  Watcher& watcher = CurrentWatcher();
  watcher = {std::move(hook), interval};
  ns3::ObjectFactory factory;
  factory.SetTypeId(watcher.hook ? "hfsim::ProgressScheduler" : "ns3::PriorityQueueScheduler");
  ns3::Simulator::SetScheduler(factory);
}

}  // namespace hfsim
