// An RDMA-style reliable message transport on the packet fabric.
//
// Each message is one flow (like one RDMA write on its own queue pair): cut into MTU-sized
// packets numbered 0..P-1 and paced onto the NPU's egress link by a per-port round-robin
// scheduler at the link's rate, or at the flow's lower rate under congestion control.
//   Receiver: accepts packets in order only; acknowledges every `ack_every_packets` packets and
//             the last one (cumulative: "next expected is k"); on a gap it sends one NACK for the
//             packet it expects (go-back-N), and on an ECN-marked packet a congestion
//             notification (CNP) at most once per 50 us per flow.
//   Sender:   on a NACK rewinds to the expected packet; if nothing is acknowledged for
//             `retransmit_timeout_ns` it rewinds to the last acknowledged packet (one watchdog
//             checks all flows every half timeout, so a timeout fires 1 to 1.5 timeouts after
//             the last progress: per-flow timers kept ~25% of the run busy in the event heap);
//             on a CNP cuts
//             its rate DCQCN-style (Rc *= 1 - alpha/2) and recovers it every 55 us without one.
// Delivery is reported once per message, when its last packet arrives in order.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/messages/event-clock.h"
#include "sim/packet/packet-fabric.h"
#include "sim/report/packet-report.h"  // TransportCounters

namespace hfsim {

class RdmaTransport final : public MessageTransport {
 public:
  RdmaTransport(PacketFabric& fabric, EventClock& clock, const PacketSpec& spec);

  void SetHandlers(Handlers handlers) override { m_handlers = std::move(handlers); }
  void Send(const Message& message) override;

  const TransportCounters& Counters() const { return m_counters; }

 private:
  struct Flow {
    Message message;
    LinkId port = 0;
    uint32_t packets = 0;
    uint32_t next_seq = 0;      ///< next packet to (re)send
    uint32_t highest_sent = 0;  ///< one past the highest packet ever sent
    uint32_t acked = 0;         ///< packets known received (cumulative)
    double line_rate_Bpns = 0.0;
    double rate_Bpns = 0.0;     ///< current DCQCN rate
    double target_Bpns = 0.0;
    double alpha = 1.0;
    double next_allowed_ns = 0.0;
    double last_rate_update_ns = 0.0;
    uint32_t recovery_rounds = 0;
    double last_progress_ns = 0.0;
    bool active = false;        ///< in its port's round-robin list
  };
  struct Port {
    std::deque<uint64_t> flows;  ///< flows with packets to send, in round-robin order
    bool wake_pending = false;
  };
  struct Inbound {
    uint32_t expected = 0;
    double last_cnp_ns = -1e300;
    bool nack_outstanding = false;
  };

  void Activate(Flow& flow);
  void ServePort(LinkId port);
  void SendData(Flow& flow);
  void StartWatchdog();
  void Watchdog();
  void UpdateRate(Flow& flow, double now_ns);
  void OnPacket(uint32_t npu, const HfsimHeader& header);
  void OnData(const HfsimHeader& header);
  void Control(PacketType type, uint32_t from, uint32_t to, uint64_t flow, uint32_t seq);

  PacketFabric& m_fabric;
  EventClock& m_clock;
  PacketSpec m_spec;
  Handlers m_handlers;
  std::unordered_map<uint64_t, Flow> m_flows;
  std::unordered_map<LinkId, Port> m_ports;
  bool m_watchdog_running = false;
  std::unordered_map<uint64_t, Inbound> m_inbound;  ///< kept after delivery to re-ack duplicates
  TransportCounters m_counters;
};

}  // namespace hfsim
