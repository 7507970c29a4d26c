// Gradient accumulation without a pipeline ("parallelism": {"micro_batches": m}, no "pipeline"
// or "pipeline": 1) across the loader and the three engines: read, echoed and refused at its
// JSON path; priced by the analytical engine as worked out by hand (m micro-batches of forward
// and backward, the gradients reduced once, after or during the last backward only); the flow
// and packet engines agreeing with it on an uncongested job; the memory estimate holding one
// micro-batch's activations; the summary row naming it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/report/summary-table.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// Data 4 on a Ring of 4 (50 GB/s, 500 ns), 16 samples (4 per replica). 4 layers of 1,000,000
// parameters (2,000,000 bytes of gradients each) and 2^20 output elements per sample, timed per
// iteration: forward, input and weight gradients 40,000 ns each. A ring all-reduce of S bytes
// on n = 4 takes 2(n-1) a + 2(n-1)/n S/B = 6 x 500 + 1.5 x 2,000,000 / 50 = 63,000 ns.
nlohmann::json DataParallelJob(uint32_t micro_batches, const std::string& overlap) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "block" + std::to_string(i)},
                      {"params", 1'000'000},
                      {"output_elements_per_sample", 1 << 20},
                      {"forward_ns", 40000},
                      {"input_grad_ns", 40000},
                      {"weight_grad_ns", 40000}});
  }
  nlohmann::json parallelism = {{"data", 4}};
  if (micro_batches > 0) parallelism["micro_batches"] = micro_batches;
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 50}, {"latency_ns", 500}}}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "blocks"}, {"layers", layers}}},
              {"global_batch_samples", 16},
              {"parallelism", parallelism},
              {"overlap", overlap}}}}}};
}

constexpr double kCompute = 4 * 120'000.0;  // E: every layer's forward and backward, any m
constexpr double kAllReduce = 63'000.0;

TEST(AccumulationEngines, ReadEchoedAndRefusedAtItsPath) {
  const Scenario scenario = ParseOrDie(DataParallelJob(4, "none"));
  EXPECT_EQ(scenario.training.pipeline.pipeline, 1u);
  EXPECT_EQ(scenario.training.pipeline.micro_batches, 4u);
  const Scenario again = ParseOrDie(ScenarioToJson(scenario));
  EXPECT_EQ(ScenarioToJson(again), ScenarioToJson(scenario));
  EXPECT_EQ(again.training.pipeline.micro_batches, 4u);
  // "pipeline": 1 says the same; without micro_batches it is one micro-batch.
  nlohmann::json doc = DataParallelJob(4, "none");
  doc["workload"]["training"]["parallelism"]["pipeline"] = 1;
  EXPECT_EQ(ParseOrDie(doc).training.pipeline.micro_batches, 4u);
  doc["workload"]["training"]["parallelism"].erase("micro_batches");
  EXPECT_EQ(ParseOrDie(doc).training.pipeline.micro_batches, 1u);

  const std::string at = "workload.training.parallelism";
  // 4 samples per replica do not split into 3 micro-batches.
  ExpectLoadError(DataParallelJob(3, "none"), "workload.training.global_batch_samples",
                  "a batch of 16 samples does not split into 4 data-parallel replicas x 3 "
                  "micro-batches; accepted: a multiple of 12");
  doc = DataParallelJob(4, "none");
  doc["workload"]["training"]["parallelism"]["micro_batches"] = 0;
  ExpectLoadError(doc, at + ".micro_batches", "got 0; accepted: an integer from 1 to 1048576");
  doc = DataParallelJob(4, "none");
  doc["workload"]["training"]["parallelism"]["pipeline"] = 0;
  ExpectLoadError(doc, at + ".pipeline", "got 0; accepted: an integer from 1 to 4");
  // One stage has no schedule to choose and no chunks to interleave.
  for (const char* key : {"pipeline_schedule", "virtual_stages"}) {
    doc = DataParallelJob(4, "none");
    doc["workload"]["training"]["parallelism"][key] =
        std::string(key) == "virtual_stages" ? nlohmann::json(1) : nlohmann::json("gpipe");
    doc["workload"]["training"]["parallelism"]["pipeline"] = 1;
    ExpectLoadError(doc, at + "." + key, "with \"pipeline\" of 2 or more");
  }
  // Ranks placed by dimension lists run one micro-batch.
  doc = DataParallelJob(4, "none");
  doc["workload"]["training"]["parallelism"]["data_dimensions"] = {0};
  ExpectLoadError(doc, at + ".data_dimensions", "give the degrees only");
  // ZeRO-2 shards the gradients it would have to accumulate.
  doc = DataParallelJob(4, "none");
  doc["workload"]["training"]["parallelism"]["zero_stage"] = 2;
  ExpectLoadError(doc, at + ".zero_stage", "cannot accumulate over 4 micro-batches");
  doc["workload"]["training"]["parallelism"]["zero_stage"] = 1;
  EXPECT_EQ(ParseOrDie(doc).training.config.zero_stage, 1u);
}

TEST(AccumulationEngines, AnalyticalIterationByHand) {
  for (const uint32_t m : {1u, 2u, 4u}) {
    SCOPED_TRACE(m);
    // Without overlap the 4 all-reduces follow the last backward: E + 4 c, whatever m.
    const Report serial = AnalyticalEngine().Run(ParseOrDie(DataParallelJob(m, "none")));
    EXPECT_DOUBLE_EQ(serial.iteration.ComputeNs(), kCompute);
    EXPECT_DOUBLE_EQ(serial.iteration.total_ns, kCompute + 4 * kAllReduce);
    // Every layer's gradients all-reduced once, 2,000,000 bytes, as with one micro-batch.
    uint64_t reduces = 0;
    for (const auto& c : serial.collectives) {
      EXPECT_EQ(c.size_bytes, 2'000'000u);
      reduces += c.occurrences;
    }
    EXPECT_EQ(reduces, 4u);
    EXPECT_DOUBLE_EQ(serial.total_traffic_bytes,
                     AnalyticalEngine().Run(ParseOrDie(DataParallelJob(0, "none")))
                         .total_traffic_bytes);
    // With overlap, layer i's all-reduce starts once its last micro-batch's weight gradients
    // are done, i backward passes b = 80,000 / m before the end: with b > c only layer 0's is
    // exposed (E + c); with b < c they queue from E - 3b (E - 3b + 4c).
    const double b = 80'000.0 / m;
    const double expected =
        b > kAllReduce ? kCompute + kAllReduce : kCompute - 3 * b + 4 * kAllReduce;
    const Report overlapped = AnalyticalEngine().Run(ParseOrDie(DataParallelJob(m, "backward")));
    EXPECT_DOUBLE_EQ(overlapped.iteration.total_ns, expected);
  }
  // One micro-batch without the key: the data x tensor loop times it the same.
  EXPECT_DOUBLE_EQ(
      AnalyticalEngine().Run(ParseOrDie(DataParallelJob(0, "backward"))).iteration.total_ns,
      kCompute + kAllReduce);
}

TEST(AccumulationEngines, FlowAndPacketAgreeWithTheAnalyticalEngine) {
  for (const char* overlap : {"none", "backward"}) {
    SCOPED_TRACE(overlap);
    const Scenario scenario = ParseOrDie(DataParallelJob(4, overlap));
    const Report analytical = AnalyticalEngine().Run(scenario);
    const Report flow = FlowEngine().Run(scenario);
    const Report packet = PacketEngine().Run(scenario);
    std::printf("%s: flow / analytical = %.6f, packet / analytical = %.6f\n", overlap,
                flow.iteration.total_ns / analytical.iteration.total_ns,
                packet.iteration.total_ns / analytical.iteration.total_ns);
    EXPECT_NEAR(flow.iteration.total_ns / analytical.iteration.total_ns, 1.0, 0.01);
    EXPECT_NEAR(packet.iteration.total_ns / analytical.iteration.total_ns, 1.0, 0.05);
    for (const Report* report : {&flow, &packet}) {
      EXPECT_DOUBLE_EQ(report->iteration.ComputeNs(), kCompute);
      ASSERT_EQ(report->collectives.size(), analytical.collectives.size());
      for (size_t i = 0; i < analytical.collectives.size(); ++i) {
        EXPECT_EQ(report->collectives[i].size_bytes, analytical.collectives[i].size_bytes);
        EXPECT_EQ(report->collectives[i].occurrences, analytical.collectives[i].occurrences);
      }
    }
  }
}

TEST(AccumulationEngines, MemoryHoldsOneMicroBatchsActivations) {
  // Each layer keeps its output: per sample 4 x 2^20 elements x 2 bytes = 8 MiB. One stage
  // runs each micro-batch's backward before the next forward, so it holds one micro-batch:
  // 4 samples per replica / m.
  for (const uint32_t m : {1u, 2u, 4u}) {
    const RankMemory memory = ParseOrDie(DataParallelJob(m, "none")).training.memory;
    EXPECT_DOUBLE_EQ(memory.activations_bytes, 4.0 / m * 8 * (1 << 20)) << m;
  }
  // Without the key: all 4 samples, as with one micro-batch.
  EXPECT_DOUBLE_EQ(ParseOrDie(DataParallelJob(0, "none")).training.memory.activations_bytes,
                   4.0 * 8 * (1 << 20));
}

TEST(AccumulationEngines, SummaryNamesTheMicroBatches) {
  const Scenario scenario = ParseOrDie(DataParallelJob(4, "backward"));
  const std::string table = SummaryTable(AnalyticalEngine().Run(scenario), scenario);
  EXPECT_NE(table.find("tensor 1 x data 4 x pipeline 1 (ranks in Megatron's order), 4 "
                       "micro-batches in turn (gradients accumulated), overlap backward"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace hfsim
