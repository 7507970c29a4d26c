#include "sim/packet/rdma-transport.h"

#include <stdexcept>
#include <string>

#include <algorithm>
#include <cmath>

namespace hfsim {

namespace {

// DCQCN constants (Zhu et al., SIGCOMM'15), scaled to time in ns.
constexpr double kAlphaGain = 1.0 / 256.0;
constexpr double kRateIncreasePeriodNs = 55000.0;
constexpr uint32_t kFastRecoveryRounds = 5;
constexpr double kAdditiveIncreaseShare = 0.005;  // of line rate per round after fast recovery
constexpr double kMinRateShare = 0.001;
constexpr double kCnpIntervalNs = 50000.0;
// The simulator's clock ticks in picoseconds: a flow allowed to send less than a tick from now
// may send now, and a wake-up is never scheduled less than a tick ahead (a zero-delay wake-up
// that finds the flow still not allowed would repeat forever at the same instant).
constexpr double kTickNs = 1e-3;

}  // namespace

RdmaTransport::RdmaTransport(PacketFabric& fabric, EventClock& clock, const PacketSpec& spec)
    : m_fabric(fabric), m_clock(clock), m_spec(spec) {
  m_fabric.SetDeliver([this](uint32_t npu, const HfsimHeader& header) { OnPacket(npu, header); });
}

void RdmaTransport::Send(const Message& message) {
  ++m_counters.messages;
  Flow flow;
  flow.message = message;
  flow.port = m_fabric.FirstLink(static_cast<uint32_t>(message.src), static_cast<uint32_t>(message.dst));
  const uint64_t packets = (message.bytes + m_spec.mtu_bytes - 1) / m_spec.mtu_bytes;
  // Packets are numbered in 32 bits on the wire: a larger message would wrap and be counted
  // done early (or never). Billions of packets per message is far beyond a run that ends.
  if (packets > UINT32_MAX) {
    throw std::runtime_error("RdmaTransport: a message of " + std::to_string(message.bytes) +
                             " bytes is more than 2^32 packets of " +
                             std::to_string(m_spec.mtu_bytes) + " bytes");
  }
  flow.packets = static_cast<uint32_t>(packets);
  flow.line_rate_Bpns = m_fabric.LinkRate_Bpns(flow.port);
  flow.rate_Bpns = flow.target_Bpns = flow.line_rate_Bpns;
  flow.last_rate_update_ns = flow.last_progress_ns = m_clock.NowNs();
  auto [it, inserted] = m_flows.emplace(message.id, flow);
  Activate(it->second);
  StartWatchdog();
}

void RdmaTransport::Activate(Flow& flow) {
  if (flow.active || flow.next_seq >= flow.packets) return;
  flow.active = true;
  m_ports[flow.port].flows.push_back(flow.message.id);
  ServePort(flow.port);
}

// Sends at most one packet on the port now, then wakes again when the link is free (one packet
// time later) or when the first rate-limited flow may send; idle ports have no pending event.
void RdmaTransport::ServePort(LinkId port_id) {
  Port& port = m_ports[port_id];
  if (port.wake_pending) return;
  const double now = m_clock.NowNs();
  double earliest = -1.0;
  for (size_t tries = port.flows.size(); tries > 0; --tries) {
    const uint64_t id = port.flows.front();
    port.flows.pop_front();
    auto found = m_flows.find(id);
    if (found == m_flows.end()) continue;  // completed while queued (a late ack after a rewind)
    Flow& flow = found->second;
    if (flow.next_seq >= flow.packets) {  // everything sent; retransmission re-activates it
      flow.active = false;
      continue;
    }
    if (flow.next_allowed_ns > now + kTickNs) {
      port.flows.push_back(id);
      earliest = earliest < 0 ? flow.next_allowed_ns : std::min(earliest, flow.next_allowed_ns);
      continue;
    }
    const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(
        m_spec.mtu_bytes, flow.message.bytes - uint64_t{flow.next_seq} * m_spec.mtu_bytes));
    SendData(flow);
    port.flows.push_back(id);
    const double wire = m_fabric.WireBytes(payload);
    port.wake_pending = true;
    m_clock.ScheduleNs(wire / flow.line_rate_Bpns, [this, port_id] {
      m_ports[port_id].wake_pending = false;
      ServePort(port_id);
    });
    return;
  }
  if (earliest >= 0) {
    port.wake_pending = true;
    m_clock.ScheduleNs(std::max(earliest - now, kTickNs), [this, port_id] {
      m_ports[port_id].wake_pending = false;
      ServePort(port_id);
    });
  }
}

void RdmaTransport::SendData(Flow& flow) {
  const double now = m_clock.NowNs();
  if (m_spec.congestion_control == CongestionControl::kDcqcn) UpdateRate(flow, now);
  HfsimHeader header;
  header.type = PacketType::kData;
  header.src = static_cast<uint32_t>(flow.message.src);
  header.dst = static_cast<uint32_t>(flow.message.dst);
  header.flow = flow.message.id;
  header.seq = flow.next_seq;
  header.total_packets = flow.packets;
  header.payload_bytes = static_cast<uint32_t>(std::min<uint64_t>(
      m_spec.mtu_bytes, flow.message.bytes - uint64_t{flow.next_seq} * m_spec.mtu_bytes));
  ++m_counters.data_packets_sent;
  if (flow.next_seq < flow.highest_sent) ++m_counters.retransmitted_packets;
  ++flow.next_seq;
  flow.highest_sent = std::max(flow.highest_sent, flow.next_seq);
  flow.next_allowed_ns = now + m_fabric.WireBytes(header.payload_bytes) / flow.rate_Bpns;
  m_fabric.Send(header);
}

// DCQCN rate recovery, applied lazily for the periods that passed since the last update, so a
// flow needs no timer of its own.
void RdmaTransport::UpdateRate(Flow& flow, double now_ns) {
  while (now_ns - flow.last_rate_update_ns >= kRateIncreasePeriodNs &&
         flow.rate_Bpns < flow.line_rate_Bpns) {
    flow.last_rate_update_ns += kRateIncreasePeriodNs;
    flow.alpha *= 1.0 - kAlphaGain;
    if (flow.recovery_rounds >= kFastRecoveryRounds) {
      flow.target_Bpns = std::min(flow.line_rate_Bpns,
                                  flow.target_Bpns + kAdditiveIncreaseShare * flow.line_rate_Bpns);
    }
    flow.rate_Bpns = std::min(flow.line_rate_Bpns, (flow.rate_Bpns + flow.target_Bpns) / 2.0);
    ++flow.recovery_rounds;
  }
  if (flow.rate_Bpns >= flow.line_rate_Bpns) flow.last_rate_update_ns = now_ns;
}

void RdmaTransport::StartWatchdog() {
  if (m_watchdog_running) return;
  m_watchdog_running = true;
  m_clock.ScheduleNs(m_spec.retransmit_timeout_ns / 2.0, [this] { Watchdog(); });
}

// Rewinds every flow that made no progress for a timeout; keeps running while flows exist, so an
// idle transport leaves no event behind.
void RdmaTransport::Watchdog() {
  const double now = m_clock.NowNs();
  for (auto& [id, flow] : m_flows) {
    if (now - flow.last_progress_ns >= m_spec.retransmit_timeout_ns - kTickNs) {
      ++m_counters.timeouts;
      flow.next_seq = flow.acked;  // go back to the first unacknowledged packet
      flow.last_progress_ns = now;
      Activate(flow);
    }
  }
  m_watchdog_running = false;
  if (!m_flows.empty()) StartWatchdog();
}

void RdmaTransport::Control(PacketType type, uint32_t from, uint32_t to, uint64_t flow, uint32_t seq) {
  HfsimHeader header;
  header.type = type;
  header.src = from;
  header.dst = to;
  header.flow = flow;
  header.seq = seq;
  m_fabric.Send(header);
}

void RdmaTransport::OnPacket(uint32_t, const HfsimHeader& header) {
  if (header.type == PacketType::kData) {
    OnData(header);
    return;
  }
  auto it = m_flows.find(header.flow);
  if (it == m_flows.end()) return;  // a late ack for a finished message
  Flow& flow = it->second;
  const double now = m_clock.NowNs();
  switch (header.type) {
    case PacketType::kAck:
    case PacketType::kNack:
      if (header.seq > flow.acked) {
        flow.acked = header.seq;
        flow.last_progress_ns = now;
      }
      if (header.type == PacketType::kNack && flow.next_seq > header.seq) {
        flow.next_seq = header.seq;  // go-back-N
        Activate(flow);
      }
      if (flow.acked >= flow.packets) {
        const uint64_t id = flow.message.id;
        m_flows.erase(it);
        if (m_handlers.acknowledged) m_handlers.acknowledged(id);
      }
      return;
    case PacketType::kCnp:
      if (m_spec.congestion_control != CongestionControl::kDcqcn) return;
      UpdateRate(flow, now);
      ++m_counters.rate_cuts;
      flow.target_Bpns = flow.rate_Bpns;
      flow.rate_Bpns = std::max(kMinRateShare * flow.line_rate_Bpns,
                                flow.rate_Bpns * (1.0 - flow.alpha / 2.0));
      flow.alpha = (1.0 - kAlphaGain) * flow.alpha + kAlphaGain;
      flow.recovery_rounds = 0;
      flow.last_rate_update_ns = now;
      return;
    case PacketType::kData:
      return;
  }
}

void RdmaTransport::OnData(const HfsimHeader& header) {
  Inbound& in = m_inbound[header.flow];
  const double now = m_clock.NowNs();
  if (header.ecn_marked && now - in.last_cnp_ns >= kCnpIntervalNs) {
    in.last_cnp_ns = now;
    ++m_counters.cnps_sent;
    Control(PacketType::kCnp, header.dst, header.src, header.flow, 0);
  }
  if (header.seq < in.expected) {
    // A retransmission of something already accepted: its ack was lost, so say it again.
    ++m_counters.duplicates_received;
    ++m_counters.acks_sent;
    Control(PacketType::kAck, header.dst, header.src, header.flow, in.expected);
    return;
  }
  if (header.seq > in.expected) {
    ++m_counters.out_of_order_dropped;
    if (!in.nack_outstanding) {
      in.nack_outstanding = true;
      ++m_counters.nacks_sent;
      Control(PacketType::kNack, header.dst, header.src, header.flow, in.expected);
    }
    return;
  }
  ++in.expected;
  in.nack_outstanding = false;
  m_counters.data_bytes_delivered += header.payload_bytes;
  const bool last = in.expected == header.total_packets;
  if (last || in.expected % m_spec.ack_every_packets == 0) {
    ++m_counters.acks_sent;
    Control(PacketType::kAck, header.dst, header.src, header.flow, in.expected);
  }
  if (last && m_handlers.delivered) m_handlers.delivered(header.flow);
}

}  // namespace hfsim
