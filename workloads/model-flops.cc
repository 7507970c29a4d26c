#include "workloads/model-flops.h"

namespace hfsim {

std::string_view ToString(FlopConvention convention) {
  return kFlopConventionNames[static_cast<size_t>(convention)];
}

std::optional<FlopConvention> FlopConventionNamed(std::string_view name) {
  for (size_t i = 0; i < kFlopConventionNames.size(); ++i) {
    if (kFlopConventionNames[i] == name) return static_cast<FlopConvention>(i);
  }
  return std::nullopt;
}

// Megatron-LM's transformer_flops() (megatron/training/training.py), term by term, against a
// row's fields (a multiply-add counting 2 in both):
//   - every GEMM of the attention projections and the MLP, 6 T (weights): the row's forward
//     FLOPs without its attention core, times 3;
//   - the core, 6 s^2 q per layer and sample, i.e. 3 x the row's attention_flops_per_sample
//     (4 s^2 q for a forward over the whole square) x 1/2 for the causal mask; Megatron's
//     older estimate (up to core_v0.11) counted the whole square;
//   - routed experts, 6 T h F top_k c: 3 x top_k x the expert's forward FLOPs per token;
//   - the logits, 6 T h V: 3 x the LM head row's forward FLOPs;
//   - not counted by Megatron: the router's GEMM (h x experts per token, which every routed
//     row of the zoo and of models from hyper-parameters includes in its forward FLOPs), the
//     embedding lookup, norms, softmax and activation functions (which hfsim's rows do not
//     count either). Megatron's vocabulary is the padded one; a row's is the model's own.
double ModelFlopsPerSample(const Model& model, FlopConvention convention) {
  const double core_share = convention == FlopConvention::kMegatronCausal ? 0.5 : 1.0;
  double flops = 0.0;
  for (const Layer& layer : model.layers) {
    double forward = layer.forward_flops_per_sample - layer.attention_flops_per_sample +
                     core_share * layer.attention_flops_per_sample;
    if (layer.routed) {
      const RoutedExperts& r = *layer.routed;
      const double tokens = static_cast<double>(r.tokens_per_sample);
      forward += r.top_k * r.forward_flops_per_token * tokens;
      forward -= 2.0 * tokens * static_cast<double>(r.token_elements) * r.experts;
    }
    flops += 3.0 * forward;
  }
  return flops;
}

}  // namespace hfsim
