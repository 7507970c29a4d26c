#include "workloads/graph/pipeline-split.h"

#include <numeric>

#include <fmt/format.h>

namespace hfsim {

namespace {

// Rows before the blocks (the embedding) and after them (final norm, head, multi-token
// prediction); none for a model that does not mark its blocks.
uint32_t LeadingRows(const Model& model) { return model.blocks > 0 ? model.first_block : 0; }
uint32_t TrailingRows(const Model& model) {
  if (model.blocks == 0) return 0;
  return static_cast<uint32_t>(model.layers.size()) - model.first_block - model.blocks;
}

std::string ChunkName(uint32_t k, const PipelineLayout& layout) {
  if (layout.virtual_stages == 1) return fmt::format("stage {}", k);
  return fmt::format("chunk {} (stage {}, its chunk {})", k, k % layout.pipeline,
                     k / layout.pipeline);
}

// Megatron-Core's get_num_layers_to_build with num_layers_in_first/last_pipeline_stage: the
// given stages hold what they are given, the others share the rest evenly.
std::variant<std::vector<uint32_t>, SplitProblem> UnevenStages(uint32_t blocks,
                                                                const PipelineLayout& layout) {
  const PipelineSplit& split = layout.split;
  const uint32_t p = layout.pipeline;
  const SplitKey key = split.first_stage_blocks ? SplitKey::kFirstStage : SplitKey::kLastStage;
  if (split.account_for_embedding || split.account_for_loss) {
    return SplitProblem{key, 0,
                        "first and last stage blocks are not given with account_for_embedding or "
                        "account_for_loss (Megatron-Core refuses them together: "
                        "TransformerConfig.__post_init__); accepted: one way or the other"};
  }
  const uint32_t first = split.first_stage_blocks.value_or(0);
  const uint32_t last = split.last_stage_blocks.value_or(0);
  const uint32_t given = (split.first_stage_blocks ? 1 : 0) + (split.last_stage_blocks ? 1 : 0);
  if (uint64_t{first} + last > blocks) {
    return SplitProblem{key, 0,
                        fmt::format("the first and last stages would hold {} blocks, and the "
                                    "model has {}; accepted: at most {} together",
                                    uint64_t{first} + last, blocks, blocks)};
  }
  const uint32_t rest = blocks - first - last;
  const uint32_t others = p - given;
  if (others == 0 && rest != 0) {
    return SplitProblem{key, 0,
                        fmt::format("with {} stages the first and last hold every block: {} + {} "
                                    "is not the model's {}; accepted: two counts summing to {}",
                                    p, first, last, blocks, blocks)};
  }
  if (others > 0 && rest % others != 0) {
    return SplitProblem{
        key, 0,
        fmt::format("leaves {} blocks for the other {} stages, which do not share them evenly "
                    "(Megatron-Core's get_num_layers_to_build asserts it); accepted: counts "
                    "leaving a multiple of {}, or an explicit list of blocks per chunk",
                    rest, others, others)};
  }
  std::vector<uint32_t> stage(p, others > 0 ? rest / others : 0);
  if (split.first_stage_blocks) stage.front() = first;
  if (split.last_stage_blocks) stage.back() = last;
  const uint32_t v = layout.virtual_stages;
  std::vector<uint32_t> chunks(uint64_t{p} * v);
  for (uint32_t s = 0; s < p; ++s) {
    if (stage[s] % v != 0) {
      const bool own = (s == 0 && split.first_stage_blocks) ||
                       (s == p - 1 && split.last_stage_blocks);
      return SplitProblem{
          own ? (s == 0 ? SplitKey::kFirstStage : SplitKey::kLastStage) : SplitKey::kSplit, 0,
          fmt::format("stage {} would hold {} blocks, which do not divide into its {} chunks "
                      "(Megatron-Core asserts it); accepted: counts that virtual_stages divides",
                      s, stage[s], v)};
    }
    for (uint32_t c = 0; c < v; ++c) chunks[uint64_t{c} * p + s] = stage[s] / v;
  }
  return chunks;
}

// Megatron-Core's get_num_layers_to_build without first/last stage counts: every chunk holds
// (blocks + embedding + loss) / (p v), less the embedding on the first and the loss on the last.
std::variant<std::vector<uint32_t>, SplitProblem> UniformStages(uint32_t blocks,
                                                                 const PipelineLayout& layout) {
  const PipelineSplit& split = layout.split;
  const uint32_t p = layout.pipeline, v = layout.virtual_stages;
  const uint32_t counted =
      blocks + (split.account_for_embedding ? 1 : 0) + (split.account_for_loss ? 1 : 0);
  const std::string what = fmt::format(
      "{} blocks{}{}", blocks, split.account_for_embedding ? " + the embedding" : "",
      split.account_for_loss ? " + the loss" : "");
  if (counted % p != 0) {
    return SplitProblem{
        SplitKey::kSplit, 0,
        fmt::format("{} = {} layers do not divide over {} stages (Megatron-Core asserts "
                    "num_layers % pipeline size == 0); accepted: a pipeline that divides {}, "
                    "other account_for options, first/last stage blocks, or an explicit list of "
                    "blocks per chunk",
                    what, counted, p, counted)};
  }
  const uint32_t per_stage = counted / p;
  if (per_stage % v != 0) {
    return SplitProblem{
        SplitKey::kSplit, 0,
        fmt::format("{} = {} layers make {} per stage, which do not divide into {} virtual "
                    "stages (Megatron-Core asserts it); accepted: virtual_stages dividing {}, or "
                    "an explicit list of blocks per chunk",
                    what, counted, per_stage, v, per_stage)};
  }
  std::vector<uint32_t> chunks(uint64_t{p} * v, per_stage / v);
  // Each chunk holds at least one counted layer, so the first and last have one to give up.
  if (split.account_for_embedding) chunks.front() -= 1;
  if (split.account_for_loss) chunks.back() -= 1;
  return chunks;
}

}  // namespace

uint32_t SplitBlocks(const Model& model) {
  return model.blocks > 0 ? model.blocks : static_cast<uint32_t>(model.layers.size());
}

std::variant<std::vector<uint32_t>, SplitProblem> BlocksPerChunk(const Model& model,
                                                                 const PipelineLayout& layout) {
  const PipelineSplit& split = layout.split;
  const uint32_t blocks = SplitBlocks(model);
  const uint64_t count = uint64_t{layout.pipeline} * layout.virtual_stages;
  if (split.account_for_embedding && LeadingRows(model) == 0) {
    return SplitProblem{SplitKey::kEmbedding, 0,
                        fmt::format("model \"{}\" has no embedding apart from its blocks (a "
                                    "layer list counts every row as one); accepted: false",
                                    model.name)};
  }
  if (split.account_for_loss && TrailingRows(model) == 0) {
    return SplitProblem{SplitKey::kLoss, 0,
                        fmt::format("model \"{}\" has no head or loss apart from its blocks (a "
                                    "layer list counts every row as one); accepted: false",
                                    model.name)};
  }
  std::vector<uint32_t> chunks;
  switch (split.rule) {
    case PipelineSplitRule::kBalanced:
      return SplitProblem{SplitKey::kSplit, 0, "the balanced split is cut by cost, not by blocks"};
    case PipelineSplitRule::kMegatron: {
      auto given = split.first_stage_blocks || split.last_stage_blocks
                       ? UnevenStages(blocks, layout)
                       : UniformStages(blocks, layout);
      if (auto* problem = std::get_if<SplitProblem>(&given)) return *problem;
      chunks = std::get<std::vector<uint32_t>>(std::move(given));
      break;
    }
    case PipelineSplitRule::kExplicit: {
      chunks = split.blocks_per_chunk;
      if (chunks.size() != count) {
        return SplitProblem{
            SplitKey::kSplit, 0,
            fmt::format("lists {} chunks; the pipeline has {} (pipeline {} x virtual stages {}); "
                        "accepted: the blocks of each chunk in forward order, chunk c x {} + s "
                        "being stage s's chunk c",
                        chunks.size(), count, layout.pipeline, layout.virtual_stages,
                        layout.pipeline)};
      }
      const uint64_t sum = std::accumulate(chunks.begin(), chunks.end(), uint64_t{0});
      if (sum != blocks) {
        return SplitProblem{
            SplitKey::kSplit, 0,
            fmt::format("lists {} blocks in all; model \"{}\" has {}{}; accepted: entries "
                        "summing to {}",
                        sum, model.name, blocks,
                        model.blocks > 0 ? " transformer blocks" : " layers (every row counts)",
                        blocks)};
      }
      break;
    }
  }
  // hfsim runs every chunk with at least one row: the first may hold the embedding alone, the
  // last the head alone (Megatron's layouts "E|..." and "...|L"), no other may be empty.
  const auto last = static_cast<uint32_t>(chunks.size() - 1);
  for (uint32_t k = 0; k <= last; ++k) {
    if (chunks[k] > 0) continue;
    if ((k == 0 && LeadingRows(model) > 0) || (k == last && TrailingRows(model) > 0)) continue;
    const bool listed = split.rule == PipelineSplitRule::kExplicit;
    return SplitProblem{
        listed ? SplitKey::kEntry : SplitKey::kSplit, k,
        fmt::format("{} would hold no layer{}; accepted: at least one block in every chunk but "
                    "the first (which holds the embedding) and the last (which holds the head)",
                    ChunkName(k, layout),
                    model.blocks == 0 ? " (this model marks no embedding or head)" : "")};
  }
  return chunks;
}

std::vector<uint32_t> SplitBoundaries(const Model& model, const std::vector<uint32_t>& blocks) {
  std::vector<uint32_t> bounds{0};
  uint32_t next = LeadingRows(model);
  for (size_t k = 0; k + 1 < blocks.size(); ++k) {
    next += blocks[k];
    bounds.push_back(next);
  }
  bounds.push_back(static_cast<uint32_t>(model.layers.size()));
  return bounds;
}

}  // namespace hfsim
