// Which GEMMs of a transformer block Transformer Engine's userbuffers overlap with the block's
// tensor-parallel collectives, by which method, and how many SMs each leaves to the
// communication kernel, as TE configures them when Megatron-LM's --tp-comm-overlap gives no
// --tp-comm-overlap-cfg (ub_cfgs empty: every GEMM takes initialize_ub's defaults).
// docs/compute-model.md §5.
//
// transformer_engine/pytorch/module/base.py, initialize_ub (its `methods` table and
// get_default_config):
//
//   GEMM         fprop            dgrad            wgrad
//   qkv          ring_exchange    bulk (AG)        bulk (RS)
//   proj         pipeline (RS)    ring_exchange    none
//   fc1          ring_exchange    bulk (AG)        bulk (RS)
//   fc2          pipeline (RS)    ring_exchange    none
//
// pipeline and bulk: num_sm 16, set_sm_margin on, so the GEMM runs on SMs - 16
// (transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp,
// CommOverlapCore::initialize: _math_sms = set_sm_margin ? sm_count - num_comm_sm : sm_count;
// CommOverlapBase::bulk_overlap and split_overlap_rs launch the GEMM on _math_sms).
// ring_exchange: num_sm 1, set_sm_margin off, use_ce on: its chunks move by cudaMemcpyAsync on
// the copy engine (userbuffers.cu, userbuffers_send) and the GEMM keeps every SM.
// proj and fc2 wgrad are "external" in the table, which only the MXFP8 path uses
// (module/linear.py: an extra all-gather beside dgrad); otherwise they overlap nothing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "models/compute/device.h"

namespace hfsim {

/// The linear layers TE's userbuffers know by name (initialize_ub; Megatron's attention.py and
/// mlp.py pass them as tp_comm_buffer_name, and its TE wrappers switch the overlap off for any
/// other name): the attention's QKV and output projection, the MLP's fc1 and fc2.
enum class UbLinear : uint8_t { kQkv, kProj, kFc1, kFc2 };
/// A linear layer's three GEMMs (gemm-time.h, LinearGemms).
enum class LinearPass : uint8_t { kFprop, kDgrad, kWgrad };
enum class UbMethod : uint8_t { kNone, kRingExchange, kPipeline, kBulk };
/// "none", "ring_exchange", "pipeline", "bulk" (TE's spellings).
std::string_view ToString(UbMethod method);

/// The method TE's defaults give `layer`'s GEMM of `pass`.
UbMethod DefaultUbMethod(UbLinear layer, LinearPass pass);

/// SMs a GEMM overlapped by `method` leaves to the userbuffers kernel on `device` under TE's
/// defaults: 16 for pipeline and bulk (num_sm with set_sm_margin), 0 for ring_exchange (copy
/// engine, no margin) and none. Capped at the device's SMs - 1.
uint32_t UbGemmSmMargin(const DeviceSpec& device, UbMethod method);

/// SMs taken from each of a linear layer's three GEMMs (0: it has them all).
struct LinearSmsTaken {
  uint32_t fprop = 0;
  uint32_t dgrad = 0;
  uint32_t wgrad = 0;

  bool Any() const { return fprop > 0 || dgrad > 0 || wgrad > 0; }
};

/// UbGemmSmMargin of DefaultUbMethod for each of `layer`'s GEMMs; `forward` and `backward` say
/// whether the layer's forward collective (fprop) and its backward one (dgrad, wgrad) are
/// overlapped at all.
LinearSmsTaken DefaultUserbuffersSmsTaken(const DeviceSpec& device, UbLinear layer, bool forward,
                                          bool backward);

}  // namespace hfsim
