#include "sim/scenario/pipeline-section.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "workloads/graph/pipeline-rules.h"
#include "workloads/graph/pipeline-split.h"

namespace hfsim {

namespace {

// parallelism.expert: how many ranks of each data group share out the routed experts.
void ReadExpertDegree(const JsonCursor& expert, TrainingWorkload& workload) {
  const uint32_t data = workload.config.data_parallel;
  const auto degree = static_cast<uint32_t>(expert.Integer(1, data));
  if (data % degree != 0) {
    expert.Fail(fmt::format("got {}, which does not divide data ({}): expert groups are carved "
                            "out of the data group; accepted: a divisor of {}",
                            degree, data, data));
  }
  bool any = false;
  for (const Layer& layer : workload.model.layers) {
    if (!layer.routed) continue;
    any = true;
    if (layer.routed->experts % degree != 0) {
      expert.Fail(fmt::format("got {}, which does not divide layer \"{}\"'s {} experts; "
                              "accepted: a divisor of every layer's expert count",
                              degree, layer.name, layer.routed->experts));
    }
  }
  if (!any && degree > 1) {
    expert.Fail(fmt::format("model \"{}\" has no mixture-of-experts layers, so expert {} "
                            "would spread nothing; accepted: 1 for this model",
                            workload.model_name, degree));
  }
  workload.config.expert_parallel = degree;
}

// parallelism.context: how many ranks share each sequence's tokens (ring attention). Checked
// against the model once it is known: it needs attention layers (keys and values to pass
// round), and a zoo sequence that cuts into 2 C pieces (Megatron balances the causal mask by
// giving rank c pieces c and 2 C - 1 - c).
void ReadContextDegree(const JsonCursor& context, TrainingWorkload& workload) {
  const auto degree = static_cast<uint32_t>(context.Integer(1, 1 << 16));
  if (degree == 1) return;
  const auto& layers = workload.model.layers;
  if (std::none_of(layers.begin(), layers.end(),
                   [](const Layer& l) { return l.kv_elements_per_sample > 0; })) {
    context.Fail(fmt::format("model \"{}\" has no attention layers (none states "
                             "kv_elements_per_sample), so context {} would pass nothing round; "
                             "accepted: 1 for this model",
                             workload.model_name, degree));
  }
  if (auto reason = RingAttentionRefusal(workload.model, degree)) context.Fail(*reason);
  const uint32_t seq = workload.sequence_length_tokens;
  if (!workload.custom_model && seq % (2 * degree) != 0) {
    context.Fail(fmt::format("got {}; a sequence of {} tokens does not cut into 2 x {} equal "
                             "pieces (two per rank, balancing the causal mask); accepted: a "
                             "context degree whose double divides {}",
                             degree, seq, degree, seq));
  }
  if (auto reason = ContextWithExpertsRefusal(degree, workload.config.expert_parallel)) {
    context.Fail(*reason);
  }
  workload.config.context_parallel = degree;
}

// parallelism.order: the parallel dimensions, fastest-varying first; those left out must have
// degree 1 and go last.
void ReadOrder(const JsonCursor& order, TrainingWorkload& workload) {
  const std::array<uint32_t, kParallelAxes> degrees =
      AxisDegrees(workload.config, workload.pipeline);
  std::array<bool, kParallelAxes> listed{};
  std::vector<ParallelAxis> given;
  for (const JsonCursor& entry : order.Elements(1, kParallelAxes)) {
    const ParallelAxis axis = entry.Choice(kParallelAxisNames);
    if (listed[static_cast<size_t>(axis)]) {
      entry.Fail(fmt::format("\"{}\" is listed twice; each parallel dimension once",
                             ToString(axis)));
    }
    listed[static_cast<size_t>(axis)] = true;
    given.push_back(axis);
  }
  for (const ParallelAxis axis : kMegatronOrder) {
    if (listed[static_cast<size_t>(axis)]) continue;
    if (degrees[static_cast<size_t>(axis)] > 1) {
      order.Fail(fmt::format("leaves out \"{}\", whose degree is {}; accepted: a list naming "
                             "every parallel dimension above 1 ({}), fastest-varying first",
                             ToString(axis), degrees[static_cast<size_t>(axis)],
                             fmt::join(NamesOf(kParallelAxisNames), ", ")));
    }
    given.push_back(axis);
  }
  std::copy(given.begin(), given.end(), workload.pipeline.order.begin());
}

// parallelism.placement: the NPU of every rank id, each NPU once (PlacementRefusal).
void ReadPlacement(const JsonCursor& placement, uint64_t npus, TrainingWorkload& workload) {
  std::vector<uint32_t>& npu_of = workload.pipeline.placement;
  const std::vector<JsonCursor> entries = placement.Elements(npus, npus);
  for (const JsonCursor& entry : entries) {
    npu_of.push_back(static_cast<uint32_t>(entry.Integer(0, npus - 1)));
  }
  if (auto problem = PlacementRefusal(npu_of, npus)) {
    (problem->rank < entries.size() ? entries[problem->rank] : placement).Fail(problem->message);
  }
}

// The keys of parallelism.pipeline_split's object form (Megatron's options).
constexpr std::array<std::string_view, 5> kSplitKeys = {
    "rule", "account_for_embedding", "account_for_loss", "first_stage_blocks",
    "last_stage_blocks"};

// parallelism.pipeline_split: "balanced" (the default), "megatron", Megatron's rule with its
// options as an object, or the blocks of each chunk as a list (workloads/graph/pipeline-split.h).
// Read once the stages, the virtual stages and the model are known; each rule's problem is
// named at the key that breaks it.
void ReadPipelineSplit(const JsonCursor& given, TrainingWorkload& workload) {
  PipelineSplit& split = workload.pipeline.split;
  const uint32_t blocks = SplitBlocks(workload.model);
  std::vector<JsonCursor> entries;
  if (given.Node().is_array()) {
    split.rule = PipelineSplitRule::kExplicit;
    entries = given.Elements(1, 1 << 20);
    for (const JsonCursor& entry : entries) {
      split.blocks_per_chunk.push_back(static_cast<uint32_t>(entry.Integer(0, blocks)));
    }
  } else if (given.Node().is_object()) {
    given.ExpectObject(kSplitKeys);
    given.At("rule", "\"megatron\" (the rule the options apply to)")
        .Choice(std::vector<std::string_view>{"megatron"});
    split.rule = PipelineSplitRule::kMegatron;
    if (const auto e = given.Find("account_for_embedding")) split.account_for_embedding = e->Bool();
    if (const auto l = given.Find("account_for_loss")) split.account_for_loss = l->Bool();
    if (const auto first = given.Find("first_stage_blocks")) {
      split.first_stage_blocks = static_cast<uint32_t>(first->Integer(0, blocks));
    }
    if (const auto last = given.Find("last_stage_blocks")) {
      split.last_stage_blocks = static_cast<uint32_t>(last->Integer(0, blocks));
    }
  } else if (given.Node().is_string()) {
    split.rule = given.Choice(kPipelineSplitRuleNames);
  } else {
    given.Fail(fmt::format(
        "got {}; accepted: \"balanced\", \"megatron\", an object with \"rule\": \"megatron\" "
        "and its options (account_for_embedding, account_for_loss, first_stage_blocks, "
        "last_stage_blocks), or a list of transformer blocks per chunk",
        given.Shown()));
  }
  if (split.rule == PipelineSplitRule::kBalanced) return;
  auto problem = BlocksPerChunk(workload.model, workload.pipeline);
  const auto* found = std::get_if<SplitProblem>(&problem);
  if (!found) return;
  switch (found->key) {
    case SplitKey::kSplit:
      given.Fail(found->message);
    case SplitKey::kEmbedding:
      given.Child("account_for_embedding").Fail(found->message);
    case SplitKey::kLoss:
      given.Child("account_for_loss").Fail(found->message);
    case SplitKey::kFirstStage:
      given.Child("first_stage_blocks").Fail(found->message);
    case SplitKey::kLastStage:
      given.Child("last_stage_blocks").Fail(found->message);
    case SplitKey::kEntry:
      entries.at(found->chunk).Fail(found->message);
  }
}

}  // namespace

bool ReadPipelineParallelism(const JsonCursor& parallelism, const std::vector<Dimension>& dims,
                             TrainingWorkload& workload) {
  const auto pipeline = parallelism.Find("pipeline");
  const auto micro_batches = parallelism.Find("micro_batches");
  const auto schedule = parallelism.Find("pipeline_schedule");
  const auto virtual_stages = parallelism.Find("virtual_stages");
  const auto expert = parallelism.Find("expert");
  const auto order = parallelism.Find("order");
  const auto context = parallelism.Find("context");
  const auto placement = parallelism.Find("placement");
  const auto split = parallelism.Find("pipeline_split");
  if (!pipeline && !micro_batches && !schedule && !virtual_stages && !expert && !order &&
      !context && !placement && !split) {
    return false;
  }
  uint64_t npus = 1;
  for (const Dimension& dim : dims) npus *= dim.size;
  // Expert parallelism alone runs without a pipeline (one stage); so do micro-batches alone
  // (gradient accumulation, as Megatron-LM's forward_backward_no_pipelining runs them); a
  // schedule key asks for a pipeline.
  const bool staged = pipeline || schedule || virtual_stages;
  const JsonCursor depth =
      pipeline        ? *pipeline
      : staged        ? parallelism.At("pipeline", "the number of pipeline stages")
      : micro_batches ? *micro_batches
      : expert        ? *expert
      : context       ? *context
      : order         ? *order
      : placement     ? *placement
                      : *split;  // stands in, never read, without stages
  PipelineLayout& layout = workload.pipeline;
  layout.pipeline = staged ? static_cast<uint32_t>(depth.Integer(1, npus)) : 1;
  for (const std::string_view key :
       {"data_dimensions", "tensor_dimensions", "tensor_per_dimension"}) {
    if (const auto given = parallelism.Find(key)) {
      given->Fail(
          "a pipeline, micro-batches, expert or context parallelism places ranks Megatron's way "
          "(tensor index fastest, then context, data, pipeline stage; or as \"order\" says); "
          "give the degrees only");
    }
  }
  const auto tensor = parallelism.Find("tensor");
  const auto data = parallelism.Find("data");
  const uint64_t tensor_degree = tensor ? tensor->Integer(1, npus) : 1;
  const uint64_t context_degree = context ? context->Integer(1, npus) : 1;
  const uint64_t others = tensor_degree * context_degree * layout.pipeline;
  uint64_t data_degree = 0;
  if (data) {
    data_degree = data->Integer(1, npus);
  } else if (others <= npus && npus % others == 0) {
    data_degree = npus / others;
  }
  if (auto reason = DegreesRefusal(tensor_degree, context_degree,
                                   data ? std::optional<uint64_t>(data_degree) : std::nullopt,
                                   layout.pipeline, npus)) {
    parallelism.Fail(*reason);
  }
  // A pipeline needs its micro-batch count; one stage defaults to one micro-batch (`count` then
  // only stands in and is never read).
  const JsonCursor count =
      micro_batches         ? *micro_batches
      : layout.pipeline > 1 ? parallelism.At("micro_batches",
                                             "the number of micro-batches per iteration")
                            : depth;
  layout.micro_batches =
      micro_batches || layout.pipeline > 1 ? static_cast<uint32_t>(count.Integer(1, 1 << 20)) : 1;
  // One stage runs each micro-batch's forward and then its backward, in turn: no schedule to
  // choose and no chunks to interleave.
  for (const auto& key : {schedule, virtual_stages, split}) {
    if (key && layout.pipeline == 1) {
      key->Fail("applies to a pipeline; with one stage each micro-batch runs forward then "
                "backward in turn; accepted: this key with \"pipeline\" of 2 or more");
    }
  }
  if (schedule) layout.schedule = schedule->Choice(kPipelineScheduleNames);
  if (virtual_stages) {
    layout.virtual_stages = static_cast<uint32_t>(virtual_stages->Integer(1, 1024));
    if (auto reason = VirtualStagesRefusal(layout)) virtual_stages->Fail(*reason);
  }
  if (auto reason = InterleavedMicroBatchesRefusal(layout)) count.Fail(*reason);
  if (auto reason = ChunksRefusal(workload.model.layers.size(), layout)) depth.Fail(*reason);
  if (split) ReadPipelineSplit(*split, workload);
  workload.config.tensor_parallel = static_cast<uint32_t>(tensor_degree);
  workload.config.data_parallel = static_cast<uint32_t>(data_degree);
  if (expert) ReadExpertDegree(*expert, workload);
  if (context) ReadContextDegree(*context, workload);
  if (order) ReadOrder(*order, workload);
  if (placement) ReadPlacement(*placement, npus, workload);
  workload.megatron_layout = true;
  return true;
}

void CheckPipelineBatch(const JsonCursor& batch, const TrainingWorkload& workload) {
  const TrainingConfig& config = workload.config;
  if (auto reason =
          BatchSplitRefusal(config.global_batch_samples, config.data_parallel, workload.pipeline)) {
    batch.Fail(*reason);
  }
  if (auto reason = GraphSizeRefusal(workload.model, config, workload.pipeline,
                                     kMaxGeneratedGraphNodes)) {
    batch.Fail(*reason);
  }
}

void PipelineToJson(const TrainingWorkload& workload, nlohmann::json& parallelism) {
  const PipelineLayout& layout = workload.pipeline;
  // Written when not the default, and when nothing else would keep the echo on this layout.
  if (layout.order != kMegatronOrder ||
      (layout.pipeline == 1 && workload.config.expert_parallel == 1 &&
       workload.config.context_parallel == 1)) {
    for (const ParallelAxis axis : layout.order) parallelism["order"].push_back(ToString(axis));
  }
  if (workload.config.expert_parallel > 1) parallelism["expert"] = workload.config.expert_parallel;
  if (workload.config.context_parallel > 1) {
    parallelism["context"] = workload.config.context_parallel;
  }
  if (!layout.placement.empty()) parallelism["placement"] = layout.placement;
  if (layout.pipeline > 1) {
    parallelism["pipeline"] = layout.pipeline;
    parallelism["pipeline_schedule"] = ToString(layout.schedule);
    parallelism["virtual_stages"] = layout.virtual_stages;
    // Written only when not the default, so that balanced scenarios echo as before.
    const PipelineSplit& split = layout.split;
    if (split.rule == PipelineSplitRule::kExplicit) {
      parallelism["pipeline_split"] = split.blocks_per_chunk;
    } else if (split.rule == PipelineSplitRule::kMegatron) {
      nlohmann::json megatron = {{"rule", std::string(ToString(split.rule))}};
      if (split.account_for_embedding) megatron["account_for_embedding"] = true;
      if (split.account_for_loss) megatron["account_for_loss"] = true;
      if (split.first_stage_blocks) megatron["first_stage_blocks"] = *split.first_stage_blocks;
      if (split.last_stage_blocks) megatron["last_stage_blocks"] = *split.last_stage_blocks;
      parallelism["pipeline_split"] =
          megatron.size() == 1 ? nlohmann::json(std::string(ToString(split.rule))) : megatron;
    }
  }
  if (layout.pipeline > 1 || layout.micro_batches > 1) {
    parallelism["micro_batches"] = layout.micro_batches;
  }
}

void ReadRouting(const JsonCursor& training, TrainingWorkload& workload) {
  const auto routing = training.Find("routing");
  if (!routing) return;
  routing->ExpectObject({"capacity_factor", "skew"});
  const bool routed = std::any_of(workload.model.layers.begin(), workload.model.layers.end(),
                                  [](const Layer& l) { return l.routed.has_value(); });
  if (!routed) {
    routing->Fail(fmt::format("model \"{}\" has no mixture-of-experts layers to route to",
                              workload.model_name));
  }
  const auto capacity = routing->Find("capacity_factor");
  const auto skew = routing->Find("skew");
  if (capacity && skew) {
    skew->Fail("give a capacity factor (tokens over it are dropped, buffers padded to it) or a "
               "skew (dropless routing, the busiest rank loaded this much above the mean), not "
               "both");
  }
  if (capacity) {
    workload.capacity_factor = capacity->Number(0.0, 64.0, true);
    workload.config.expert_load = workload.capacity_factor;
  }
  if (skew) {
    workload.expert_skew = skew->Number(1.0, 1024.0, false);
    workload.config.expert_load = workload.expert_skew;
  }
}

}  // namespace hfsim
