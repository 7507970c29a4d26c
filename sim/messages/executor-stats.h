// What the collective executor counts while it runs: bytes and messages planned, sent and
// received, reductions, and how long messages took. The counters let tests (and the report)
// check conservation: every scheduled byte delivered, every reduction performed, no message lost
// or delivered twice.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/report/time-summary.h"  // TimeSummary, Summarise: what the counts become

namespace hfsim {

/// Counters of one collective, or (from CollectiveExecutor::Totals) summed over all of them.
struct CollectiveStats {
  /// Planned at Create from the schedules alone: sum of every transfer's bytes over all groups,
  /// stages and chunks (0-byte transfers send no message and are not counted).
  uint64_t bytes_scheduled = 0;
  uint64_t messages_scheduled = 0;
  /// Reducing receives (transfer.reduce) of more than 0 bytes.
  uint64_t reductions_scheduled = 0;

  uint64_t bytes_sent = 0;
  uint64_t messages_sent = 0;
  uint64_t bytes_delivered = 0;
  uint64_t messages_delivered = 0;
  uint64_t messages_acknowledged = 0;
  uint64_t reductions_performed = 0;

  uint64_t npus_entered = 0;
  uint64_t npus_done = 0;
  /// Times in ns; NaN until the first NPU entered / finished.
  double first_enter_ns = std::numeric_limits<double>::quiet_NaN();
  double last_enter_ns = std::numeric_limits<double>::quiet_NaN();
  double last_done_ns = std::numeric_limits<double>::quiet_NaN();

  /// From the first NPU entering to the last one finishing, ns.
  double DurationNs() const { return last_done_ns - first_enter_ns; }

  void Add(const CollectiveStats& other) {
    bytes_scheduled += other.bytes_scheduled;
    messages_scheduled += other.messages_scheduled;
    reductions_scheduled += other.reductions_scheduled;
    bytes_sent += other.bytes_sent;
    messages_sent += other.messages_sent;
    bytes_delivered += other.bytes_delivered;
    messages_delivered += other.messages_delivered;
    messages_acknowledged += other.messages_acknowledged;
    reductions_performed += other.reductions_performed;
    npus_entered += other.npus_entered;
    npus_done += other.npus_done;
    // fmin/fmax ignore a NaN operand, so collectives not yet started do not poison the total.
    first_enter_ns = std::fmin(first_enter_ns, other.first_enter_ns);
    last_enter_ns = std::fmax(last_enter_ns, other.last_enter_ns);
    last_done_ns = std::fmax(last_done_ns, other.last_done_ns);
  }
};

/// One message's completion times, measured from when it was handed to the transport. Floats:
/// 12 bytes a message keep the raw list affordable at millions of messages, and a relative
/// precision of 1e-7 is plenty for distributions.
struct MessageTiming {
  uint32_t collective = 0;
  float delivered_ns = 0.0f;     ///< send -> last byte at the destination
  float acknowledged_ns = 0.0f;  ///< send -> the sender learns it was delivered
};

}  // namespace hfsim
