// A model's training FLOPs as Megatron-LM counts them for its reported "throughput per GPU
// (TFLOP/s/GPU)" (megatron/training/training.py, num_floating_point_operations): the "model
// FLOPs" of MFU, which published TFLOP/s figures and the validation set compare against.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "workloads/layer.h"

namespace hfsim {

/// How the attention core (scores Q K^T and their weighted sum of V) is counted. Both count
/// every GEMM three times (forward, input gradients, weight gradients) and no recomputation:
/// - kMegatronCausal: half the s x s square, as Megatron-LM does from core_v0.12 (commit
///   8873b55d6a, 2025-03-06), and as NVIDIA's and Meta's published causal-model figures do.
/// - kMegatronFull: the whole square, as Megatron-LM did up to core_v0.11 and as Korthikanti et
///   al. 2022 (72 B s l h^2 (1 + s/6h + V/12lh)) and NVIDIA's DGX Cloud recipes count.
enum class FlopConvention { kMegatronCausal, kMegatronFull };

/// The conventions' names in scenarios and reports, in enum order.
inline constexpr std::array<std::string_view, 2> kFlopConventionNames = {"megatron-causal",
                                                                          "megatron-full"};

std::string_view ToString(FlopConvention convention);
std::optional<FlopConvention> FlopConventionNamed(std::string_view name);

/// Model FLOPs of one sample's forward and backward passes under `convention`, from the
/// model's rows: per row 3 x (its forward FLOPs, with the attention core halved for the causal
/// convention, plus every routed token's expert work, less the router's GEMM, which Megatron
/// does not count). Rows given by measured times count the FLOPs they state (0 if none).
double ModelFlopsPerSample(const Model& model, FlopConvention convention);

}  // namespace hfsim
