// Pipeline parallelism in "workload.training.parallelism" (docs/scenario.md §3.2): the keys
// "pipeline", "micro_batches" (alone, or with "pipeline": 1: one stage, gradient accumulation),
// "pipeline_schedule", "virtual_stages" and "pipeline_split", read into the workload's PipelineLayout
// (workloads/graph/parallel-layout.h), each checked by its rule (workloads/graph/pipeline-rules.h)
// at the key that breaks it. Internal to the loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// The nodes a generated graph may hold in all (72 bytes each: 4 Mi nodes is 300 MiB).
inline constexpr uint64_t kMaxGeneratedGraphNodes = uint64_t{1} << 22;

/// When the parallelism section asks for a composed layout (a pipeline key, micro-batches,
/// expert, context, order or placement), reads the degrees and
/// the layout, checks them against the fabric and the model (already read), and returns true;
/// otherwise returns false and reads nothing.
bool ReadPipelineParallelism(const JsonCursor& parallelism, const std::vector<Dimension>& dims,
                             TrainingWorkload& workload);
/// Once the batch is read: it must split into data-parallel replicas x micro-batches, and the
/// graph must stay within kMaxGeneratedGraphNodes.
void CheckPipelineBatch(const JsonCursor& batch, const TrainingWorkload& workload);
/// The pipeline keys, for the scenario's echo.
void PipelineToJson(const TrainingWorkload& workload, nlohmann::json& parallelism);

/// "workload.training.routing": {"capacity_factor"} or {"skew"}, for models with routed experts;
/// sets the config's expert load (1 when not given).
void ReadRouting(const JsonCursor& training, TrainingWorkload& workload);

}  // namespace hfsim
