// The host side of communication (S4; sources: docs/host-stack.md §2), shared by both engines.
//
// A message costs its sender, before it leaves, send_per_message_ns (RDMA: a work request and a
// doorbell; gRPC: RPC framing and system calls) plus send_per_byte_ns per byte (rdma_copy: a copy
// into a registered buffer; gRPC: protobuf serialisation and the socket copy), and its receiver,
// after it arrived, receive_per_message_ns (RDMA: flag polling; gRPC: RPC dispatch) plus
// receive_per_byte_ns per byte (copies out, deserialisation). RDMA with dynamically sized tensors
// first tells the receiver the size: extra_round_trips round trips of the route before the data.
//
// The analytical engine charges, per schedule step, each cost times the most messages / bytes one
// NPU sends or receives in it (models/schedule-profile.h); the packet engine's executor delays a
// step's sends by the NPU's own send costs and runs a serial receive engine per NPU
// (sim/messages/collective-executor.cc).
//
// Presets (calibration and arithmetic: docs/host-stack.md):
//   none      all 0. `communication.host_overhead_ns_per_message` sets send_per_message_ns
//             of this kind, exactly the older HostOverhead model.
//   rdma      zero-copy one-sided writes: "a few us per message" = 1.5 us to post (work request
//             + doorbell) + 1.5 us to notice (flag polling); 0 per byte; 0 extra round trips
//             (gradients have static sizes; set 1 for dynamically sized tensors).
//   rdma_copy rdma plus one in-process copy on each side at ~20 GB/s: 1/20 = 0.05 ns/B a side.
//   grpc      gRPC over TCP, ~0.9 GB/s achieved between workers: send + receive per byte =
//             1/0.9 = 1.111 ns/B, split evenly (0.5556 ns/B a side); 25 us per message a side
//             (RPC framing, system calls, dispatch, thread hand-off; an assumption, no published
//             figure: docs/host-stack.md §2). The other published point, 1.3 Gb/s on a 40 Gb/s
//             network, would mean 1/0.1625 GB/s = 6.15 ns/B in all, i.e. ~3 ns/B a side:
//             override to model it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

enum class HostStackKind { kNone, kRdma, kRdmaCopy, kGrpc };
inline constexpr NameTable<HostStackKind, 4> kHostStackKindNames = {{
    {HostStackKind::kNone, "none"},
    {HostStackKind::kRdma, "rdma"},
    {HostStackKind::kRdmaCopy, "rdma_copy"},
    {HostStackKind::kGrpc, "grpc"},
}};

inline std::string_view ToString(HostStackKind kind) { return NameIn(kHostStackKindNames, kind); }
/// The kind named `name`, or nullopt.
inline std::optional<HostStackKind> ParseHostStackKind(std::string_view name) {
  return ParseIn(kHostStackKindNames, name);
}

struct HostStack {
  HostStackKind kind = HostStackKind::kNone;
  /// Sender's cost of one message, ns (work request + doorbell; RPC framing + syscalls).
  double send_per_message_ns = 0.0;
  /// Receiver's cost of one message, ns (flag polling; RPC dispatch).
  double receive_per_message_ns = 0.0;
  /// Sender's cost per byte, ns/B (copy into registered buffers; serialisation + socket copy).
  double send_per_byte_ns = 0.0;
  /// Receiver's cost per byte, ns/B (copy out; socket copy + deserialisation).
  double receive_per_byte_ns = 0.0;
  /// Round trips of the route before the data (the receiver learns the size first).
  uint32_t extra_round_trips = 0;

  /// The documented defaults of `kind` (header comment).
  static HostStack Preset(HostStackKind kind);

  /// Time to post `messages` messages, ns (the older HostOverhead interface).
  double PostingNs(uint64_t messages) const {
    return send_per_message_ns * static_cast<double>(messages);
  }
  /// Sender's cost of one message of `bytes`, ns.
  double SendNs(double bytes) const { return send_per_message_ns + send_per_byte_ns * bytes; }
  /// Receiver's cost of one message of `bytes`, ns.
  double ReceiveNs(double bytes) const {
    return receive_per_message_ns + receive_per_byte_ns * bytes;
  }
  /// True when anything besides send_per_message_ns is set (what HostOverhead could not say).
  bool HasMoreThanPosting() const {
    return receive_per_message_ns != 0.0 || send_per_byte_ns != 0.0 ||
           receive_per_byte_ns != 0.0 || extra_round_trips != 0;
  }
  /// True when no cost at all is set.
  bool IsFree() const { return send_per_message_ns == 0.0 && !HasMoreThanPosting(); }

  bool operator==(const HostStack&) const = default;
};

/// Largest accepted extra_round_trips.
inline constexpr uint32_t kMaxExtraRoundTrips = 16;
/// Largest accepted per-byte cost, ns/B (1000 ns/B = 1 MB/s).
inline constexpr double kMaxHostPerByteNs = 1000.0;

}  // namespace hfsim
