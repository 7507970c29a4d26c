// Pipeline parallelism in the scenario ("parallelism": pipeline, micro_batches,
// pipeline_schedule, virtual_stages): read, echoed back, run on the analytical engine through
// the pipeline generator, and every layout that cannot run refused at its JSON path with what
// is accepted.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// gpt2_small (12 blocks + embedding + final norm: 14 layers) on 16 NPUs: tensor 2 on a
// FullyConnected pair, data 2 on a Ring pair, pipeline 4 across a Switch.
nlohmann::json PipelineScenario() {
  return nlohmann::json::parse(R"({
    "topology": {"dimensions": [
      {"kind": "FullyConnected", "size": 2, "bandwidth_GBps": 300, "latency_ns": 100},
      {"kind": "Ring", "size": 2, "bandwidth_GBps": 50, "latency_ns": 500},
      {"kind": "Switch", "size": 4, "bandwidth_GBps": 25, "latency_ns": 1000}]},
    "workload": {"training": {
      "model": "gpt2_small", "global_batch_samples": 32,
      "parallelism": {"tensor": 2, "data": 2, "pipeline": 4, "micro_batches": 8}}}
  })");
}

nlohmann::json& Parallelism(nlohmann::json& doc) {
  return doc["workload"]["training"]["parallelism"];
}

TEST(PipelineScenario, ReadsRunsAndEchoes) {
  const Scenario scenario = ParseOrDie(PipelineScenario());
  EXPECT_EQ(scenario.training.pipeline.pipeline, 4u);
  EXPECT_EQ(scenario.training.pipeline.micro_batches, 8u);
  EXPECT_EQ(scenario.training.pipeline.schedule, PipelineSchedule::kOneFOneB);
  EXPECT_EQ(scenario.training.config.tensor_parallel, 2u);
  EXPECT_EQ(scenario.training.config.data_parallel, 2u);
  const Report report = AnalyticalEngine().Run(scenario);
  // Every stage's compute, plus waiting: the iteration is longer than one stage's compute.
  EXPECT_GT(report.iteration.total_ns, report.iteration.ComputeNs());
  // Each stage's 2 x 2 ranks run one program; the report names the one it describes (the
  // first of those that end last) and counts each rank's traffic.
  ASSERT_TRUE(report.graph.has_value());
  EXPECT_EQ(report.graph->programs, 4u);
  EXPECT_EQ(report.graph->reported_class_ranks, 4u);
  // The echo reads back to the same job.
  const Scenario again = ParseOrDie(ScenarioToJson(scenario));
  EXPECT_EQ(AnalyticalEngine().Run(again).iteration.total_ns, report.iteration.total_ns);
  EXPECT_EQ(ScenarioToJson(again), ScenarioToJson(scenario));
}

TEST(PipelineScenario, MoreMicroBatchesShrinkTheBubble) {
  // Same work per iteration, cut finer: the fill-and-drain share falls.
  auto total = [](uint32_t m, const std::string& schedule, uint32_t v) {
    nlohmann::json doc = PipelineScenario();
    Parallelism(doc)["micro_batches"] = m;
    Parallelism(doc)["pipeline_schedule"] = schedule;
    Parallelism(doc)["virtual_stages"] = v;
    return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
  };
  EXPECT_LT(total(16, "1f1b", 1), total(4, "1f1b", 1));
  // Interleaving shrinks it further where chunks can be balanced: not on GPT-2 small, whose LM
  // head alone costs four blocks and makes a stage of its own.
  auto llama = [](const std::string& schedule, uint32_t v) {
    nlohmann::json doc = PipelineScenario();
    doc["workload"]["training"]["model"] = "llama3_8b";
    doc["workload"]["training"]["sequence_length_tokens"] = 2048;
    Parallelism(doc)["micro_batches"] = 8;
    Parallelism(doc)["pipeline_schedule"] = schedule;
    Parallelism(doc)["virtual_stages"] = v;
    return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
  };
  EXPECT_LT(llama("interleaved", 2), llama("1f1b", 1));
}

TEST(PipelineScenario, OverlappedGradientsHideBehindTheLastBackwards) {
  // Without overlap a stage all-reduces its layers' gradients after its last backward; with
  // it, each layer's starts when that layer is done, during the other layers' backwards.
  nlohmann::json doc = PipelineScenario();
  const Report serial = AnalyticalEngine().Run(ParseOrDie(doc));
  doc["workload"]["training"]["overlap"] = "backward";
  const Report overlapped = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_LT(overlapped.iteration.total_ns, serial.iteration.total_ns);
  // The same gradients cross the same links either way.
  EXPECT_EQ(overlapped.total_traffic_bytes, serial.total_traffic_bytes);
  EXPECT_DOUBLE_EQ(overlapped.iteration.weight_grad_comm_ns, serial.iteration.weight_grad_comm_ns);
}

TEST(PipelineScenario, RefusesLayoutsThatCannotRun) {
  const std::string at = "workload.training.parallelism";
  nlohmann::json doc = PipelineScenario();
  Parallelism(doc)["data"] = 4;
  ExpectLoadError(doc, at, "tensor (2) x context (1) x data (4) x pipeline (4) must be the fabric's 16 NPUs");

  doc = PipelineScenario();
  Parallelism(doc)["pipeline_schedule"] = "interleaved";
  Parallelism(doc)["micro_batches"] = 6;
  ExpectLoadError(doc, at + ".micro_batches", "accepted: a multiple of 4");

  doc = PipelineScenario();
  Parallelism(doc)["virtual_stages"] = 2;
  ExpectLoadError(doc, at + ".virtual_stages", "\"pipeline_schedule\": \"interleaved\"");

  doc = PipelineScenario();
  Parallelism(doc)["pipeline_schedule"] = "interleaved";
  Parallelism(doc)["virtual_stages"] = 4;
  ExpectLoadError(doc, at + ".pipeline", "14 layers cannot fill 16 pipeline chunks");

  doc = PipelineScenario();
  Parallelism(doc)["tensor_dimensions"] = {0};
  ExpectLoadError(doc, at + ".tensor_dimensions", "give the degrees only");

  doc = PipelineScenario();
  Parallelism(doc).erase("micro_batches");
  ExpectLoadError(doc, at + ".micro_batches", "missing; expected the number of micro-batches");

  doc = PipelineScenario();
  doc["workload"]["training"]["global_batch_samples"] = 24;
  ExpectLoadError(doc, "workload.training.global_batch_samples",
                  "2 data-parallel replicas x 8 micro-batches; accepted: a multiple of 16");

  // One program per stage of about 26 nodes per micro-batch: 65,536 micro-batches make more
  // than the 4 Mi nodes hfsim builds.
  doc = PipelineScenario();
  Parallelism(doc)["micro_batches"] = 65536;
  doc["workload"]["training"]["global_batch_samples"] = 131072;
  ExpectLoadError(doc, "workload.training.global_batch_samples",
                  "nodes (4 programs x 1703950), above the 4194304 hfsim builds; accepted: fewer "
                  "micro-batches");

  // One stage is accepted (gradient accumulation: tests/flow/accumulation-engines-test.cc).
  doc = PipelineScenario();
  Parallelism(doc)["pipeline"] = 0;
  ExpectLoadError(doc, at + ".pipeline", "got 0; accepted: an integer from 1 to 16");
}

}  // namespace
}  // namespace hfsim
