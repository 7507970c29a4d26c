// SMs held by communication kernels (models/compute/comm-sm.h; docs/compute-model.md §5).
#include "models/compute/comm-sm.h"

#include <algorithm>

namespace hfsim {
namespace {

// Transformer Engine initialize_ub / get_default_config: num_sm per method.
constexpr uint32_t kUserbuffersPipelineSms = 16;
constexpr uint32_t kUserbuffersRingSms = 1;
// NCCL nvls.cc: NVLS_NCHANNELS_SM90, NVLS_NCHANNELS_SM100_NVL, NVLS_NCHANNELS_SM100.
constexpr uint32_t kNvlsChannelsHopper = 16;
constexpr uint32_t kNvlsChannelsBlackwellOneDomain = 24;
constexpr uint32_t kNvlsChannelsBlackwellMultiDomain = 32;

}  // namespace

std::string_view ToString(CommKernel kind) {
  switch (kind) {
    case CommKernel::kUserbuffersPipelineOrBulk:
      return "userbuffers_pipeline";
    case CommKernel::kUserbuffersRingExchange:
      return "userbuffers_ring_exchange";
    case CommKernel::kNcclNvls:
      return "nccl_nvls";
    case CommKernel::kNcclChannels:
      return "nccl_channels";
    case CommKernel::kCopyEngine:
      return "copy_engine";
  }
  return "?";
}

uint32_t CommKernelSms(const DeviceSpec& device, CommKernel kind, uint32_t channels,
                       bool multi_domain) {
  uint32_t sms = 0;
  switch (kind) {
    case CommKernel::kUserbuffersPipelineOrBulk:
      sms = kUserbuffersPipelineSms;
      break;
    case CommKernel::kUserbuffersRingExchange:
      sms = kUserbuffersRingSms;
      break;
    case CommKernel::kNcclNvls:
      if (device.architecture == Architecture::kHopper) {
        sms = kNvlsChannelsHopper;
      } else if (device.architecture == Architecture::kBlackwell) {
        sms = multi_domain ? kNvlsChannelsBlackwellMultiDomain : kNvlsChannelsBlackwellOneDomain;
      }
      break;
    case CommKernel::kNcclChannels:
      sms = channels;
      break;
    case CommKernel::kCopyEngine:
      break;
  }
  return device.sm_count == 0 ? 0 : std::min(sms, device.sm_count - 1);
}

double OverlappedComputeSlowdown(const DeviceSpec& device, uint32_t sms_taken) {
  if (device.sm_count == 0) return 1.0;
  const uint32_t taken = std::min(sms_taken, device.sm_count - 1);
  return static_cast<double>(device.sm_count) / static_cast<double>(device.sm_count - taken);
}

double OverlappedComputeSlowdown(const DeviceSpec& device, CommKernel kind, uint32_t channels,
                                 bool multi_domain) {
  return OverlappedComputeSlowdown(device, CommKernelSms(device, kind, channels, multi_domain));
}

}  // namespace hfsim
