// Runs a gossip workload's steps (sim/runs/gossip-run.h) message by message over a MessageTransport:
// every step, all workers compute step_compute_ns, then that step's exchange messages (from the
// learning's trace, models/learning/gossip.h) are handed to the transport at once, and the next
// step starts when the last of them has been delivered. Holds no ns-3 type (tests run it on
// tests/messages/fake-network.h; the packet engine on ns-3).
//
// A message between a worker and the elastic centre on the same NPU is delivered locally, at
// once, and never touches the fabric (as the analytical engine prices it: nothing). Checks as it
// runs (Errors()): a message delivered twice or never sent, steps left unfinished.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/learning/gossip.h"
#include "sim/messages/error-log.h"
#include "sim/messages/event-clock.h"
#include "sim/messages/executor-stats.h"

namespace hfsim {

class GossipDriver {
 public:
  /// `node_npus[n]` is the NPU of trace node n (workers, then the elastic centre if any);
  /// `steps` local steps of `step_compute_ns` each. Calls transport.SetHandlers. The driver
  /// must outlive the events it schedules.
  GossipDriver(EventClock& clock, MessageTransport& transport, const GossipTrace& trace,
               std::vector<uint32_t> node_npus, uint32_t steps, double step_compute_ns);
  GossipDriver(const GossipDriver&) = delete;
  GossipDriver& operator=(const GossipDriver&) = delete;

  /// Starts step 0 now; run the clock's event loop to the end afterwards.
  void Start();
  bool Finished() const { return m_steps_done == m_step_end_ns.size(); }
  /// When step s ended (its last exchange message arrived), ns since Start.
  const std::vector<double>& StepEndNs() const { return m_step_end_ns; }

  /// Fabric traffic only (local messages are not counted): handed to the transport, delivered.
  uint64_t NetworkBytesSent() const { return m_network_bytes_sent; }
  uint64_t NetworkBytesDelivered() const { return m_network_bytes_delivered; }
  uint64_t NetworkMessagesSent() const { return m_network_messages_sent; }
  /// Every message of the trace, local ones included: delivered exactly once each.
  uint64_t MessagesDelivered() const { return m_messages_delivered; }

  /// Adds unfinished steps and undelivered messages to Errors(); true when there are none.
  bool CheckComplete();
  const std::vector<std::string>& Errors() const { return m_errors.Texts(); }
  uint64_t ErrorCount() const { return m_errors.Count(); }
  /// Fabric messages: from handing them to the transport to their delivery, ns.
  TimeSummary DeliverySummary() const { return Summarise(m_delivery_ns); }

 private:
  void StartStep(uint32_t step);
  void SendExchanges(uint32_t step);
  void OnDelivered(uint64_t id);
  void EndStep();

  EventClock& m_clock;
  MessageTransport& m_transport;
  const GossipTrace& m_trace;
  std::vector<uint32_t> m_node_npus;
  double m_step_compute_ns;

  std::vector<size_t> m_step_first;  ///< index of each step's first message; one more at the end
  std::vector<bool> m_delivered;     ///< per trace message
  std::vector<double> m_sent_ns;     ///< per trace message
  std::vector<double> m_step_end_ns;
  uint32_t m_current = 0;
  uint32_t m_pending = 0;  ///< messages of the current step not yet delivered
  uint32_t m_steps_done = 0;

  uint64_t m_network_bytes_sent = 0;
  uint64_t m_network_bytes_delivered = 0;
  uint64_t m_network_messages_sent = 0;
  uint64_t m_messages_delivered = 0;
  std::vector<double> m_delivery_ns;
  ErrorLog m_errors;
};

}  // namespace hfsim
