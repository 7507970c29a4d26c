// Transformer Engine's default userbuffers overlaps and the SMs they take from the GEMMs
// (models/compute/userbuffers.h; docs/compute-model.md §5).
#include "models/compute/userbuffers.h"

#include "models/compute/comm-sm.h"

namespace hfsim {

std::string_view ToString(UbMethod method) {
  switch (method) {
    case UbMethod::kNone:
      return "none";
    case UbMethod::kRingExchange:
      return "ring_exchange";
    case UbMethod::kPipeline:
      return "pipeline";
    case UbMethod::kBulk:
      return "bulk";
  }
  return "?";
}

UbMethod DefaultUbMethod(UbLinear layer, LinearPass pass) {
  // initialize_ub's `methods`: the column-parallel layers (qkv, fc1) all-gather their input
  // beside fprop (ring exchange) and, in backward, gather it again beside dgrad and
  // reduce-scatter the input gradient beside wgrad (bulk); the row-parallel ones (proj, fc2)
  // reduce-scatter their output beside fprop (pipeline) and all-gather the output gradient
  // beside dgrad (ring exchange).
  const bool column = layer == UbLinear::kQkv || layer == UbLinear::kFc1;
  switch (pass) {
    case LinearPass::kFprop:
      return column ? UbMethod::kRingExchange : UbMethod::kPipeline;
    case LinearPass::kDgrad:
      return column ? UbMethod::kBulk : UbMethod::kRingExchange;
    case LinearPass::kWgrad:
      return column ? UbMethod::kBulk : UbMethod::kNone;
  }
  return UbMethod::kNone;
}

uint32_t UbGemmSmMargin(const DeviceSpec& device, UbMethod method) {
  switch (method) {
    case UbMethod::kPipeline:
    case UbMethod::kBulk:
      return CommKernelSms(device, CommKernel::kUserbuffersPipelineOrBulk);
    case UbMethod::kRingExchange:
    case UbMethod::kNone:
      return 0;
  }
  return 0;
}

LinearSmsTaken DefaultUserbuffersSmsTaken(const DeviceSpec& device, UbLinear layer, bool forward,
                                          bool backward) {
  auto taken = [&](LinearPass pass, bool overlapped) {
    return overlapped ? UbGemmSmMargin(device, DefaultUbMethod(layer, pass)) : 0u;
  };
  return {taken(LinearPass::kFprop, forward), taken(LinearPass::kDgrad, backward),
          taken(LinearPass::kWgrad, backward)};
}

}  // namespace hfsim
