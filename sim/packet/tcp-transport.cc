#include "sim/packet/tcp-transport.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ns3/boolean.h>
#include <ns3/inet-socket-address.h>
#include <ns3/nstime.h>
#include <ns3/tcp-congestion-ops.h>  // TcpNewReno
#include <ns3/tcp-cubic.h>
#include <ns3/tcp-l4-protocol.h>
#include <ns3/tcp-socket-factory.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

namespace hfsim {

namespace {

// IPv4 20 + TCP 20 + PPP 2: what a full segment adds on the wire.
constexpr double kSegmentHeaderBytes = 42.0;
// Retransmission timeouts in a row before TCP gives a connection up: never, in effect (the RTO
// backs off exponentially, so even a link down for days costs few of them).
constexpr uint32_t kDataRetries = std::numeric_limits<uint32_t>::max();

void WriteU64(uint8_t* out, uint64_t value) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(value & 0xff);
    value >>= 8;
  }
}

uint64_t ReadU64(const uint8_t* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | in[i];
  return value;
}

ns3::Time FromNs(double ns) { return ns3::PicoSeconds(std::llround(ns * 1e3)); }

}  // namespace

uint32_t TcpSendBufferBytes(const FabricGraph& graph, const PacketSpec& spec, uint32_t src,
                            uint32_t dst) {
  double latency_ns = 0.0;
  double serialisation_ns = 0.0;  // store-and-forward: a full segment is serialised at every hop
  double bottleneck = std::numeric_limits<double>::infinity();
  graph.ForEachLinkOnRoute(src, dst, [&](LinkId id) {
    const FabricLink& link = graph.Link(id);
    latency_ns += link.latency_ns;
    serialisation_ns += (spec.mtu_bytes + kSegmentHeaderBytes) / link.bandwidth_Bpns;
    bottleneck = std::min(bottleneck, link.bandwidth_Bpns);
  });
  const double bandwidth_delay_bytes = bottleneck * 2.0 * (latency_ns + serialisation_ns);
  const double floor = std::max(double{64 << 10}, 16.0 * spec.mtu_bytes);
  return static_cast<uint32_t>(
      std::ceil(std::clamp(2.0 * bandwidth_delay_bytes, floor, double{1 << 30})));
}

uint32_t TcpReceiveBufferBytes(const FabricGraph& graph, const PacketSpec& spec) {
  // Every NPU sees the same fabric around it, so NPU 0's routes include the longest ones.
  uint32_t largest = 0;
  for (VertexId dst = 1; dst < graph.NpuCount(); ++dst) {
    largest = std::max(largest, TcpSendBufferBytes(graph, spec, 0, dst));
  }
  return largest;
}

TcpTransport::TcpTransport(IpFabric& fabric, EventClock& clock, const PacketSpec& spec)
    : m_fabric(fabric),
      m_clock(clock),
      m_spec(spec),
      m_npus(fabric.Graph().NpuCount()),
      m_receive_buffer_bytes(TcpReceiveBufferBytes(fabric.Graph(), spec)) {
  const ns3::TypeId variant = m_spec.tcp_variant == TcpVariant::kCubic
                                  ? ns3::TcpCubic::GetTypeId()
                                  : ns3::TcpNewReno::GetTypeId();
  m_listeners.reserve(m_npus);
  for (uint32_t npu = 0; npu < m_npus; ++npu) {
    // Set on the node's TCP, not as a global default: runs in one process stay independent.
    m_fabric.NpuNode(npu)->GetObject<ns3::TcpL4Protocol>()->SetAttribute("SocketType",
                                                                         ns3::TypeIdValue(variant));
    ns3::Ptr<ns3::Socket> listener = NewSocket(npu, m_receive_buffer_bytes);
    listener->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), kPort));
    listener->Listen();
    listener->SetAcceptCallback(
        ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(),
        ns3::MakeBoundCallback(&TcpTransport::OnAccept, this, npu));
    m_listeners.push_back(listener);
  }
}

TcpTransport::~TcpTransport() {
  // The sockets outlive this transport until Simulator::Destroy. No event runs in between, but
  // leave them no way to call back into a destroyed object. (Their trace sources only fire on
  // sending and receiving, which needs events.)
  auto detach = [](const ns3::Ptr<ns3::Socket>& socket) {
    socket->SetRecvCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>());
    socket->SetSendCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>, uint32_t>());
    socket->SetConnectCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>(),
                               ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>());
    socket->SetAcceptCallback(
        ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(),
        ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>, const ns3::Address&>());
  };
  for (const auto& socket : m_listeners) detach(socket);
  for (const auto& socket : m_accepted) detach(socket);
  for (auto& [key, connection] : m_connections) detach(connection.socket);
}

ns3::Ptr<ns3::Socket> TcpTransport::NewSocket(uint32_t npu, uint32_t send_buffer_bytes) const {
  ns3::Ptr<ns3::Socket> socket =
      ns3::Socket::CreateSocket(m_fabric.NpuNode(npu), ns3::TcpSocketFactory::GetTypeId());
  const ns3::Time rto = FromNs(m_spec.retransmit_timeout_ns);
  socket->SetAttribute("SegmentSize", ns3::UintegerValue(m_spec.mtu_bytes));
  socket->SetAttribute("SndBufSize", ns3::UintegerValue(send_buffer_bytes));
  socket->SetAttribute("RcvBufSize", ns3::UintegerValue(m_receive_buffer_bytes));
  socket->SetAttribute("TcpNoDelay", ns3::BooleanValue(true));
  socket->SetAttribute("DelAckCount", ns3::UintegerValue(1));
  socket->SetAttribute("ConnTimeout", ns3::TimeValue(rto));
  socket->SetAttribute("DataRetries", ns3::UintegerValue(kDataRetries));
  socket->SetAttribute("MinRto", ns3::TimeValue(rto));
  socket->SetAttribute("ClockGranularity", ns3::TimeValue(ns3::MicroSeconds(1)));
  socket->SetAttribute("Timestamp", ns3::BooleanValue(false));
  return socket;
}

void TcpTransport::Send(const Message& message) {
  ++m_counters.messages;
  const uint64_t key = Key(message.src, message.dst);
  auto [it, opened] = m_connections.try_emplace(key);
  Connection& connection = it->second;
  connection.stream_bytes += kFrameBytes + message.bytes;
  connection.pending.push_back({message.id, message.bytes, connection.stream_bytes});
  if (opened) {
    connection.src = static_cast<uint32_t>(message.src);
    connection.dst = static_cast<uint32_t>(message.dst);
    Open(key);
  } else {
    Push(connection);
  }
}

// Connects the source's socket and hands it what is pending: TCP buffers data written while the
// handshake is under way and sends it once the connection is established.
void TcpTransport::Open(uint64_t key) {
  Connection& connection = m_connections.at(key);
  connection.socket = NewSocket(
      connection.src, TcpSendBufferBytes(m_fabric.Graph(), m_spec, connection.src, connection.dst));
  ns3::Ptr<ns3::Socket> socket = connection.socket;
  socket->SetConnectCallback(ns3::MakeBoundCallback(&TcpTransport::OnConnected, this, key),
                             ns3::MakeBoundCallback(&TcpTransport::OnConnectFailed, this, key));
  socket->SetSendCallback(ns3::MakeBoundCallback(&TcpTransport::OnSendSpace, this, key));
  socket->TraceConnectWithoutContext("Rx",
                                     ns3::MakeBoundCallback(&TcpTransport::OnSourceRx, this, key));
  socket->TraceConnectWithoutContext("Tx",
                                     ns3::MakeBoundCallback(&TcpTransport::OnSourceTx, this, key));
  socket->TraceConnectWithoutContext(
      "CongState", ns3::MakeBoundCallback(&TcpTransport::OnCongestionState, this));
  socket->Connect(ns3::InetSocketAddress(m_fabric.NpuAddress(connection.dst), kPort));
  Push(connection);
}

void TcpTransport::Push(Connection& connection) {
  ns3::Socket& socket = *connection.socket;
  while (connection.next_push < connection.pending.size()) {
    const Pending& message = connection.pending[connection.next_push];
    uint32_t room = socket.GetTxAvailable();
    if (connection.next_pushed == 0) {
      if (room < kFrameBytes) return;
      uint8_t frame[kFrameBytes];
      WriteU64(frame, message.id);
      WriteU64(frame + 8, message.bytes);
      // Fails only on a socket that closed on error; its messages then never complete and the
      // executor's end-of-run check names them.
      if (socket.Send(ns3::Create<ns3::Packet>(frame, kFrameBytes)) < 0) return;
      connection.next_pushed = kFrameBytes;
      room -= kFrameBytes;
    }
    // The payload is virtual (zero) bytes: only the frames are real data on the wire.
    const uint64_t left = kFrameBytes + message.bytes - connection.next_pushed;
    const uint32_t chunk = static_cast<uint32_t>(std::min<uint64_t>(left, room));
    if (chunk == 0) return;
    if (socket.Send(ns3::Create<ns3::Packet>(chunk)) < 0) return;
    connection.next_pushed += chunk;
    if (connection.next_pushed == kFrameBytes + message.bytes) {
      ++connection.next_push;
      connection.next_pushed = 0;
    }
  }
}

void TcpTransport::OnAccept(TcpTransport* self, uint32_t dst, ns3::Ptr<ns3::Socket> socket,
                            const ns3::Address& from) {
  const uint32_t src = self->m_fabric.NpuOf(ns3::InetSocketAddress::ConvertFrom(from).GetIpv4());
  const uint64_t key = self->Key(src, dst);
  self->m_inbound[key] = Inbound{};  // a connection opened again starts a new stream
  socket->SetRecvCallback(ns3::MakeBoundCallback(&TcpTransport::OnReceive, self, key));
  socket->TraceConnectWithoutContext("Tx",
                                     ns3::MakeBoundCallback(&TcpTransport::OnDestinationTx, self));
  self->m_accepted.push_back(socket);
  if (socket->GetRxAvailable() > 0) OnReceive(self, key, socket);
}

// Reads everything TCP has handed up, frame by frame: a frame's 16 bytes (possibly split over
// reads), then exactly the message's length, then the next frame.
void TcpTransport::OnReceive(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket> socket) {
  Inbound& in = self->m_inbound[key];
  while (true) {
    const bool in_frame = in.frame_bytes < kFrameBytes;
    const uint32_t want = in_frame ? kFrameBytes - in.frame_bytes
                                   : static_cast<uint32_t>(std::min<uint64_t>(
                                         in.remaining, std::numeric_limits<uint32_t>::max()));
    ns3::Ptr<ns3::Packet> packet = socket->Recv(want, 0);
    if (!packet || packet->GetSize() == 0) return;
    const uint32_t got = packet->GetSize();
    if (in_frame) {
      packet->CopyData(in.frame + in.frame_bytes, got);
      in.frame_bytes += got;
      if (in.frame_bytes < kFrameBytes) continue;
      in.id = ReadU64(in.frame);
      in.remaining = ReadU64(in.frame + 8);
    } else {
      in.remaining -= got;
      self->m_counters.data_bytes_delivered += got;
    }
    if (in.frame_bytes == kFrameBytes && in.remaining == 0) {
      in.frame_bytes = 0;
      if (self->m_handlers.delivered) self->m_handlers.delivered(in.id);
    }
  }
}

void TcpTransport::OnSendSpace(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket>, uint32_t) {
  self->Push(self->m_connections.at(key));
}

void TcpTransport::OnConnected(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket>) {
  self->Push(self->m_connections.at(key));
}

// The SYN was never answered (retried ConnCount times): nothing of the stream can have arrived,
// since data flows only once the handshake completes, so open a new connection and send it all
// again from the first frame.
void TcpTransport::OnConnectFailed(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket>) {
  Connection& connection = self->m_connections.at(key);
  uint64_t end = 0;
  for (Pending& message : connection.pending) {
    end += kFrameBytes + message.bytes;
    message.stream_end = end;
  }
  connection.stream_bytes = end;
  connection.next_push = 0;
  connection.next_pushed = 0;
  connection.acked_bytes = 0;
  connection.synchronised = false;
  connection.sent_any = false;
  // The failing socket is still inside its own callback: start the new one after it returns.
  self->m_clock.ScheduleNs(0.0, [self, key] { self->Open(key); });
}

// ACKs arriving at the source: the stream starts at the sequence number the SYN-ACK acknowledges
// and every cumulative ACK beyond the previous one covers that many more stream bytes.
void TcpTransport::OnSourceRx(TcpTransport* self, uint64_t key, ns3::Ptr<const ns3::Packet>,
                              const ns3::TcpHeader& header,
                              ns3::Ptr<const ns3::TcpSocketBase> socket) {
  if (!(header.GetFlags() & ns3::TcpHeader::ACK)) return;
  Connection& connection = self->m_connections.at(key);
  if (ns3::PeekPointer(socket) != ns3::PeekPointer(connection.socket)) return;  // a failed one
  const ns3::SequenceNumber32 ack = header.GetAckNumber();
  if (header.GetFlags() & ns3::TcpHeader::SYN) {
    if (!connection.synchronised) {  // a repeated SYN-ACK must not move the origin back
      connection.synchronised = true;
      connection.last_ack = ack;
    }
    return;
  }
  if (!connection.synchronised || ack <= connection.last_ack) return;
  connection.acked_bytes += static_cast<uint32_t>(ack - connection.last_ack);
  connection.last_ack = ack;
  while (!connection.pending.empty() &&
         connection.pending.front().stream_end <= connection.acked_bytes) {
    const uint64_t id = connection.pending.front().id;
    connection.pending.pop_front();
    --connection.next_push;  // an acknowledged message was wholly pushed
    // Reported after TCP has processed this ACK (the trace fires before), so that whatever the
    // executor sends in response meets a socket in a consistent state.
    self->m_clock.ScheduleNs(0.0, [self, id] {
      if (self->m_handlers.acknowledged) self->m_handlers.acknowledged(id);
    });
  }
}

void TcpTransport::OnSourceTx(TcpTransport* self, uint64_t key, ns3::Ptr<const ns3::Packet> packet,
                              const ns3::TcpHeader& header, ns3::Ptr<const ns3::TcpSocketBase>) {
  const uint32_t bytes = packet->GetSize();
  if (bytes == 0) return;  // SYN or pure ACK
  Connection& connection = self->m_connections.at(key);
  ++self->m_counters.data_packets_sent;
  const ns3::SequenceNumber32 seq = header.GetSequenceNumber();
  const ns3::SequenceNumber32 end = seq + bytes;
  if (connection.sent_any && seq < connection.highest_sent) {
    ++self->m_counters.retransmitted_packets;
  }
  if (!connection.sent_any || end > connection.highest_sent) connection.highest_sent = end;
  connection.sent_any = true;
}

void TcpTransport::OnDestinationTx(TcpTransport* self, ns3::Ptr<const ns3::Packet> packet,
                                   const ns3::TcpHeader& header,
                                   ns3::Ptr<const ns3::TcpSocketBase>) {
  const uint8_t flags = header.GetFlags();
  const uint8_t other = ns3::TcpHeader::SYN | ns3::TcpHeader::FIN | ns3::TcpHeader::RST;
  if (packet->GetSize() == 0 && (flags & ns3::TcpHeader::ACK) && !(flags & other)) {
    ++self->m_counters.acks_sent;
  }
}

void TcpTransport::OnCongestionState(TcpTransport* self, ns3::TcpSocketState::TcpCongState_t from,
                                     ns3::TcpSocketState::TcpCongState_t to) {
  // ns-3 enters CA_LOSS on a retransmission timeout (or SACK reneging, which its receivers never
  // do); a timeout while already in CA_LOSS is the same loss episode and not counted again.
  if (to == ns3::TcpSocketState::CA_LOSS && from != ns3::TcpSocketState::CA_LOSS) {
    ++self->m_counters.timeouts;
  }
}

}  // namespace hfsim
