// Data-parallel sharding and gradient buckets in "workload.training" (docs/scenario.md §3.8):
// "parallelism": {"zero_stage", "bucket_MiB", "prefetch"} and "parameter_bytes_per_param",
// read into the workload's TrainingConfig (workloads/training-loop.h). Internal to the loader
// (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads the keys once the degrees, the pipeline and the model are known, and refuses each
/// combination that cannot run: ZeRO without data-parallel replicas, ZeRO-2/3 with a pipeline,
/// buckets with ZeRO-3 or with a model stating its own gradient collectives, prefetch without
/// ZeRO-3.
void ReadSharding(const JsonCursor& training, TrainingWorkload& workload);

/// The keys that differ from their defaults, for the scenario's echo.
void ShardingToJson(const TrainingConfig& config, nlohmann::json& training);

}  // namespace hfsim
