// Presets of the host-stack model (models/host-stack.h; docs/host-stack.md).
#include "models/host-stack.h"

namespace hfsim {
namespace {

// Sources: docs/host-stack.md §2; the arithmetic is in the header comment and the same section.
constexpr double kRdmaPostNs = 1500.0;       // work request + doorbell
constexpr double kRdmaPollNs = 1500.0;       // completion flag polling
constexpr double kInProcessCopyBpns = 20.0;  // ~20 GB/s in-process copy
constexpr double kGrpcBpns = 0.9;            // ~0.9 GB/s achieved between workers
constexpr double kGrpcPerMessageNs = 25000.0;  // per side: framing/syscalls, dispatch

}  // namespace

HostStack HostStack::Preset(HostStackKind kind) {
  HostStack host;
  host.kind = kind;
  switch (kind) {
    case HostStackKind::kNone:
      break;
    case HostStackKind::kRdma:
      host.send_per_message_ns = kRdmaPostNs;
      host.receive_per_message_ns = kRdmaPollNs;
      break;
    case HostStackKind::kRdmaCopy:
      host.send_per_message_ns = kRdmaPostNs;
      host.receive_per_message_ns = kRdmaPollNs;
      host.send_per_byte_ns = 1.0 / kInProcessCopyBpns;
      host.receive_per_byte_ns = 1.0 / kInProcessCopyBpns;
      break;
    case HostStackKind::kGrpc:
      host.send_per_message_ns = kGrpcPerMessageNs;
      host.receive_per_message_ns = kGrpcPerMessageNs;
      host.send_per_byte_ns = 0.5 / kGrpcBpns;
      host.receive_per_byte_ns = 0.5 / kGrpcBpns;
      break;
  }
  return host;
}

}  // namespace hfsim
