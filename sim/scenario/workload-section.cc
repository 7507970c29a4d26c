// The "workload" and "npu" sections of a scenario: a single collective, or a training iteration
// of a zoo or custom model with data/tensor parallelism mapped onto the fabric's dimensions.
#include "sim/scenario/workload-section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <optional>
#include <variant>

#include "models/compute/compute-model.h"
#include "sim/scenario/convergence-section.h"
#include "sim/scenario/gossip-section.h"
#include "sim/scenario/graph-section.h"
#include "sim/scenario/parameter-server-section.h"
#include "sim/scenario/pipeline-section.h"
#include "sim/scenario/scenario-parser.h"
#include "sim/scenario/sharding-section.h"
#include "sim/scenario/transformer-section.h"
#include "topologies/dimension-kinds.h"
#include "workloads/graph/pipeline-rules.h"
#include "workloads/model-zoo.h"
#include "workloads/transformer-model.h"

namespace hfsim {

namespace {

constexpr double kDefaultPeakTFLOPS = 312.0;  // an A100's dense FP16/BF16 tensor-core peak
constexpr double kDefaultEfficiency = 0.5;

uint64_t ProductOfSizes(const std::vector<Dimension>& dims, const std::vector<uint32_t>& which) {
  uint64_t product = 1;
  for (uint32_t d : which) product *= dims[d].size;
  return product;
}

std::string JoinIndices(const std::vector<uint32_t>& indices) {
  return fmt::format("[{}]", fmt::join(indices, ", "));
}

// A list of distinct, valid dimension indices.
std::vector<uint32_t> ReadDimensionList(const JsonCursor& cursor, size_t dimension_count,
                                        size_t min_count) {
  std::vector<uint32_t> indices;
  std::vector<bool> seen(dimension_count, false);
  for (const JsonCursor& entry : cursor.Elements(min_count, dimension_count)) {
    const auto index = static_cast<uint32_t>(entry.Integer(0, dimension_count - 1));
    if (seen[index]) entry.Fail(fmt::format("dimension {} is listed twice", index));
    seen[index] = true;
    indices.push_back(index);
  }
  return indices;
}

uint64_t ReadSizeBytes(const JsonCursor& section) {
  const bool has_bytes = section.Has("size_bytes");
  const bool has_mib = section.Has("size_MiB");
  if (has_bytes == has_mib) {
    section.Fail(
        "give exactly one of \"size_bytes\" (integer bytes) or \"size_MiB\" (number, "
        "1 MiB = 2^20 bytes)");
  }
  if (has_bytes) return section.Child("size_bytes").Integer(1, ScenarioLimits::kMaxCollectiveBytes);
  const double mib =
      section.Child("size_MiB")
          .Number(0.0, static_cast<double>(ScenarioLimits::kMaxCollectiveBytes >> 20), true);
  const auto bytes = static_cast<uint64_t>(mib * 1048576.0 + 0.5);
  if (bytes == 0) section.Child("size_MiB").Fail("rounds to 0 bytes; accepted: at least 1 byte");
  return bytes;
}

CollectiveWorkload ReadCollective(const JsonCursor& section, const Scenario& scenario) {
  section.ExpectObject({"kind", "size_bytes", "size_MiB", "dimensions"});
  CollectiveWorkload collective;
  collective.kind =
      section.At("kind", QuotedAlternatives(kCollectiveKindNames)).Choice(kCollectiveKindNames);
  collective.size_bytes = ReadSizeBytes(section);
  if (auto dims = section.Find("dimensions")) {
    collective.dimensions = ReadDimensionList(*dims, scenario.dimensions.size(), 1);
  } else {
    collective.dimensions.resize(scenario.dimensions.size());
    std::iota(collective.dimensions.begin(), collective.dimensions.end(), 0);
  }
  return collective;
}

// {"kind": ..., "size_bytes": ...}: a collective the layer states itself (imported traces).
LayerComm ReadLayerComm(const JsonCursor& comm) {
  comm.ExpectObject({"kind", "size_bytes"});
  LayerComm result;
  result.kind =
      comm.At("kind", QuotedAlternatives(kCollectiveKindNames)).Choice(kCollectiveKindNames);
  result.size_bytes =
      comm.At("size_bytes", "an integer number of bytes (the whole unsharded buffer)")
          .Integer(1, ScenarioLimits::kMaxCollectiveBytes);
  return result;
}

// {"experts", "top_k", "params_per_expert", "forward_flops_per_token", "tokens_per_sample",
// "token_elements"}: the layer's routed experts (their parameters are part of its "params").
RoutedExperts ReadRouted(const JsonCursor& routed, const Layer& layer) {
  routed.ExpectObject({"experts", "top_k", "params_per_expert", "forward_flops_per_token",
                       "tokens_per_sample", "token_elements"});
  RoutedExperts result;
  result.experts = static_cast<uint32_t>(
      routed.At("experts", "an integer number of routed experts").Integer(1, 1 << 16));
  const JsonCursor top_k = routed.At("top_k", "how many experts each token goes to");
  result.top_k = static_cast<uint32_t>(top_k.Integer(1, result.experts));
  const JsonCursor per_expert =
      routed.At("params_per_expert", "an integer number of parameters of one expert");
  result.params_per_expert = per_expert.Integer(0, uint64_t{1} << 40);
  if (uint64_t{result.experts} * result.params_per_expert > layer.params) {
    per_expert.Fail(
        fmt::format("{} experts x {} parameters = {}, more than the layer's params "
                    "({}), which include them; accepted: at most {} per expert",
                    result.experts, result.params_per_expert,
                    uint64_t{result.experts} * result.params_per_expert, layer.params,
                    layer.params / result.experts));
  }
  result.forward_flops_per_token =
      routed.At("forward_flops_per_token", "one expert's forward FLOPs for one token")
          .Number(0, 1e15, false);
  result.tokens_per_sample =
      routed.At("tokens_per_sample", "tokens routed per sample").Integer(1, uint64_t{1} << 24);
  result.token_elements =
      routed.At("token_elements", "elements of one token's hidden state").Integer(1, 1 << 24);
  return result;
}

Layer ReadCustomLayer(const JsonCursor& entry) {
  entry.ExpectObject({"name", "params", "forward_flops_per_sample", "output_elements_per_sample",
                      "tensor_parallel_all_reduces", "forward_ns", "input_grad_ns",
                      "weight_grad_ns", "forward_comm", "input_grad_comm", "weight_grad_comm",
                      "routed", "attention_flops_per_sample", "kv_elements_per_sample",
                      "checkpointed"});
  Layer layer;
  layer.name = entry.At("name", "a string").String();
  layer.params =
      entry.At("params", "an integer number of trainable parameters").Integer(0, uint64_t{1} << 50);
  if (auto flops = entry.Find("forward_flops_per_sample"))
    layer.forward_flops_per_sample = flops->Number(0, 1e21, false);
  if (auto elements = entry.Find("output_elements_per_sample"))
    layer.output_elements_per_sample = elements->Integer(0, uint64_t{1} << 40);
  if (auto count = entry.Find("tensor_parallel_all_reduces"))
    layer.tensor_parallel_all_reduces = static_cast<uint32_t>(count->Integer(0, 16));
  if (auto ns = entry.Find("forward_ns")) layer.forward_ns = ns->Number(0, 1e15, false);
  if (auto ns = entry.Find("input_grad_ns")) layer.input_grad_ns = ns->Number(0, 1e15, false);
  if (auto ns = entry.Find("weight_grad_ns")) layer.weight_grad_ns = ns->Number(0, 1e15, false);
  if (auto comm = entry.Find("forward_comm")) layer.forward_comm = ReadLayerComm(*comm);
  if (auto comm = entry.Find("input_grad_comm")) layer.input_grad_comm = ReadLayerComm(*comm);
  if (auto comm = entry.Find("weight_grad_comm")) layer.weight_grad_comm = ReadLayerComm(*comm);
  if (auto routed = entry.Find("routed")) layer.routed = ReadRouted(*routed, layer);
  if (auto flops = entry.Find("attention_flops_per_sample")) {
    layer.attention_flops_per_sample = flops->Number(0, layer.forward_flops_per_sample, false);
  }
  if (auto elements = entry.Find("kv_elements_per_sample")) {
    layer.kv_elements_per_sample = elements->Integer(0, uint64_t{1} << 40);
  }
  if (auto checkpointed = entry.Find("checkpointed")) layer.checkpointed = checkpointed->Bool();
  return layer;
}

// A model given by its hyper-parameters (docs/scenario.md §6.3): built for the sequence length
// the training section gives, which it needs.
void ReadTransformer(const JsonCursor& training, const JsonCursor& model,
                     TrainingWorkload& workload) {
  TransformerSpec spec = ReadTransformerModel(model);
  const JsonCursor length = training.At(
      "sequence_length_tokens",
      "the tokens per sample, which a model given by hyper-parameters needs (1 to 1048576)");
  const uint64_t tokens = length.Integer(1, TransformerLimits::kMaxSequence);
  if (auto problem = CheckSequenceLength(spec, tokens)) length.Fail(*problem);
  workload.sequence_length_tokens = static_cast<uint32_t>(tokens);
  workload.model_name = spec.name;
  workload.model = BuildTransformer(spec, workload.sequence_length_tokens);
  workload.transformer = std::move(spec);
}

void ReadModel(const JsonCursor& training, TrainingWorkload& workload) {
  const JsonCursor model = training.At(
      "model", fmt::format("a zoo model name ({}), an object with \"name\" and \"layers\", "
                           "or {{\"transformer\": {{...}}}} or {{\"hf_config\": \"PATH\"}}",
                           fmt::join(ModelZooNames(), ", ")));
  if (GivesTransformer(model)) {
    ReadTransformer(training, model, workload);
    return;
  }
  if (model.Node().is_string()) {
    workload.model_name = model.String();
    const auto& names = ModelZooNames();
    if (std::find(names.begin(), names.end(), workload.model_name) == names.end()) {
      model.Fail(
          fmt::format("unknown model \"{}\"; accepted: {} (or an object with \"name\" "
                      "and \"layers\" for your own model)",
                      workload.model_name, fmt::join(names, ", ")));
    }
    const uint32_t default_length = ZooDefaultSequenceLength(workload.model_name);
    workload.sequence_length_tokens = default_length;
    if (auto length = training.Find("sequence_length_tokens")) {
      if (default_length == 0) {
        length->Fail(
            fmt::format("\"{}\" is not a sequence model; remove this key", workload.model_name));
      }
      workload.sequence_length_tokens = static_cast<uint32_t>(length->Integer(1, 1 << 20));
    }
    workload.model = *BuildZooModel(workload.model_name, workload.sequence_length_tokens);
    return;
  }
  model.ExpectObject({"name", "layers"});
  workload.custom_model = true;
  workload.model_name = model.At("name", "a string").String();
  workload.model.name = workload.model_name;
  for (const JsonCursor& entry :
       model.At("layers", "an array of layer objects").Elements(1, ScenarioLimits::kMaxLayers)) {
    workload.model.layers.push_back(ReadCustomLayer(entry));
  }
  if (auto length = training.Find("sequence_length_tokens")) {
    length->Fail(
        "applies to zoo models and models given by hyper-parameters only; a custom "
        "model gives its sizes per layer");
  }
}

// parallelism.tensor_per_dimension: per dimension, how many of its NPUs the tensor group holds;
// the data group gets the rest (size / that). A dimension may be split between the two (LIBRA's
// GPT-3 4-D mapping puts 4 of a FullyConnected dimension's 8 NPUs in the tensor group and 2 in
// the data group); ranks are assigned Megatron's way, tensor varying fastest within it.
void ReadTensorSplit(const JsonCursor& split, const std::optional<JsonCursor>& data,
                     const std::optional<JsonCursor>& tensor, const std::vector<Dimension>& dims,
                     TrainingWorkload& workload) {
  uint64_t tensor_degree = 1, data_degree = 1;
  bool splits = false;
  std::vector<uint32_t> per_dimension;
  const auto entries = split.Elements(dims.size(), dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const auto t = static_cast<uint32_t>(entries[d].Integer(1, dims[d].size));
    if (dims[d].size % t != 0) {
      entries[d].Fail(
          fmt::format("got {}, which does not divide dimension {}'s {} NPUs; accepted: "
                      "a divisor of {}",
                      t, d, dims[d].size, dims[d].size));
    }
    per_dimension.push_back(t);
    tensor_degree *= t;
    data_degree *= dims[d].size / t;
    splits |= t != 1 && t != dims[d].size;
    if (t > 1) workload.tensor_dimensions.push_back(static_cast<uint32_t>(d));
    if (dims[d].size / t > 1) workload.data_dimensions.push_back(static_cast<uint32_t>(d));
  }
  if (data && data->Integer(1, UINT32_MAX) != data_degree) {
    data->Fail(fmt::format("got {}, but tensor_per_dimension leaves {} for data parallelism",
                           data->Integer(1, UINT32_MAX), data_degree));
  }
  if (tensor && tensor->Integer(1, UINT32_MAX) != tensor_degree) {
    tensor->Fail(fmt::format("got {}, but tensor_per_dimension makes {}",
                             tensor->Integer(1, UINT32_MAX), tensor_degree));
  }
  if (splits) workload.tensor_per_dimension = per_dimension;
  workload.config.data_parallel = static_cast<uint32_t>(data_degree);
  workload.config.tensor_parallel = static_cast<uint32_t>(tensor_degree);
}

// Fills degrees and dimension lists, defaulting what is missing, and checks they describe the
// whole fabric: data x tensor = NPUs, every dimension used by exactly one kind of parallelism.
void ReadParallelism(const JsonCursor& training, const std::vector<Dimension>& dims,
                     TrainingWorkload& workload) {
  uint64_t npus = 1;
  for (const Dimension& dim : dims) npus *= dim.size;
  const auto section = training.Find("parallelism");
  if (section) {
    section->ExpectObject({"data", "tensor", "data_dimensions", "tensor_dimensions",
                           "tensor_per_dimension", "sequence_parallel", "pipeline", "micro_batches",
                           "pipeline_schedule", "virtual_stages", "zero_stage", "bucket_MiB",
                           "prefetch", "expert", "order", "context", "placement",
                           "pipeline_split"});
    if (ReadPipelineParallelism(*section, dims, workload)) return;
  }
  auto find = [&](std::string_view key) {
    return section ? section->Find(key) : std::optional<JsonCursor>{};
  };
  const auto data = find("data");
  const auto tensor = find("tensor");
  if (const auto split = find("tensor_per_dimension")) {
    if (find("data_dimensions") || find("tensor_dimensions")) {
      split->Fail(
          "give either tensor_per_dimension (NPUs of each dimension in the tensor group) "
          "or data_dimensions / tensor_dimensions (whole dimensions), not both");
    }
    ReadTensorSplit(*split, data, tensor, dims, workload);
    return;
  }
  const auto data_dims = find("data_dimensions");
  const auto tensor_dims = find("tensor_dimensions");
  if (tensor_dims) workload.tensor_dimensions = ReadDimensionList(*tensor_dims, dims.size(), 0);
  if (data_dims) workload.data_dimensions = ReadDimensionList(*data_dims, dims.size(), 0);
  for (uint32_t d : workload.data_dimensions) {
    const auto& tensor_list = workload.tensor_dimensions;
    if (std::find(tensor_list.begin(), tensor_list.end(), d) != tensor_list.end()) {
      data_dims->Fail(
          fmt::format("dimension {} is also in tensor_dimensions; each dimension "
                      "carries one kind of parallelism",
                      d));
    }
  }

  uint64_t data_degree = data ? data->Integer(1, npus) : 0;
  uint64_t tensor_degree = tensor ? tensor->Integer(1, npus) : 0;
  // Missing degrees follow from the dimension lists when given, else from the other degree.
  if (!tensor && tensor_dims) tensor_degree = ProductOfSizes(dims, workload.tensor_dimensions);
  if (!data && data_dims) data_degree = ProductOfSizes(dims, workload.data_dimensions);
  if (tensor_degree == 0 && data_degree == 0) tensor_degree = 1;
  if (tensor_degree == 0) {
    if (npus % data_degree != 0) {
      data->Fail(
          fmt::format("got {}, which does not divide the fabric's {} NPUs", data_degree, npus));
    }
    tensor_degree = npus / data_degree;
  }
  if (data_degree == 0) {
    if (npus % tensor_degree != 0) {
      tensor->Fail(
          fmt::format("got {}, which does not divide the fabric's {} NPUs", tensor_degree, npus));
    }
    data_degree = npus / tensor_degree;
  }
  const std::string where = training.Path() + ".parallelism";
  if (data_degree * tensor_degree != npus) {
    throw JsonPathError(
        where, fmt::format("data ({}) x tensor ({}) = {}, but the fabric has {} "
                           "NPUs; accepted: degrees whose product is {}",
                           data_degree, tensor_degree, data_degree * tensor_degree, npus, npus));
  }
  // Dimension lists: given, derived from the other list, or tensor on the leading dimensions.
  std::vector<bool> used(dims.size(), false);
  auto complement = [&](const std::vector<uint32_t>& taken) {
    std::vector<bool> in(dims.size(), false);
    for (uint32_t d : taken) in[d] = true;
    std::vector<uint32_t> rest;
    for (uint32_t d = 0; d < dims.size(); ++d) {
      if (!in[d]) rest.push_back(d);
    }
    return rest;
  };
  if (!tensor_dims && !data_dims) {
    uint64_t product = 1;
    for (uint32_t d = 0; d < dims.size() && product < tensor_degree; ++d) {
      workload.tensor_dimensions.push_back(d);
      product *= dims[d].size;
    }
    if (product != tensor_degree) {
      throw JsonPathError(
          where,
          fmt::format("tensor degree {} is not the product of the leading dimensions' sizes; give "
                      "\"tensor_dimensions\" and \"data_dimensions\" (lists of dimension indices) "
                      "explicitly",
                      tensor_degree));
    }
    workload.data_dimensions = complement(workload.tensor_dimensions);
  } else if (!data_dims) {
    workload.data_dimensions = complement(workload.tensor_dimensions);
  } else if (!tensor_dims) {
    workload.tensor_dimensions = complement(workload.data_dimensions);
  }
  for (uint32_t d : workload.tensor_dimensions) used[d] = true;
  for (uint32_t d : workload.data_dimensions) used[d] = true;
  for (uint32_t d = 0; d < dims.size(); ++d) {
    if (!used[d]) {
      throw JsonPathError(where, fmt::format("dimension {} is in neither data_dimensions {} nor "
                                             "tensor_dimensions {}; every dimension must carry one",
                                             d, JoinIndices(workload.data_dimensions),
                                             JoinIndices(workload.tensor_dimensions)));
    }
  }
  if (ProductOfSizes(dims, workload.tensor_dimensions) != tensor_degree) {
    throw JsonPathError(
        where + ".tensor_dimensions",
        fmt::format("dimensions {} hold {} NPUs, but tensor is {}",
                    JoinIndices(workload.tensor_dimensions),
                    ProductOfSizes(dims, workload.tensor_dimensions), tensor_degree));
  }
  if (ProductOfSizes(dims, workload.data_dimensions) != data_degree) {
    throw JsonPathError(where + ".data_dimensions",
                        fmt::format("dimensions {} hold {} NPUs, but data is {}",
                                    JoinIndices(workload.data_dimensions),
                                    ProductOfSizes(dims, workload.data_dimensions), data_degree));
  }
  workload.config.data_parallel = static_cast<uint32_t>(data_degree);
  workload.config.tensor_parallel = static_cast<uint32_t>(tensor_degree);
}

// Tensor parallelism splits attention heads (and grouped key/value heads) among its ranks.
void CheckHeads(const JsonCursor& section, const TrainingWorkload& workload) {
  const uint32_t tensor = workload.config.tensor_parallel;
  const Model& model = workload.model;
  for (const uint32_t heads : {model.attention_heads, model.kv_heads}) {
    if (heads == 0 || heads % tensor == 0) continue;
    const auto parallelism = section.Find("parallelism");
    const auto given = parallelism ? parallelism->Find("tensor") : std::nullopt;
    const std::string where = given ? given->Path() : section.Path() + ".parallelism";
    throw JsonPathError(
        where, fmt::format("tensor {} does not divide model \"{}\"'s {} {} heads; accepted: a "
                           "divisor of {}",
                           tensor, workload.model_name, heads,
                           heads == model.attention_heads ? "attention" : "key/value",
                           std::gcd(model.attention_heads, model.kv_heads)));
  }
}

// Buffers derived from the batch (a layer's activation, its token exchange) must stay within
// what hfsim prices, and within 64 bits, before any is computed.
void CheckDerivedSizes(const JsonCursor& batch, const TrainingWorkload& workload) {
  const TrainingConfig& config = workload.config;
  const uint64_t samples = config.global_batch_samples / config.data_parallel;
  for (const Layer& layer : workload.model.layers) {
    double bytes = static_cast<double>(samples) *
                   static_cast<double>(layer.output_elements_per_sample) *
                   config.activation_bytes_per_element;
    if (layer.routed) bytes = std::max(bytes, ExpertExchangeBytes(*layer.routed, config, samples));
    // Ring attention passes the keys and values round (training-loop.cc, context_kv_bytes).
    if (config.context_parallel > 1) {
      bytes = std::max(bytes, static_cast<double>(samples) *
                                  static_cast<double>(layer.kv_elements_per_sample) *
                                  config.activation_bytes_per_element);
    }
    if (bytes > static_cast<double>(ScenarioLimits::kMaxCollectiveBytes)) {
      batch.Fail(
          fmt::format("layer \"{}\" would exchange {:.3g} bytes per replica, above the "
                      "2^50 hfsim prices; accepted: a smaller batch",
                      layer.name, bytes));
    }
  }
}

// The job must fit the NPU's memory, if the scenario gives its capacity.
void CheckMemoryFits(const TrainingWorkload& workload) {
  if (workload.hbm_GiB == 0.0 || workload.allow_memory_overflow) return;
  const RankMemory& m = workload.memory;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (m.TotalBytes() <= workload.hbm_GiB * kGiB) return;
  throw JsonPathError(
      "npu.hbm_GiB",
      fmt::format("rank {} (pipeline stage {}) needs {:.2f} GiB: weights {:.2f}, gradients {:.2f}, "
                  "optimizer states {:.2f}, activations {:.2f}, buffers {:.2f}; the NPU has "
                  "{} GiB. Accepted: a job that fits (more tensor or pipeline parallelism, a "
                  "higher zero_stage, recomputation, smaller micro-batches), or "
                  "\"allow_memory_overflow\": true",
                  m.rank, m.stage, m.TotalBytes() / kGiB, m.weights_bytes / kGiB,
                  m.gradients_bytes / kGiB, m.optimizer_bytes / kGiB, m.activations_bytes / kGiB,
                  m.buffers_bytes / kGiB, workload.hbm_GiB));
}

// workload.training.precision and .attention, and with npu.device what they make of it: the
// device's peak at the training precision (unless npu.peak_TFLOPS is given) and, without
// npu.compute_efficiency, the kernel-level compute model, built from the preset with the
// explicit npu keys overriding its peak and bandwidth. A precision the device cannot run is
// refused with the compute model's reason, at the precision's path.
void ReadPrecision(const JsonCursor& section, TrainingWorkload& workload) {
  static constexpr std::array<Precision, 3> kPrecisions = {Precision::kBf16, Precision::kFp16,
                                                           Precision::kFp8};
  const auto precision = section.Find("precision");
  if (precision) {
    workload.precision = kPrecisions[precision->Choice({"bf16", "fp16", "fp8"})];
  }
  if (const auto attention = section.Find("attention")) {
    workload.attention = attention->Choice({"flash", "unfused"}) == 0 ? AttentionImpl::kFused
                                                                      : AttentionImpl::kUnfused;
  }
  // What the memory estimate keeps (docs/memory.md): FP8 inputs and weight copies of the
  // linear layers, the unfused core's scores, and with a precision given Megatron's FP32 main
  // gradients (megatron/training/arguments.py: bf16 sets accumulate_allreduce_grads_in_fp32).
  TrainingConfig& config = workload.config;
  config.fp8_linear_layers = workload.TrainingPrecision() == Precision::kFp8;
  // A device without a fused attention kernel (the V100) runs the core unfused whatever is
  // asked (compute-model.cc), and so keeps its scores.
  config.attention_keeps_scores =
      workload.attention == AttentionImpl::kUnfused ||
      (workload.device != nullptr && workload.device->attention.table == nullptr);
  // (FP16 keeps 16-bit gradients: accumulate_allreduce_grads_in_fp32 is off by default.)
  if (precision && workload.TrainingPrecision() != Precision::kFp16 &&
      !section.Has("gradient_bytes_per_param")) {
    config.gradient_buffer_bytes_per_param = 4;
  }
  if (workload.device == nullptr) return;
  const Precision training = workload.TrainingPrecision();
  DeviceSpec device = *workload.device;
  if (workload.peak_TFLOPS_given) {
    device.peak_TFLOPS[Index(training)] = workload.peak_TFLOPS;
  }
  device.hbm_GBps = workload.config.memory_bytes_per_ns;
  auto made =
      ComputeModel::Create(device, training, workload.attention.value_or(AttentionImpl::kFused));
  if (const auto* reason = std::get_if<std::string>(&made)) {
    const std::string message =
        fmt::format("{} (npu.device \"{}\"); accepted: a precision the device runs", *reason,
                    workload.device->name);
    if (precision) precision->Fail(message);
    throw JsonPathError(section.Path() + ".precision",
                        "the default \"bf16\" cannot run: " + message);
  }
  if (!workload.peak_TFLOPS_given) {
    workload.peak_TFLOPS = workload.device->peak_TFLOPS[Index(training)];
    workload.config.peak_flops_per_ns = workload.peak_TFLOPS * 1e3;
  }
  if (!workload.compute_efficiency_given) {
    // Layers without operation shapes keep the roofline, at the device's peak and bandwidth.
    workload.config.compute_efficiency = 1.0;
    workload.config.kernel_model =
        std::make_shared<const ComputeModel>(std::get<ComputeModel>(std::move(made)));
  }
}

// workload.training.overlap: "none" or "backward" (gradients only; what they always meant), or
// an object of switches whose missing keys take Megatron-Core's defaults (docs/scenario.md §9):
// all off, but pipeline sends overlapped under the interleaved schedule (megatron/training/
// arguments.py: --no-overlap-p2p-communication is store_false, and validate_args turns it off
// without virtual pipeline stages).
void ReadOverlap(const JsonCursor& section, TrainingWorkload& workload) {
  const auto overlap = section.Find("overlap");
  if (!overlap) return;
  TrainingConfig& config = workload.config;
  if (!overlap->Node().is_object()) {
    if (!overlap->Node().is_string()) {
      overlap->Fail(fmt::format(
          "got {}; accepted: \"none\", \"backward\", or an object of booleans with keys {}",
          overlap->Shown(), fmt::join(kOverlapKeys, ", ")));
    }
    config.overlap = overlap->Choice(kOverlapModeNames);
    return;
  }
  overlap->ExpectObject(kOverlapKeys);
  auto flag = [&](std::string_view key, bool megatron_default) {
    const auto given = overlap->Find(key);
    return given ? given->Bool() : megatron_default;
  };
  OverlapOptions& options = config.overlap_options;
  options.object_form = true;
  config.overlap = flag("gradients", false) ? OverlapMode::kBackward : OverlapMode::kNone;
  options.parameter_gather = flag("parameter_gather", false);
  options.tensor_parallel = flag("tensor_parallel", false);
  options.pipeline_sends =
      flag("pipeline_sends", workload.pipeline.schedule == PipelineSchedule::kInterleaved);
  options.expert_all_to_all = flag("expert_all_to_all", false);
}

// workload.training.bf16_layers: Megatron-LM's first_last_layers_bf16 (transformer_config.py:
// num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16, each at most the layers of one
// pipeline stage), for an FP8 job of a transformer whose layers hfsim builds.
void ReadBf16Layers(const JsonCursor& section, TrainingWorkload& workload) {
  const auto given = section.Find("bf16_layers");
  if (!given) return;
  if (workload.TrainingPrecision() != Precision::kFp8) {
    given->Fail(fmt::format("keeps layers in BF16 under FP8, but the job trains in {}; accepted: "
                            "only with \"precision\": \"fp8\"",
                            ToString(workload.TrainingPrecision())));
  }
  if (!workload.config.kernel_model) {
    given->Fail(
        "keeps layers' GEMMs in BF16, which only the kernel-level compute model prices (the "
        "single efficiency runs every layer at one rate); accepted: with \"npu\": {\"device\": "
        "...} and no \"compute_efficiency\"");
  }
  // The transformers hfsim builds mark their blocks (BuildTransformer); layer lists and CNNs
  // do not.
  const uint32_t blocks = workload.model.blocks;
  if (blocks == 0) {
    given->Fail(fmt::format("model \"{}\" is not a transformer hfsim builds; accepted: only for "
                            "a zoo transformer, {{\"transformer\": ...}} or {{\"hf_config\": ...}}",
                            workload.model_name));
  }
  given->ExpectObject({"first", "last"});
  const uint32_t stages = workload.pipeline.pipeline;
  const uint32_t most = blocks / stages;
  const std::string limit =
      stages > 1 ? fmt::format("0 to {} (the {} layers over {} pipeline stages, as Megatron-LM "
                               "allows at most one stage's layers)",
                               most, blocks, stages)
                 : fmt::format("0 to {} (the model's layers)", most);
  TrainingWorkload::Bf16Layers layers;
  for (const auto& [key, slot] : {std::pair{"first", &layers.first}, {"last", &layers.last}}) {
    if (const auto count = given->Find(key)) {
      const uint64_t n = count->Integer(0, uint64_t{1} << 20);
      if (n > most) count->Fail(fmt::format("got {}; accepted: {}", n, limit));
      *slot = static_cast<uint32_t>(n);
    } else {
      // Megatron's default for either count, under the same limit.
      if (most < 1) {
        given->Fail(fmt::format("\"{}\" defaults to 1; accepted: {}, so give it as 0", key, limit));
      }
      *slot = 1;
    }
  }
  KeepEndLayersInHighPrecision(layers.first, layers.last, workload.model);
  workload.bf16_layers = layers;
}

TrainingWorkload ReadTraining(const JsonCursor& section, const Scenario& scenario,
                              TrainingWorkload workload) {
  section.ExpectObject({"model", "sequence_length_tokens", "global_batch_samples", "parallelism",
                        "gradient_bytes_per_param", "parameter_bytes_per_param",
                        "optimizer_bytes_per_param", "activation_bytes_per_element", "overlap",
                        "routing", "recompute", "flop_convention", "precision", "attention",
                        "bf16_layers"});
  ReadModel(section, workload);
  ReadParallelism(section, scenario.dimensions, workload);
  TrainingConfig& config = workload.config;
  if (const auto parallelism = section.Find("parallelism")) {
    if (const auto sequence = parallelism->Find("sequence_parallel")) {
      config.sequence_parallel = sequence->Bool();
      if (config.sequence_parallel && config.tensor_parallel == 1) {
        sequence->Fail(
            "sequence parallelism splits the tensor-parallel all-reduces; it needs "
            "\"tensor\" above 1");
      }
    }
  }
  const JsonCursor batch = section.At(
      "global_batch_samples", "an integer number of samples per iteration over all replicas");
  config.global_batch_samples = batch.Integer(1, uint64_t{1} << 40);
  if (config.global_batch_samples % config.data_parallel != 0) {
    batch.Fail(
        fmt::format("got {}, which does not split evenly over {} data-parallel replicas; "
                    "accepted: a multiple of {}",
                    config.global_batch_samples, config.data_parallel, config.data_parallel));
  }
  if (workload.MegatronLayout()) CheckPipelineBatch(batch, workload);
  if (auto bytes = section.Find("gradient_bytes_per_param")) {
    config.gradient_bytes_per_param = static_cast<uint32_t>(bytes->Integer(1, 16));
  }
  if (auto bytes = section.Find("activation_bytes_per_element")) {
    config.activation_bytes_per_element = static_cast<uint32_t>(bytes->Integer(1, 16));
  }
  ReadOverlap(section, workload);
  ReadSharding(section, workload);
  ReadRouting(section, workload);
  if (auto bytes = section.Find("optimizer_bytes_per_param")) {
    config.optimizer_bytes_per_param = static_cast<uint32_t>(bytes->Integer(0, 64));
  }
  if (auto recompute = section.Find("recompute")) {
    config.recompute = recompute->Choice(kRecomputeNames);
  }
  if (auto convention = section.Find("flop_convention")) {
    workload.flop_convention = static_cast<FlopConvention>(convention->Choice(
        std::vector<std::string_view>(kFlopConventionNames.begin(), kFlopConventionNames.end())));
  }
  ReadPrecision(section, workload);
  ReadBf16Layers(section, workload);
  // Combined 1F1B's requirements, once the layout, experts and recomputation are known.
  if (auto reason = ExpertOverlapRefusal(config, workload.pipeline)) {
    throw JsonPathError(section.Path() + ".overlap.expert_all_to_all", *reason);
  }
  CheckHeads(section, workload);
  CheckDerivedSizes(batch, workload);
  workload.memory = EstimateMemory(workload.model, config, workload.pipeline);
  CheckMemoryFits(workload);
  if (config.tensor_parallel > 1) {
    const bool any = std::any_of(workload.model.layers.begin(), workload.model.layers.end(),
                                 [](const Layer& l) { return l.HasTensorComm(); });
    if (!any) {
      throw JsonPathError(
          section.Path() + ".parallelism.tensor",
          fmt::format("model \"{}\" has no tensor-parallel layers, so tensor {} "
                      "would split nothing; accepted: 1 for this model (or layers with "
                      "\"forward_comm\"/\"input_grad_comm\")",
                      workload.model_name, config.tensor_parallel));
    }
  }
  return workload;
}

}  // namespace

void ReadNpuSection(const JsonCursor* npu, Scenario& scenario) {
  TrainingWorkload& training = scenario.training;
  training.peak_TFLOPS = kDefaultPeakTFLOPS;
  training.config.compute_efficiency = kDefaultEfficiency;
  if (npu != nullptr) {
    npu->ExpectObject({"device", "peak_TFLOPS", "compute_efficiency", "hbm_GiB",
                       "allow_memory_overflow", "hbm_bandwidth_GBps"});
    // A preset sets what the explicit keys below do not (docs/devices.md); the peak is its
    // rate at the training precision, settled when the workload is read (ReadPrecision).
    if (auto device = npu->Find("device")) {
      const std::string name = device->String();
      training.device = FindDevice(name);
      if (training.device == nullptr) {
        device->Fail(fmt::format("unknown device \"{}\"; accepted: {}", name, DeviceNames()));
      }
      const DeviceSpec& preset = *training.device;
      training.hbm_GiB = preset.hbm_GiB;
      training.config.memory_bytes_per_ns = preset.hbm_GBps;
      training.peak_TFLOPS = preset.peak_TFLOPS[Index(
          preset.Supports(Precision::kBf16) ? Precision::kBf16 : Precision::kFp16)];
    }
    // 1 GB/s = 1 byte/ns. At least 1 GB/s, like the peak's floor, keeps every time in range.
    if (auto bandwidth = npu->Find("hbm_bandwidth_GBps")) {
      training.config.memory_bytes_per_ns = bandwidth->Number(1.0, 1e6, false);
    }
    if (auto hbm = npu->Find("hbm_GiB")) training.hbm_GiB = hbm->Number(0.0, 1e6, true);
    if (auto allow = npu->Find("allow_memory_overflow"))
      training.allow_memory_overflow = allow->Bool();
    if (auto peak = npu->Find("peak_TFLOPS")) {
      training.peak_TFLOPS = peak->Number(ScenarioLimits::kMinPeakTFLOPS, 1e6, false);
      training.peak_TFLOPS_given = true;
    }
    if (auto efficiency = npu->Find("compute_efficiency")) {
      training.config.compute_efficiency =
          efficiency->Number(ScenarioLimits::kMinComputeEfficiency, 1.0, false);
      training.compute_efficiency_given = true;
    }
  }
  training.config.peak_flops_per_ns = training.peak_TFLOPS * 1e3;  // 1 TFLOP/s = 1e3 FLOP/ns
}

void ReadWorkloadSection(const JsonCursor& workload, Scenario& scenario) {
  workload.ExpectObject({"training", "collective", "parameter_server", "gossip", "graph"});
  const bool training = workload.Has("training");
  const bool parameter_server = workload.Has("parameter_server");
  const bool gossip = workload.Has("gossip");
  const bool graph = workload.Has("graph");
  if (int{training} + int{workload.Has("collective")} + int{parameter_server} + int{gossip} +
          int{graph} !=
      1) {
    workload.Fail(
        "give exactly one of \"training\" (a model trained with data/tensor "
        "parallelism), \"collective\" (one collective operation), "
        "\"parameter_server\" (PS-lite pushes and pulls, docs/parameter-server.md), "
        "\"gossip\" (decentralised SGD with gossip exchanges, docs/learning.md) or "
        "\"graph\" (an execution graph written out, docs/graph.md)");
  }
  // Parameter-server and gossip traffic is priced transfer by transfer on the fabric's routes
  // (sim/analytical/transfer-phase.h), which have no ECMP spread: on a kind that routes by ECMP
  // (a Clos) every message would take one spine. Refused until they spread as collectives do.
  if (gossip || parameter_server) {
    for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
      const DimensionKind kind = scenario.dimensions[d].kind;
      if (!KindEntry(kind).ecmp) continue;
      workload.Child(gossip ? "gossip" : "parameter_server")
          .Fail(fmt::format("runs on a fabric with {} dimension {}, where its messages are not "
                            "spread over the spines yet; accepted on a {}: \"training\", "
                            "\"collective\" or \"graph\" workloads",
                            ToString(kind), d, ToString(kind)));
    }
  }
  if (graph) {
    scenario.workload_kind = WorkloadKind::kGraph;
    scenario.graph = ReadGraphSection(workload.Child("graph"), scenario);
  } else if (gossip) {
    scenario.workload_kind = WorkloadKind::kGossip;
    scenario.gossip = ReadGossipSection(workload.Child("gossip"), scenario);
  } else if (parameter_server) {
    scenario.workload_kind = WorkloadKind::kParameterServer;
    const JsonCursor section = workload.Child("parameter_server");
    scenario.parameter_server = ReadParameterServerSection(section, scenario);
    if (auto c = section.Find("convergence"))
      scenario.convergence = ReadConvergenceSection(*c, scenario);
  } else if (training) {
    scenario.workload_kind = WorkloadKind::kTraining;
    scenario.training = ReadTraining(workload.Child("training"), scenario, scenario.training);
  } else {
    scenario.workload_kind = WorkloadKind::kCollective;
    scenario.collective = ReadCollective(workload.Child("collective"), scenario);
  }
}

nlohmann::json NpuSectionToJson(const Scenario& scenario) {
  const TrainingWorkload& t = scenario.training;
  nlohmann::json npu = {{"peak_TFLOPS", t.peak_TFLOPS}};
  // With a device, an efficiency echoed that was not given would turn its kernel-level compute
  // model into the single-efficiency one when the echo is read back.
  if (t.device == nullptr || t.compute_efficiency_given) {
    npu["compute_efficiency"] = t.config.compute_efficiency;
  }
  if (t.device != nullptr) npu["device"] = t.device->name;
  if (scenario.training.hbm_GiB > 0.0) npu["hbm_GiB"] = scenario.training.hbm_GiB;
  if (scenario.training.config.memory_bytes_per_ns > 0.0) {
    npu["hbm_bandwidth_GBps"] = scenario.training.config.memory_bytes_per_ns;
  }
  if (scenario.training.allow_memory_overflow) npu["allow_memory_overflow"] = true;
  return npu;
}

nlohmann::json WorkloadSectionToJson(const Scenario& scenario) {
  if (scenario.workload_kind == WorkloadKind::kParameterServer) {
    nlohmann::json out = ParameterServerSectionToJson(scenario.parameter_server);
    if (scenario.convergence)
      out["parameter_server"]["convergence"] = ConvergenceToJson(*scenario.convergence);
    return out;
  }
  if (scenario.workload_kind == WorkloadKind::kGossip) return GossipSectionToJson(scenario.gossip);
  if (scenario.workload_kind == WorkloadKind::kGraph) return GraphSectionToJson(scenario.graph);
  if (scenario.workload_kind == WorkloadKind::kCollective) {
    const CollectiveWorkload& c = scenario.collective;
    return {
        {"collective",
         {{"kind", ToString(c.kind)}, {"size_bytes", c.size_bytes}, {"dimensions", c.dimensions}}}};
  }
  const TrainingWorkload& t = scenario.training;
  nlohmann::json training;
  if (t.custom_model) {
    nlohmann::json layers = nlohmann::json::array();
    for (const Layer& layer : t.model.layers) {
      nlohmann::json entry = {{"name", layer.name},
                              {"params", layer.params},
                              {"forward_flops_per_sample", layer.forward_flops_per_sample},
                              {"output_elements_per_sample", layer.output_elements_per_sample},
                              {"tensor_parallel_all_reduces", layer.tensor_parallel_all_reduces}};
      if (layer.forward_ns) entry["forward_ns"] = *layer.forward_ns;
      if (layer.input_grad_ns) entry["input_grad_ns"] = *layer.input_grad_ns;
      if (layer.weight_grad_ns) entry["weight_grad_ns"] = *layer.weight_grad_ns;
      auto comm_json = [](const LayerComm& comm) {
        return nlohmann::json{{"kind", ToString(comm.kind)}, {"size_bytes", comm.size_bytes}};
      };
      if (layer.forward_comm) entry["forward_comm"] = comm_json(*layer.forward_comm);
      if (layer.input_grad_comm) entry["input_grad_comm"] = comm_json(*layer.input_grad_comm);
      if (layer.weight_grad_comm) entry["weight_grad_comm"] = comm_json(*layer.weight_grad_comm);
      if (layer.attention_flops_per_sample > 0) {
        entry["attention_flops_per_sample"] = layer.attention_flops_per_sample;
      }
      if (layer.kv_elements_per_sample > 0) {
        entry["kv_elements_per_sample"] = layer.kv_elements_per_sample;
      }
      if (!layer.checkpointed) entry["checkpointed"] = false;
      if (layer.routed) {
        const RoutedExperts& r = *layer.routed;
        entry["routed"] = {{"experts", r.experts},
                           {"top_k", r.top_k},
                           {"params_per_expert", r.params_per_expert},
                           {"forward_flops_per_token", r.forward_flops_per_token},
                           {"tokens_per_sample", r.tokens_per_sample},
                           {"token_elements", r.token_elements}};
      }
      layers.push_back(entry);
    }
    training["model"] = {{"name", t.model_name}, {"layers", layers}};
  } else if (t.transformer) {
    training["model"] = {{"transformer", TransformerSpecToJson(*t.transformer)}};
    training["sequence_length_tokens"] = t.sequence_length_tokens;
  } else {
    training["model"] = t.model_name;
    if (t.sequence_length_tokens > 0) training["sequence_length_tokens"] = t.sequence_length_tokens;
  }
  training["global_batch_samples"] = t.config.global_batch_samples;
  training["parallelism"] = {{"data", t.config.data_parallel},
                             {"tensor", t.config.tensor_parallel}};
  if (t.config.sequence_parallel) training["parallelism"]["sequence_parallel"] = true;
  if (t.MegatronLayout()) {
    PipelineToJson(t, training["parallelism"]);
    if (t.capacity_factor > 0.0) training["routing"]["capacity_factor"] = t.capacity_factor;
    if (t.expert_skew > 0.0) training["routing"]["skew"] = t.expert_skew;
  } else if (t.tensor_per_dimension.empty()) {
    training["parallelism"]["data_dimensions"] = t.data_dimensions;
    training["parallelism"]["tensor_dimensions"] = t.tensor_dimensions;
  } else {
    training["parallelism"]["tensor_per_dimension"] = t.tensor_per_dimension;
  }
  training["gradient_bytes_per_param"] = t.config.gradient_bytes_per_param;
  training["activation_bytes_per_element"] = t.config.activation_bytes_per_element;
  if (t.config.overlap_options.object_form) {
    const auto on = OverlapSwitches(t.config.overlap, t.config.overlap_options);
    nlohmann::json& overlap = training["overlap"] = nlohmann::json::object();
    for (size_t i = 0; i < kOverlapKeys.size(); ++i) overlap[std::string(kOverlapKeys[i])] = on[i];
  } else {
    training["overlap"] = ToString(t.config.overlap);
  }
  if (t.config.recompute != Recompute::kNone) {
    training["recompute"] = ToString(t.config.recompute);
  }
  if (t.config.optimizer_bytes_per_param != TrainingConfig{}.optimizer_bytes_per_param) {
    training["optimizer_bytes_per_param"] = t.config.optimizer_bytes_per_param;
  }
  ShardingToJson(t.config, training);
  // Written only when not the default, so the echoes of earlier reports stay as they were.
  if (t.flop_convention != TrainingWorkload{}.flop_convention) {
    training["flop_convention"] = ToString(t.flop_convention);
  }
  if (t.precision) training["precision"] = ToString(*t.precision);
  if (t.attention)
    training["attention"] = *t.attention == AttentionImpl::kFused ? "flash" : "unfused";
  if (t.bf16_layers) {
    training["bf16_layers"] = {{"first", t.bf16_layers->first}, {"last", t.bf16_layers->last}};
  }
  return {{"training", training}};
}

}  // namespace hfsim
