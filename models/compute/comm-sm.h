// Communication kernels that run beside compute take SMs from it. docs/compute-model.md §5.
//
// The model: a kernel that overlaps a communication kernel runs on the SMs the communication
// leaves. A GEMM is re-quantized on them (GemmOptions::available_sms: Transformer Engine
// launches the overlapped GEMM with that SM margin); other work slows by SMs / (SMs - taken).
// Not modelled: the HBM-bandwidth contention NCCL's maintainers describe (issues #1428, #1433:
// "they're competing for memory bandwidth") — the one slowdown figure found (a GEMM 1.76x
// slower beside an all-gather on an A100) is a single training profile, not a controlled
// kernel measurement.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/compute/device.h"

namespace hfsim {

enum class CommKernel : uint8_t {
  /// Transformer Engine userbuffers, "pipeline" and "bulk" overlaps (proj/fc2 fprop GEMM+RS,
  /// the AG/RS run beside dgrad/wgrad): num_sm = 16 (TE module/base.py initialize_ub defaults).
  kUserbuffersPipelineOrBulk,
  /// TE userbuffers "ring_exchange" (QKV/fc1 fprop AG+GEMM, proj/fc2 dgrad): num_sm = 1. Its
  /// GEMM is not given a margin (set_sm_margin off; the chunks move on the copy engine), so
  /// what it takes from the GEMM is 0: userbuffers.h, UbGemmSmMargin.
  kUserbuffersRingExchange,
  /// NCCL NVLink SHARP collectives: NVLS_NCHANNELS = 16 on Hopper, 24 on Blackwell within one
  /// node or NVLink domain, 32 across them (NCCL src/transport/nvls.cc, ncclNvlsInit).
  kNcclNvls,
  /// Any other NCCL collective: one SM per channel; the channel count comes from NCCL's
  /// topology search and is the caller's (no default: none was found in a primary log).
  kNcclChannels,
  /// Copy-engine transfers (NCCL_CTA_POLICY zero where supported): no SM.
  kCopyEngine,
};
std::string_view ToString(CommKernel kind);

/// SMs `kind` holds on `device`. `channels` is used by kNcclChannels only; `multi_domain` (the
/// communicator leaves the NVLink domain) by kNcclNvls on Blackwell only. Devices without
/// NVLink SHARP (before Hopper, MI300X) hold 0 for kNcclNvls. Capped at the device's SMs - 1.
uint32_t CommKernelSms(const DeviceSpec& device, CommKernel kind, uint32_t channels = 0,
                       bool multi_domain = false);

/// How much longer work that is not re-quantized (attention, elementwise) takes beside a
/// communication kernel holding `sms_taken` SMs: SMs / (SMs - taken), >= 1.
double OverlappedComputeSlowdown(const DeviceSpec& device, uint32_t sms_taken);
/// The same for a communication kernel of `kind` (CommKernelSms).
double OverlappedComputeSlowdown(const DeviceSpec& device, CommKernel kind, uint32_t channels = 0,
                                 bool multi_domain = false);

}  // namespace hfsim
