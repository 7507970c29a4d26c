// Messages over ns-3's own TCP on the IP fabric: the host-stack baseline (gRPC, PS-lite).
//
// One TCP connection per ordered (source, destination) NPU pair, opened by the source at its
// first message and kept for the whole run, as gRPC keeps its channels. A connection carries its
// messages one after another as a byte stream, each behind a 16-byte frame (message id and
// length, big-endian), so the receiver knows where each ends.
//   delivered(id):    the destination has read the message's last byte (it reads whatever TCP
//                     hands up at once, so this is when that byte arrives in order);
//   acknowledged(id): TCP's cumulative ACK at the source covers that last byte. No application
//                     ack message: because the receiver reads at once, TCP's own ACK already
//                     means "delivered", and it costs no extra packet or round trip.
// Every message is delivered exactly once because TCP delivers the stream exactly once in order
// and the frames cut it into messages.
//
// Socket settings (why):
//   segment size = mtu_bytes (payload per packet, as for RDMA); Nagle off (a message's tail is
//   sent at once, not held for an ACK);
//   send buffer = 2 x the route's bandwidth-delay product (TcpSendBufferBytes), which bounds the
//   bytes in flight as Linux's buffer autotuning does (it sizes buffers to about twice what one
//   round trip carries): a flow reaches line rate on an idle route, yet the flows of one NPU do
//   not pile megabytes into its own NIC queue and drop there (Linux's TCP small queues never
//   let that happen); receive buffer = the largest send buffer, so it never binds;
//   an ACK for every segment: ns-3's NewReno grows the window by one segment per ACK, so ACKing
//   every segment gives Linux's slow start (which counts acknowledged segments), and a message's
//   last segment is not held by a delayed-ACK timer (Linux ACKs at once when the application
//   drains the buffer, which this receiver always does);
//   minimum RTO = retransmit_timeout_ns (Linux's 200 ms would dwarf a collective), clock
//   granularity 1 us, SYN timeout = retransmit_timeout_ns; data retries unlimited in effect (a
//   link that is down for a while must not kill a connection whose bytes are half delivered); a
//   connection whose SYN is never answered is opened again from scratch (none of its bytes can
//   have arrived);
//   SACK and window scaling on (ns-3's and Linux's defaults); the timestamp option off: ns-3's
//   counts milliseconds and would flatten every microsecond round trip here to a 1 us floor, so
//   round trips are measured from ns-3's own send times instead (to the picosecond, as Linux
//   measures them from its packet timestamps); congestion control PacketSpec::tcp_variant.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include <ns3/packet.h>
#include <ns3/sequence-number.h>
#include <ns3/socket.h>
#include <ns3/tcp-header.h>
#include <ns3/tcp-socket-base.h>
#include <ns3/tcp-socket-state.h>

#include "sim/messages/event-clock.h"
#include "sim/packet/ip-fabric.h"
#include "sim/report/packet-report.h"  // TransportCounters
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Send buffer of the connection src -> dst, bytes: twice the route's bandwidth-delay product
/// (bottleneck rate x round trip with one full segment serialised per hop), at least
/// max(64 KiB, 16 segments).
uint32_t TcpSendBufferBytes(const FabricGraph& graph, const PacketSpec& spec, uint32_t src,
                            uint32_t dst);
/// Receive buffer of every socket, bytes: the largest send buffer, so it never binds.
uint32_t TcpReceiveBufferBytes(const FabricGraph& graph, const PacketSpec& spec);

class TcpTransport final : public MessageTransport {
 public:
  /// Opens a listening socket on every NPU.
  TcpTransport(IpFabric& fabric, EventClock& clock, const PacketSpec& spec);
  ~TcpTransport() override;
  TcpTransport(const TcpTransport&) = delete;
  TcpTransport& operator=(const TcpTransport&) = delete;

  void SetHandlers(Handlers handlers) override { m_handlers = std::move(handlers); }
  void Send(const Message& message) override;

  /// messages, data_packets_sent (data segments, with retransmissions), retransmitted_packets,
  /// data_bytes_delivered (message bytes read, frames excluded), acks_sent (pure ACKs),
  /// timeouts (retransmission timeouts that started a loss episode); the RDMA-only counters
  /// stay 0.
  const TransportCounters& Counters() const { return m_counters; }

  static constexpr uint32_t kFrameBytes = 16;  ///< message id (8) + length (8)
  static constexpr uint16_t kPort = 5000;

 private:
  struct Pending {
    uint64_t id = 0;
    uint64_t bytes = 0;       ///< message bytes (the frame comes on top)
    uint64_t stream_end = 0;  ///< offset in the connection's stream just past its last byte
  };
  // The source's side of one (source, destination) connection.
  struct Connection {
    uint32_t src = 0;
    uint32_t dst = 0;
    ns3::Ptr<ns3::Socket> socket;
    std::deque<Pending> pending;  ///< not yet acknowledged, in stream order
    size_t next_push = 0;         ///< first entry of `pending` not wholly in the socket
    uint64_t next_pushed = 0;     ///< bytes of that entry (frame included) already in it
    uint64_t stream_bytes = 0;    ///< stream length once everything pending is pushed
    uint64_t acked_bytes = 0;     ///< stream bytes covered by TCP's cumulative ACK
    bool synchronised = false;    ///< the SYN-ACK told us where the stream starts
    ns3::SequenceNumber32 last_ack;
    bool sent_any = false;
    ns3::SequenceNumber32 highest_sent;  ///< one past the highest data byte sent
  };
  // The destination's side: where it is in the stream's frames.
  struct Inbound {
    uint8_t frame[kFrameBytes] = {};
    uint32_t frame_bytes = 0;  ///< of the current frame read so far
    uint64_t id = 0;
    uint64_t remaining = 0;  ///< bytes of the current message still to read
  };

  uint64_t Key(uint64_t src, uint64_t dst) const { return src * m_npus + dst; }
  ns3::Ptr<ns3::Socket> NewSocket(uint32_t npu, uint32_t send_buffer_bytes) const;
  void Open(uint64_t key);
  void Push(Connection& connection);

  static void OnAccept(TcpTransport* self, uint32_t dst, ns3::Ptr<ns3::Socket> socket,
                       const ns3::Address& from);
  static void OnReceive(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket> socket);
  static void OnSendSpace(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket> socket,
                          uint32_t available);
  static void OnConnected(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket> socket);
  static void OnConnectFailed(TcpTransport* self, uint64_t key, ns3::Ptr<ns3::Socket> socket);
  static void OnSourceRx(TcpTransport* self, uint64_t key, ns3::Ptr<const ns3::Packet> packet,
                         const ns3::TcpHeader& header, ns3::Ptr<const ns3::TcpSocketBase> socket);
  static void OnSourceTx(TcpTransport* self, uint64_t key, ns3::Ptr<const ns3::Packet> packet,
                         const ns3::TcpHeader& header, ns3::Ptr<const ns3::TcpSocketBase> socket);
  static void OnDestinationTx(TcpTransport* self, ns3::Ptr<const ns3::Packet> packet,
                              const ns3::TcpHeader& header,
                              ns3::Ptr<const ns3::TcpSocketBase> socket);
  static void OnCongestionState(TcpTransport* self, ns3::TcpSocketState::TcpCongState_t from,
                                ns3::TcpSocketState::TcpCongState_t to);

  IpFabric& m_fabric;
  EventClock& m_clock;
  PacketSpec m_spec;
  uint64_t m_npus;
  uint32_t m_receive_buffer_bytes;
  Handlers m_handlers;
  std::unordered_map<uint64_t, Connection> m_connections;  ///< by Key(src, dst)
  std::unordered_map<uint64_t, Inbound> m_inbound;         ///< by Key(src, dst)
  std::vector<ns3::Ptr<ns3::Socket>> m_listeners;          ///< by NPU
  std::vector<ns3::Ptr<ns3::Socket>> m_accepted;
  TransportCounters m_counters;
};

}  // namespace hfsim
