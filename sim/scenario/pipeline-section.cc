#include "sim/scenario/pipeline-section.h"

#include <fmt/format.h>

namespace hfsim {

namespace {

// The accepted names, in the order of PipelineSchedule.
std::vector<std::string_view> ScheduleNames() {
  std::vector<std::string_view> names;
  for (const PipelineSchedule schedule : kAllPipelineSchedules) names.push_back(ToString(schedule));
  return names;
}

}  // namespace

bool ReadPipelineParallelism(const JsonCursor& parallelism, const std::vector<Dimension>& dims,
                             TrainingWorkload& workload) {
  const auto pipeline = parallelism.Find("pipeline");
  const auto micro_batches = parallelism.Find("micro_batches");
  const auto schedule = parallelism.Find("pipeline_schedule");
  const auto virtual_stages = parallelism.Find("virtual_stages");
  if (!pipeline && !micro_batches && !schedule && !virtual_stages) return false;
  uint64_t npus = 1;
  for (const Dimension& dim : dims) npus *= dim.size;
  const JsonCursor depth =
      pipeline ? *pipeline : parallelism.At("pipeline", "the number of pipeline stages");
  PipelineLayout& layout = workload.pipeline;
  layout.pipeline = static_cast<uint32_t>(depth.Integer(2, npus));
  for (const std::string_view key :
       {"data_dimensions", "tensor_dimensions", "tensor_per_dimension"}) {
    if (const auto given = parallelism.Find(key)) {
      given->Fail(
          "a pipeline places ranks Megatron's way (tensor index fastest, then data, then "
          "pipeline stage); give the degrees only");
    }
  }
  const auto tensor = parallelism.Find("tensor");
  const auto data = parallelism.Find("data");
  const uint64_t tensor_degree = tensor ? tensor->Integer(1, npus) : 1;
  uint64_t data_degree = 0;
  if (data) {
    data_degree = data->Integer(1, npus);
  } else if (npus % (tensor_degree * layout.pipeline) == 0) {
    data_degree = npus / (tensor_degree * layout.pipeline);
  }
  if (tensor_degree * data_degree * layout.pipeline != npus) {
    parallelism.Fail(fmt::format(
        "tensor ({}) x data ({}) x pipeline ({}) must be the fabric's {} NPUs; accepted: degrees "
        "whose product is {}",
        tensor_degree, data ? std::to_string(data_degree) : "not given", layout.pipeline, npus,
        npus));
  }
  const JsonCursor count =
      micro_batches ? *micro_batches
                    : parallelism.At("micro_batches", "the number of micro-batches per iteration");
  layout.micro_batches = static_cast<uint32_t>(count.Integer(1, 1 << 20));
  if (schedule) layout.schedule = static_cast<PipelineSchedule>(schedule->Choice(ScheduleNames()));
  if (virtual_stages) {
    layout.virtual_stages = static_cast<uint32_t>(virtual_stages->Integer(1, 1024));
    if (layout.virtual_stages > 1 && layout.schedule != PipelineSchedule::kInterleaved) {
      virtual_stages->Fail(
          fmt::format("got {}; more than one model chunk per stage needs "
                      "\"pipeline_schedule\": \"interleaved\"",
                      layout.virtual_stages));
    }
  }
  if (layout.schedule == PipelineSchedule::kInterleaved &&
      layout.micro_batches % layout.pipeline != 0) {
    count.Fail(
        fmt::format("got {}; the interleaved schedule runs micro-batches in groups of the "
                    "pipeline depth; accepted: a multiple of {}",
                    layout.micro_batches, layout.pipeline));
  }
  const uint64_t chunks = uint64_t{layout.pipeline} * layout.virtual_stages;
  if (workload.model.layers.size() < chunks) {
    depth.Fail(
        fmt::format("the model's {} layers cannot fill {} pipeline chunks (pipeline {} x "
                    "virtual stages {}); accepted: at most {} chunks",
                    workload.model.layers.size(), chunks, layout.pipeline, layout.virtual_stages,
                    workload.model.layers.size()));
  }
  workload.config.tensor_parallel = static_cast<uint32_t>(tensor_degree);
  workload.config.data_parallel = static_cast<uint32_t>(data_degree);
  return true;
}

void CheckPipelineBatch(const JsonCursor& batch, const TrainingWorkload& workload) {
  const PipelineLayout& layout = workload.pipeline;
  const uint64_t split = uint64_t{workload.config.data_parallel} * layout.micro_batches;
  if (workload.config.global_batch_samples % split != 0) {
    batch.Fail(
        fmt::format("got {}, which does not split into {} data-parallel replicas x {} "
                    "micro-batches; accepted: a multiple of {}",
                    workload.config.global_batch_samples, workload.config.data_parallel,
                    layout.micro_batches, split));
  }
  // Every stage runs one program (its ranks share it): per micro-batch and chunk, a receive, a
  // send and up to three nodes per layer each way; and one gradient collective per layer at the
  // end. The generator refuses, in the same terms, a layout whose ranks need more programs.
  const uint64_t layers = workload.model.layers.size();
  const uint64_t per_stage =
      uint64_t{layout.micro_batches} *
          (4 * uint64_t{layout.virtual_stages} + 5 * layers / layout.pipeline + 5) +
      layers;
  if (per_stage * layout.pipeline > kMaxGeneratedGraphNodes) {
    batch.Fail(
        fmt::format("this pipeline job's graph would hold about {} nodes ({} stages x {}), "
                    "above the {} hfsim builds; accepted: fewer micro-batches",
                    per_stage * layout.pipeline, layout.pipeline, per_stage,
                    kMaxGeneratedGraphNodes));
  }
}

void PipelineToJson(const PipelineLayout& layout, nlohmann::json& parallelism) {
  parallelism["pipeline"] = layout.pipeline;
  parallelism["micro_batches"] = layout.micro_batches;
  parallelism["pipeline_schedule"] = ToString(layout.schedule);
  parallelism["virtual_stages"] = layout.virtual_stages;
}

}  // namespace hfsim
