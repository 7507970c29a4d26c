// Megatron-Core's pipeline split and explicit lists of blocks per chunk (pipeline-split.h),
// against splits worked by hand from Megatron-LM's rules (megatron/core/transformer/
// transformer_block.py, get_num_layers_to_build; transformer_layer.py,
// get_transformer_layer_offset): the blocks of every chunk, where the embedding and the head go,
// the problems it refuses, and the memory estimate reading the same chunks.
#include "workloads/graph/pipeline-split.h"

#include <gtest/gtest.h>

#include "workloads/graph/pipeline-rules.h"
#include "workloads/graph/pipeline-schedule.h"
#include "workloads/memory-estimate.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

// A model marked as BuildTransformer marks it: "embedding", `blocks` blocks, "norm", "output".
Model Marked(uint32_t blocks) {
  Model model;
  model.name = "marked";
  model.layers.push_back(Layer{.name = "embedding", .params = 10});
  for (uint32_t i = 0; i < blocks; ++i) {
    model.layers.push_back(Layer{.name = "layers." + std::to_string(i), .params = 100});
  }
  model.layers.push_back(Layer{.name = "norm", .params = 1});
  model.layers.push_back(Layer{.name = "output", .params = 1000});
  model.first_block = 1;
  model.blocks = blocks;
  return model;
}

PipelineLayout Megatron(uint32_t p, uint32_t v = 1, bool embedding = false, bool loss = false) {
  PipelineLayout layout;
  layout.pipeline = p;
  layout.virtual_stages = v;
  layout.schedule = v > 1 ? PipelineSchedule::kInterleaved : PipelineSchedule::kOneFOneB;
  layout.micro_batches = p;
  layout.split.rule = PipelineSplitRule::kMegatron;
  layout.split.account_for_embedding = embedding;
  layout.split.account_for_loss = loss;
  return layout;
}

std::vector<uint32_t> Blocks(const Model& model, const PipelineLayout& layout) {
  auto blocks = BlocksPerChunk(model, layout);
  if (auto* problem = std::get_if<SplitProblem>(&blocks)) {
    ADD_FAILURE() << problem->message;
    return {};
  }
  return std::get<std::vector<uint32_t>>(blocks);
}

SplitProblem Problem(const Model& model, const PipelineLayout& layout) {
  auto blocks = BlocksPerChunk(model, layout);
  EXPECT_TRUE(std::holds_alternative<SplitProblem>(blocks));
  if (auto* problem = std::get_if<SplitProblem>(&blocks)) return *problem;
  return {};
}

std::vector<uint32_t> Chunks(const Model& model, const PipelineLayout& layout) {
  return PipelineChunks(model, TrainingConfig{}, layout);
}

TEST(PipelineSplit, UniformSplitPutsEmbeddingFirstAndHeadLast) {
  // 8 blocks over 4 stages: 8 / 4 = 2 each (get_num_layers_to_build's num_layers //
  // pipeline_model_parallel_size). Rows: embedding 0, blocks 1-8, norm 9, output 10; the
  // embedding joins stage 0 (pre_process), norm and output stage 3 (post_process).
  const Model model = Marked(8);
  EXPECT_EQ(Blocks(model, Megatron(4)), (std::vector<uint32_t>{2, 2, 2, 2}));
  EXPECT_EQ(Chunks(model, Megatron(4)), (std::vector<uint32_t>{0, 3, 5, 7, 11}));
}

TEST(PipelineSplit, AccountForEmbeddingAndLossCountAsOneLayerEach) {
  // 6 blocks + embedding + loss = 8 counted layers over 4 stages: 2 each, less the embedding on
  // stage 0 and the loss on stage 3 (get_num_layers_to_build: num_layers += 1 per flag, then
  // num_layers_to_build -= 1 on the first / last stage): 1, 2, 2, 1.
  EXPECT_EQ(Blocks(Marked(6), Megatron(4, 1, true, true)), (std::vector<uint32_t>{1, 2, 2, 1}));
  EXPECT_EQ(Chunks(Marked(6), Megatron(4, 1, true, true)),
            (std::vector<uint32_t>{0, 2, 4, 6, 9}));
  // 10 blocks: 12 / 4 = 3 each: 2, 3, 3, 2.
  EXPECT_EQ(Blocks(Marked(10), Megatron(4, 1, true, true)), (std::vector<uint32_t>{2, 3, 3, 2}));
  // The embedding alone: 8 + 1 = 9 over 3 stages: 2, 3, 3.
  EXPECT_EQ(Blocks(Marked(8), Megatron(3, 1, true, false)), (std::vector<uint32_t>{2, 3, 3}));
  // 8 blocks with both: 10 layers do not divide over 4 stages. Megatron asserts
  // (num_layers % pipeline_model_parallel_size == 0); so does hfsim, at the split.
  const SplitProblem problem = Problem(Marked(8), Megatron(4, 1, true, true));
  EXPECT_EQ(problem.key, SplitKey::kSplit);
  EXPECT_NE(problem.message.find("8 blocks + the embedding + the loss = 10 layers do not divide "
                                 "over 4 stages"),
            std::string::npos)
      << problem.message;
}

TEST(PipelineSplit, InterleavedChunksFollowMegatronsOffsets) {
  // 6 blocks, 2 stages, 2 chunks each, both flags: 8 counted / 2 stages = 4, / 2 chunks = 2.
  // get_transformer_layer_offset: total_virtual_chunks = 8 / 2 = 4, offset = vp x 4 + pp x 2,
  // less 1 (the embedding) but on the very first chunk: (vp 0, pp 0) 0, (0, 1) 1, (1, 0) 3,
  // (1, 1) 5; with 6 blocks the last runs 5 to 6. In forward order (chunk vp x p + pp):
  // 1, 2, 2, 1 blocks.
  const Model model = Marked(6);
  EXPECT_EQ(Blocks(model, Megatron(2, 2, true, true)), (std::vector<uint32_t>{1, 2, 2, 1}));
  // Rows: embedding + block 0 | blocks 1-2 | blocks 3-4 | block 5, norm, output.
  EXPECT_EQ(Chunks(model, Megatron(2, 2, true, true)),
            (std::vector<uint32_t>{0, 2, 4, 6, 9}));
  // Without the flags, 8 blocks over 2 stages x 2 chunks: 2 per chunk (the comment's example
  // in get_num_layers_to_build: stage 0 holds [0, 1] and [4, 5]).
  EXPECT_EQ(Chunks(Marked(8), Megatron(2, 2)), (std::vector<uint32_t>{0, 3, 5, 7, 11}));
  // Llama 3 405B's 126 blocks over 16 stages x 2 chunks with both flags: 128 / 16 = 8 per
  // stage, 4 per chunk, 3 on the first and last: Meta's "one layer fewer on the first and last
  // stage".
  std::vector<uint32_t> expected(32, 4);
  expected.front() = expected.back() = 3;
  EXPECT_EQ(Blocks(Marked(126), Megatron(16, 2, true, true)), expected);
  // A stage's share must divide into its chunks: 8 / 2 stages = 4 does not go into 3.
  const SplitProblem problem = Problem(Marked(8), Megatron(2, 3));
  EXPECT_NE(problem.message.find("4 per stage, which do not divide into 3 virtual stages"),
            std::string::npos)
      << problem.message;
}

TEST(PipelineSplit, FirstAndLastStageBlocks) {
  // num_layers_in_first/last_pipeline_stage: 126 blocks, 16 stages, 7 on the first and the last:
  // (126 - 14) / 14 = 8 on each other stage.
  PipelineLayout layout = Megatron(16);
  layout.split.first_stage_blocks = 7;
  layout.split.last_stage_blocks = 7;
  std::vector<uint32_t> expected(16, 8);
  expected.front() = expected.back() = 7;
  EXPECT_EQ(Blocks(Marked(126), layout), expected);
  // Only the last given: (126 - 6) / 15 = 8 on the others.
  layout.split.first_stage_blocks.reset();
  layout.split.last_stage_blocks = 6;
  expected.assign(16, 8);
  expected.back() = 6;
  EXPECT_EQ(Blocks(Marked(126), layout), expected);
  // With 2 chunks per stage each stage's count halves (Megatron asserts it divides).
  PipelineLayout interleaved = Megatron(4, 2);
  interleaved.split.first_stage_blocks = 2;
  interleaved.split.last_stage_blocks = 2;
  // 12 blocks: (12 - 4) / 2 = 4 on stages 1 and 2; per chunk 1, 2, 2, 1, then again.
  EXPECT_EQ(Blocks(Marked(12), interleaved), (std::vector<uint32_t>{1, 2, 2, 1, 1, 2, 2, 1}));
}

TEST(PipelineSplit, ExplicitListIsHonoured) {
  PipelineLayout layout = Megatron(4);
  layout.split.rule = PipelineSplitRule::kExplicit;
  layout.split.blocks_per_chunk = {1, 3, 3, 1};
  EXPECT_EQ(Chunks(Marked(8), layout), (std::vector<uint32_t>{0, 2, 5, 8, 11}));
  // The first chunk may hold the embedding alone and the last the head alone (Megatron's
  // layouts "E|…" and "…|L").
  layout.split.blocks_per_chunk = {0, 4, 4, 0};
  EXPECT_EQ(Chunks(Marked(8), layout), (std::vector<uint32_t>{0, 1, 5, 9, 11}));
  // Interleaved, in forward order: chunk 2 is stage 0's second.
  PipelineLayout two = Megatron(2, 2);
  two.split.rule = PipelineSplitRule::kExplicit;
  two.split.blocks_per_chunk = {3, 1, 1, 3};
  EXPECT_EQ(Chunks(Marked(8), two), (std::vector<uint32_t>{0, 4, 5, 6, 11}));
}

TEST(PipelineSplit, ModelWithoutMarkedBlocksCountsEveryRow) {
  // A layer list (or a CNN) marks no blocks: every row is one, none joins a neighbour.
  Model rows = Marked(6);
  rows.first_block = rows.blocks = 0;  // 9 rows
  PipelineLayout layout = Megatron(3);
  EXPECT_EQ(Chunks(rows, layout), (std::vector<uint32_t>{0, 3, 6, 9}));
  layout.split.account_for_embedding = true;
  EXPECT_EQ(Problem(rows, layout).key, SplitKey::kEmbedding);
  layout.split.account_for_embedding = false;
  layout.split.account_for_loss = true;
  EXPECT_EQ(Problem(rows, layout).key, SplitKey::kLoss);
  // With no embedding or head, no chunk may be empty.
  layout = Megatron(3);
  layout.split.rule = PipelineSplitRule::kExplicit;
  layout.split.blocks_per_chunk = {0, 4, 5};
  const SplitProblem problem = Problem(rows, layout);
  EXPECT_EQ(problem.key, SplitKey::kEntry);
  EXPECT_EQ(problem.chunk, 0u);
}

TEST(PipelineSplit, RefusesWhatMegatronRefuses) {
  // Uneven first/last stages leaving a share the others cannot divide: 126 - 7 - 8 = 111 over
  // 14 stages.
  PipelineLayout layout = Megatron(16);
  layout.split.first_stage_blocks = 7;
  layout.split.last_stage_blocks = 8;
  SplitProblem problem = Problem(Marked(126), layout);
  EXPECT_EQ(problem.key, SplitKey::kFirstStage);
  EXPECT_NE(problem.message.find("leaves 111 blocks for the other 14 stages"), std::string::npos)
      << problem.message;
  // With the account_for flags (TransformerConfig.__post_init__ raises ValueError).
  layout.split.last_stage_blocks = 7;
  layout.split.account_for_loss = true;
  EXPECT_NE(Problem(Marked(126), layout).message.find("not given with account_for"),
            std::string::npos);
  // More than the model has.
  layout = Megatron(4);
  layout.split.first_stage_blocks = 9;
  EXPECT_NE(Problem(Marked(8), layout).message.find("would hold 9 blocks, and the model has 8"),
            std::string::npos);
  // Two stages given both ends must hold every block.
  layout = Megatron(2);
  layout.split.first_stage_blocks = 3;
  layout.split.last_stage_blocks = 4;
  EXPECT_NE(Problem(Marked(8), layout).message.find("3 + 4 is not the model's 8"),
            std::string::npos);
  // A middle stage left with no block: 8 - 4 - 4 = 0 over 2 stages.
  layout = Megatron(4);
  layout.split.first_stage_blocks = 4;
  layout.split.last_stage_blocks = 4;
  problem = Problem(Marked(8), layout);
  EXPECT_EQ(problem.chunk, 1u);
  EXPECT_NE(problem.message.find("stage 1 would hold no layer"), std::string::npos)
      << problem.message;
}

TEST(PipelineSplit, RefusesExplicitListsOfTheWrongShape) {
  PipelineLayout layout = Megatron(4);
  layout.split.rule = PipelineSplitRule::kExplicit;
  layout.split.blocks_per_chunk = {2, 2, 4};
  EXPECT_NE(Problem(Marked(8), layout).message.find("lists 3 chunks; the pipeline has 4"),
            std::string::npos);
  layout.split.blocks_per_chunk = {2, 2, 2, 3};
  EXPECT_NE(Problem(Marked(8), layout)
                .message.find("lists 9 blocks in all; model \"marked\" has 8 transformer blocks"),
            std::string::npos);
  layout.split.blocks_per_chunk = {4, 0, 2, 2};
  const SplitProblem problem = Problem(Marked(8), layout);
  EXPECT_EQ(problem.key, SplitKey::kEntry);
  EXPECT_EQ(problem.chunk, 1u);
  // The generator refuses the same layout with the same reason.
  TrainingConfig config;
  config.global_batch_samples = 4;
  EXPECT_EQ(TrainingLayoutRefusal(Marked(8), config, layout, 4),
            "the pipeline split: " + problem.message);
  EXPECT_TRUE(Chunks(Marked(8), layout).empty());
}

TEST(PipelineSplit, ZooTransformersMarkTheirBlocks) {
  // GPT-2 small: wte/wpe, 12 blocks, ln_f (with the tied head): 12 / 4 = 3 per stage, the
  // embedding on the first, ln_f on the last.
  const Model gpt2 = *BuildZooModel("gpt2_small");
  EXPECT_EQ(gpt2.first_block, 1u);
  EXPECT_EQ(gpt2.blocks, 12u);
  EXPECT_EQ(Chunks(gpt2, Megatron(4)), (std::vector<uint32_t>{0, 4, 7, 10, 14}));
}

TEST(PipelineSplit, MemoryEstimateReadsTheSameStages) {
  // 8 rows with no block marks: 7 of 100 parameters and a last of 10,000. Megatron's split
  // counts rows, 4 | 4, so stage 1 holds 300 + 10,000 parameters; an explicit 6 | 2 gives it
  // 100 + 10,000. Stage 1 needs the most either way.
  Model rows;
  rows.name = "rows";
  for (int i = 0; i < 7; ++i) rows.layers.push_back(Layer{.name = "r", .params = 100});
  rows.layers.push_back(Layer{.name = "head", .params = 10000});
  TrainingConfig config;
  config.global_batch_samples = 2;
  PipelineLayout layout = Megatron(2);
  // Weights: 2 bytes a parameter (parameter_bytes_per_param).
  RankMemory memory = EstimateMemory(rows, config, layout);
  EXPECT_EQ(memory.stage, 1u);
  EXPECT_DOUBLE_EQ(memory.weights_bytes, 2.0 * 10300);
  layout.split.rule = PipelineSplitRule::kExplicit;
  layout.split.blocks_per_chunk = {6, 2};
  memory = EstimateMemory(rows, config, layout);
  EXPECT_EQ(memory.stage, 1u);
  EXPECT_DOUBLE_EQ(memory.weights_bytes, 2.0 * 10100);
}

}  // namespace
}  // namespace hfsim
