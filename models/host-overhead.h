// What the host side of communication costs per message, shared by both engines.
//
// Before an NPU's messages of one schedule step leave, its host posts them one by one (a work
// request and doorbell for RDMA, a system call and RPC framing for TCP): each costs
// `per_message_ns`, and the step's sends start once all are posted. The analytical engine adds
// (most messages one NPU sends in a step) x per_message_ns to every step
// (ScheduleProfile::messages); the packet engine's executor waits the same time before issuing
// that NPU's sends. Richer host-stack models (copies, serialisation, polling) build on this.
#pragma once

#include <cstdint>

namespace hfsim {

struct HostOverhead {
  double per_message_ns = 0.0;

  /// Time to post `messages` messages, ns.
  double PostingNs(uint64_t messages) const { return per_message_ns * static_cast<double>(messages); }
};

}  // namespace hfsim
