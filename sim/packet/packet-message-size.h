// The largest message a packet run would send, checked when the scenario loads. The RDMA
// transport numbers a message's packets in 32 bits on the wire (sim/packet/rdma-transport.cc),
// so a message of more than 2^32 packets of packet.mtu_bytes cannot be sent: a 2^50-byte
// all-reduce used to start and then stop with the transport's message, exit 1. The messages
// are the ones the packet engine sends: each stage's schedule on its chunk's buffer
// (sim/messages/collective-executor.h), and each send whole. ns-3's TCP frames carry 64-bit
// lengths, so the TCP transport has no such limit.
#pragma once

#include <cstdint>
#include <optional>

#include "base/expected.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The most bytes one RDMA message can carry with `mtu_bytes` packets: 2^32 - 1 packets.
uint64_t MaxRdmaMessageBytes(uint32_t mtu_bytes);

/// Refuses (at the workload's JSON path) a packet run of a graph job whose largest message is
/// over MaxRdmaMessageBytes; nullopt otherwise, and for the TCP transport.
std::optional<UserError> PacketMessageSizeRefusal(const Scenario& scenario);

}  // namespace hfsim
