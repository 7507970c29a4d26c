#include "sim/scenario/sharding-section.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "workloads/graph/pipeline-rules.h"

namespace hfsim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

void ReadSharding(const JsonCursor& training, TrainingWorkload& workload) {
  TrainingConfig& config = workload.config;
  if (const auto bytes = training.Find("parameter_bytes_per_param")) {
    config.parameter_bytes_per_param = static_cast<uint32_t>(bytes->Integer(1, 16));
  }
  const auto parallelism = training.Find("parallelism");
  if (!parallelism) return;
  if (const auto stage = parallelism->Find("zero_stage")) {
    config.zero_stage = static_cast<uint32_t>(stage->Integer(0, 3));
    if (config.zero_stage > 0 && config.data_parallel * config.context_parallel == 1) {
      stage->Fail(fmt::format("ZeRO shards over the data-parallel replicas, and data is 1; "
                              "accepted: 0, or \"data\" (or \"context\") above 1"));
    }
    if (config.zero_stage == 3 && config.expert_parallel > 1) {
      stage->Fail("ZeRO-3 with expert parallelism (gathering routed experts) is not modelled; "
                  "accepted with \"expert\" above 1: 0 to 2");
    }
    if (auto reason = GradientShardingRefusal(config.zero_stage, workload.pipeline)) {
      stage->Fail(*reason);
    }
  }
  if (const auto bucket = parallelism->Find("bucket_MiB")) {
    const double mib = bucket->Number(0.0, 1e6, true);
    config.bucket_bytes = static_cast<uint64_t>(std::llround(mib * kMiB));
    if (config.bucket_bytes == 0) {
      bucket->Fail(fmt::format("got {} MiB, less than a byte; accepted: a size of at least "
                               "one byte, in MiB",
                               mib));
    }
    if (config.zero_stage == 3) {
      bucket->Fail("ZeRO-3 reduces each layer's gradients as its parameters are released; "
                   "buckets apply to zero_stage 0 to 2");
    }
    if (config.data_parallel * config.context_parallel == 1) {
      bucket->Fail("buckets group the data-parallel gradient collectives, and data is 1 (there "
                   "are none); accepted: no bucket_MiB, or \"data\" (or \"context\") above 1");
    }
    const auto& layers = workload.model.layers;
    const auto stated = std::find_if(layers.begin(), layers.end(),
                                     [](const Layer& l) { return l.weight_grad_comm.has_value(); });
    if (stated != layers.end()) {
      bucket->Fail(fmt::format("layer \"{}\" states its own gradient collective "
                               "(weight_grad_comm); buckets group the derived ones only",
                               stated->name));
    }
  }
  if (const auto prefetch = parallelism->Find("prefetch")) {
    config.prefetch_parameters = prefetch->Bool();
    if (config.zero_stage != 3) {
      prefetch->Fail(fmt::format("prefetch gathers ZeRO-3's parameters ahead; zero_stage is {}",
                                 config.zero_stage));
    }
  }
}

void ShardingToJson(const TrainingConfig& config, nlohmann::json& training) {
  if (config.parameter_bytes_per_param != TrainingConfig{}.parameter_bytes_per_param) {
    training["parameter_bytes_per_param"] = config.parameter_bytes_per_param;
  }
  nlohmann::json& parallelism = training["parallelism"];
  if (config.zero_stage > 0) parallelism["zero_stage"] = config.zero_stage;
  // A power-of-two division: the echo reads back to the same byte count.
  if (config.bucket_bytes > 0) parallelism["bucket_MiB"] = config.bucket_bytes / kMiB;
  if (config.zero_stage == 3) parallelism["prefetch"] = config.prefetch_parameters;
}

}  // namespace hfsim
