// How a pipeline's chunks divide the model's transformer blocks, when the scenario asks for
// Megatron-Core's split or lists the blocks of every chunk (PipelineSplit in parallel-layout.h);
// hfsim's own min-max balance is BalancedChunks (pipeline-schedule.h). Megatron-Core's rules,
// read in megatron/core/transformer/transformer_block.py (get_num_layers_to_build) and
// transformer_layer.py (get_transformer_layer_offset):
//   - every stage holds num_layers / p blocks and each of its v chunks a v-th of them;
//   - with account_for_embedding_in_pipeline_split (account_for_loss_...) the embedding (the
//     loss) counts as one more layer when dividing, and the first chunk of the first stage (the
//     last chunk of the last stage) builds one block fewer;
//   - num_layers_in_first_pipeline_stage / ..._last_... fix the first and last stage's blocks,
//     the other stages sharing the rest evenly (not with the account_for flags);
//   - chunks are contiguous in forward order (chunk k = c p + s: stage s, virtual chunk c);
//     the embedding is built on the first chunk (pre_process), the final norm, the output
//     layer and the loss on the last (post_process), and multi-token prediction with them.
// A model that does not mark its blocks (a custom layer list, a CNN) counts every row as one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "workloads/graph/parallel-layout.h"
#include "workloads/layer.h"

namespace hfsim {

/// Where a split breaks a rule, so the loader can name the key: the split as a whole, one of
/// its options, or an entry of its explicit list.
enum class SplitKey : uint8_t { kSplit, kEmbedding, kLoss, kFirstStage, kLastStage, kEntry };
struct SplitProblem {
  SplitKey key = SplitKey::kSplit;
  /// The chunk at fault (kEntry).
  uint32_t chunk = 0;
  std::string message;
};

/// The rows the split divides: the blocks (Model::blocks), or every row for a model that does
/// not mark them.
uint32_t SplitBlocks(const Model& model);

/// The blocks of each of the layout's p x v chunks in forward order, by `layout.split`'s rule
/// (kMegatron or kExplicit), or why it cannot be: Megatron's divisibility rules, a list of
/// another length or sum, and a chunk left with no row at all (only the first chunk, which holds
/// the embedding, and the last, which holds the head, may have no block).
std::variant<std::vector<uint32_t>, SplitProblem> BlocksPerChunk(const Model& model,
                                                                 const PipelineLayout& layout);

/// The chunks' boundaries (chunks + 1 of them, as PipelineChunks returns) for `blocks` per
/// chunk: the rows before the blocks join the first chunk, those after them the last.
std::vector<uint32_t> SplitBoundaries(const Model& model, const std::vector<uint32_t>& blocks);

}  // namespace hfsim
