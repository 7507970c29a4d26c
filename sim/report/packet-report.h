// What only the packet engine can report: per-link traffic and queues, losses and
// retransmissions, message completion times, and the simulation's own size. Part of Report.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/report/time-summary.h"

namespace hfsim {

/// What a transport counted (RDMA; TCP fills what applies and leaves the rest 0).
struct TransportCounters {
  uint64_t messages = 0;
  uint64_t data_packets_sent = 0;      ///< including retransmissions
  uint64_t retransmitted_packets = 0;
  uint64_t data_bytes_delivered = 0;   ///< payload accepted in order at receivers
  uint64_t acks_sent = 0;
  uint64_t nacks_sent = 0;
  uint64_t timeouts = 0;
  uint64_t cnps_sent = 0;
  uint64_t rate_cuts = 0;
  uint64_t out_of_order_dropped = 0;
  uint64_t duplicates_received = 0;
};

struct LinkReport {
  uint64_t link = 0;         ///< fabric link id (hfsim topology -o DIR: links.csv)
  uint64_t source = 0;       ///< vertex ids: NPUs first, then switches
  uint64_t target = 0;
  uint32_t dimension = 0;
  uint64_t packets = 0;
  uint64_t bytes = 0;        ///< wire bytes, headers included
  double utilisation = 0.0;  ///< bytes / (link bandwidth x simulated time)
  uint64_t queue_peak_bytes = 0;
  uint64_t drops_queue_full = 0;
  uint64_t drops_injected = 0;
  uint64_t ecn_marks = 0;
};

struct PacketReport {
  uint64_t events = 0;            ///< events the simulator processed
  double simulated_ns = 0.0;      ///< when the last event ran
  double wall_seconds = 0.0;      ///< host time; printed, never written to files (not reproducible)
  uint64_t peak_memory_bytes = 0; ///< the process's peak resident memory; printed only, like wall time
  TransportCounters transport;
  // Conservation: what the schedules asked for against what happened.
  uint64_t bytes_scheduled = 0;
  uint64_t bytes_delivered = 0;
  uint64_t reductions_scheduled = 0;
  uint64_t reductions_performed = 0;
  uint64_t duplicate_deliveries = 0;  ///< messages the application saw twice (must be 0)
  uint64_t protocol_errors = 0;       ///< any executor check that failed (must be 0)
  // Message completion (send start to delivery at the receiver).
  TimeSummary message_delivery;
  // Fabric.
  std::vector<LinkReport> links;
  uint64_t drops_queue_full = 0;
  uint64_t drops_injected = 0;
  uint64_t ecn_marks = 0;
  uint64_t queue_peak_bytes = 0;
};

}  // namespace hfsim
