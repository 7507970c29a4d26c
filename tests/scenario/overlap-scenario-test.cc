// workload.training.overlap's object form (docs/scenario.md §9): read, echoed, refused; and what
// each switch does to the graph, timed by hand on the analytical engine and held equal on the
// flow engine: tensor-parallel collectives pipelined with their layer's compute, blocking or
// overlapped pipeline sends, and ZeRO-1's parameter gathers overlapping the next forward.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;
using test::Ring;

// One layer of F ns forward and nothing else, whose forward all-reduces `bytes` over a tensor
// group of 4 (a Ring of 4 at 100 GB/s, no latency: an all-reduce of S bytes takes
// 2 x 3/4 x S / 100 ns). `megatron`: ranks composed from the parallel axes ("order" given), the
// other program form; else placed along the dimension (the layer loop).
nlohmann::json TensorJob(double forward_ns, uint64_t bytes, bool megatron) {
  nlohmann::json parallelism = {{"tensor", 4}};
  if (megatron) parallelism["order"] = {"tensor", "data"};
  return {{"topology", {{"dimensions", {Ring(4)}}}},
          {"workload",
           {{"training",
             {{"model",
               {{"name", "one-gemm"},
                {"layers",
                 {{{"name", "a"}, {"params", 0}, {"forward_ns", forward_ns},
                   {"input_grad_ns", 0}, {"weight_grad_ns", 0},
                   {"forward_comm", {{"kind", "all_reduce"}, {"size_bytes", bytes}}}}}}}},
              {"global_batch_samples", 1},
              {"parallelism", parallelism}}}}}};
}

double Total(const nlohmann::json& doc) {
  return AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns;
}

TEST(OverlapScenario, TensorParallelOverlapHidesACollectiveShorterThanItsGemm) {
  for (const bool megatron : {false, true}) {
    SCOPED_TRACE(megatron);
    // F = 4000 ns, S = 160000 B: C = 1.5 x 160000 / 100 = 2400 ns. Blocking: F + C = 6400.
    nlohmann::json doc = TensorJob(4000, 160000, megatron);
    EXPECT_NEAR(Total(doc), 6400, 1e-6);
    // Overlapped in T = 4 chunks: compute chunks of 1000 ns, collective chunks of 600 ns, chunk
    // j's collective from 1000 (j + 1) to 1000 (j + 1) + 600: the last ends at 4600, one chunk
    // of communication after the compute.
    doc["workload"]["training"]["overlap"] = {{"tensor_parallel", true}};
    const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
    EXPECT_NEAR(report.iteration.total_ns, 4600, 1e-6);
    EXPECT_NEAR(report.iteration.ComputeNs(), 4000, 1e-6);
    // The collectives' own time is the same bytes: 4 chunks of 600 ns.
    EXPECT_NEAR(report.iteration.forward_comm_ns, 2400, 1e-6);
  }
}

TEST(OverlapScenario, TensorParallelOverlapDoesNotHideACollectiveLongerThanItsGemm) {
  for (const bool megatron : {false, true}) {
    SCOPED_TRACE(megatron);
    // S = 480000 B: C = 7200 ns, chunks of 1800 ns. Blocking: 4000 + 7200 = 11200.
    nlohmann::json doc = TensorJob(4000, 480000, megatron);
    EXPECT_NEAR(Total(doc), 11200, 1e-6);
    // Overlapped: the collectives run back to back from the first compute chunk's end,
    // 1000 + 4 x 1800 = 8200: the compute hides all but one chunk of itself, and the
    // communication's excess over the compute, 7200 - 4000, stays exposed.
    doc["workload"]["training"]["overlap"] = {{"tensor_parallel", true}};
    EXPECT_NEAR(Total(doc), 8200, 1e-6);
  }
}

// Two layers on two pipeline stages (a Ring of 2 at 100 GB/s), GPipe over 2 micro-batches:
// each layer f = 2000 ns forward and b = 3000 ns input gradients per micro-batch (measured
// times are per iteration: 4000 and 6000), its output 50,000 elements x 2 bytes per sample, one
// sample per micro-batch: every send moves 100,000 B in s = 1000 ns.
nlohmann::json PipelineJob() {
  nlohmann::json layer = {{"params", 0},           {"forward_ns", 4000},
                          {"input_grad_ns", 6000}, {"weight_grad_ns", 0},
                          {"output_elements_per_sample", 50000}};
  nlohmann::json a = layer, b = layer;
  a["name"] = "a";
  b["name"] = "b";
  return {{"topology", {{"dimensions", {Ring(2)}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "two-stage"}, {"layers", {a, b}}}},
              {"global_batch_samples", 2},
              {"parallelism",
               {{"pipeline", 2}, {"micro_batches", 2}, {"pipeline_schedule", "gpipe"}}}}}}}};
}

TEST(OverlapScenario, BlockingPipelineSendsHoldTheStage) {
  // Overlapped (posted ahead; today's graph, and the string forms'): stage 0 forwards 0..2000
  // and 2000..4000, its sends run 2000..3000 and 4000..5000; stage 1 forwards 3000..5000 and
  // 5000..7000, then its backwards 7000..10000 and 10000..13000, sending the gradients
  // 10000..11000 and 13000..14000; stage 0's backwards 11000..14000 and 14000..17000.
  // 3f + 2s + 3b = 6000 + 2000 + 9000.
  nlohmann::json doc = PipelineJob();
  EXPECT_NEAR(Total(doc), 17000, 1e-6);
  doc["workload"]["training"]["overlap"] = {{"pipeline_sends", true}};
  EXPECT_NEAR(Total(doc), 17000, 1e-6);
  // Blocking (Megatron without overlap_p2p_comm, and its default for a non-interleaved
  // schedule): a receive is posted when its stage reaches the step, and the stage's next
  // compute waits for the send it issued. Stage 0: F0 0..2000, send 2000..3000, F1 3000..5000
  // (after the send), send 5000..6000 (stage 1 posts that receive when its F0, 3000..5000, is
  // done). Stage 1: F1 6000..8000, B0 8000..11000, its gradient to stage 0 (posted at 5000)
  // 11000..12000, B1 waits for that send: 12000..15000, its gradient 15000..16000 (stage 0
  // posted it once its B0, 12000..15000, was done). Stage 0's B1 16000..19000:
  // 3f + 4s + 3b.
  doc["workload"]["training"]["overlap"] = nlohmann::json::object();
  EXPECT_NEAR(Total(doc), 19000, 1e-6);
  doc["workload"]["training"]["overlap"] = {{"pipeline_sends", false}};
  EXPECT_NEAR(Total(doc), 19000, 1e-6);
}

// ZeRO-1 over 4 data-parallel ranks (a Ring of 4 at 100 GB/s): two layers of 1000 ns forward,
// 1000 ns input gradients and 1000 ns weight gradients, 300,000 parameters each (2-byte
// gradients and parameters): each layer's gradients are reduce-scattered (600,000 B in
// 3/4 x 600000 / 100 = 4500 ns) and its updated parameters all-gathered (the same 4500 ns).
nlohmann::json ShardedJob() {
  nlohmann::json layer = {{"params", 300000},
                          {"forward_ns", 1000},
                          {"input_grad_ns", 1000},
                          {"weight_grad_ns", 1000}};
  nlohmann::json a = layer, b = layer;
  a["name"] = "a";
  b["name"] = "b";
  return {{"topology", {{"dimensions", {Ring(4)}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "sharded"}, {"layers", {a, b}}}},
              {"global_batch_samples", 4},
              {"parallelism", {{"data", 4}, {"order", {"tensor", "data"}}, {"zero_stage", 1}}}}}}}};
}

TEST(OverlapScenario, ParameterGathersOverlapTheNextForward) {
  // Blocking: compute 6000, both reduce-scatters after the last backward (Megatron's
  // finalize), then both gathers: 6000 + 4 x 4500 = 24000.
  nlohmann::json doc = ShardedJob();
  EXPECT_NEAR(Total(doc), 24000, 1e-6);
  // Overlapped: the gathers run at the start, a's 0..4500 and b's 4500..9000; a's forward waits
  // for a's: 4500..5500, b's for b's: 9000..10000; backwards 10000..14000, then the two
  // reduce-scatters 14000..23000. The gather of b hides behind a's forward only in part.
  doc["workload"]["training"]["overlap"] = {{"parameter_gather", true}};
  EXPECT_NEAR(Total(doc), 23000, 1e-6);
  // With the gradients overlapped too: b's reduce-scatter runs from b's weight gradients
  // (12000) to 16500, a's from 16500 to 21000.
  doc["workload"]["training"]["overlap"] = {{"parameter_gather", true}, {"gradients", true}};
  EXPECT_NEAR(Total(doc), 21000, 1e-6);
}

TEST(OverlapScenario, AnalyticalAndFlowEnginesAgreeOnEachOverlap) {
  auto agree = [](const nlohmann::json& doc) {
    const Scenario scenario = ParseOrDie(doc);
    const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
    const double flow = FlowEngine().Run(scenario).iteration.total_ns;
    EXPECT_NEAR(flow, analytical, 1e-6 * analytical);
  };
  for (const bool megatron : {false, true}) {
    nlohmann::json doc = TensorJob(4000, 480000, megatron);
    doc["workload"]["training"]["overlap"] = {{"tensor_parallel", true}};
    agree(doc);
  }
  for (const bool sends : {false, true}) {
    nlohmann::json doc = PipelineJob();
    doc["workload"]["training"]["overlap"] = {{"pipeline_sends", sends}};
    agree(doc);
  }
  nlohmann::json doc = ShardedJob();
  doc["workload"]["training"]["overlap"] = {{"parameter_gather", true}, {"gradients", true}};
  agree(doc);
}

TEST(OverlapScenario, TensorParallelOverlapRunsBesideRingAttention) {
  // GPT-2 small at tensor 2 x context 2 (two Rings of 2): the blocks' attention cores run as
  // ring attention, their other compute in chunks beside the tensor collectives. Faster than
  // blocking, by no more than the blocking forward and input-gradient communication, and by
  // the same on both engines (which time ring attention's hops about 2 % apart already without
  // overlap: the flow engine shares links the analytical engine prices apart).
  nlohmann::json doc = {
      {"topology", {{"dimensions", {Ring(2), Ring(2)}}}},
      {"workload",
       {{"training",
         {{"model", "gpt2_small"},
          {"global_batch_samples", 1},
          {"parallelism", {{"tensor", 2}, {"context", 2}}}}}}}};
  const Report blocking = AnalyticalEngine().Run(ParseOrDie(doc));
  const double flow_blocking = FlowEngine().Run(ParseOrDie(doc)).iteration.total_ns;
  doc["workload"]["training"]["overlap"] = {{"tensor_parallel", true}};
  const Scenario scenario = ParseOrDie(doc);
  const double overlapped = AnalyticalEngine().Run(scenario).iteration.total_ns;
  EXPECT_LT(overlapped, blocking.iteration.total_ns);
  EXPECT_GE(overlapped, blocking.iteration.total_ns - blocking.iteration.forward_comm_ns -
                            blocking.iteration.input_grad_comm_ns - 1e-6);
  const double saved = blocking.iteration.total_ns - overlapped;
  const double flow_saved = flow_blocking - FlowEngine().Run(scenario).iteration.total_ns;
  EXPECT_NEAR(flow_saved, saved, 0.01 * saved);
}

TEST(OverlapScenario, StringsKeepTheirMeaningAndTheObjectIsEchoed) {
  // "backward" is the object with gradients only (and sends overlapped, as they always were).
  nlohmann::json doc = ShardedJob();
  doc["workload"]["training"]["overlap"] = "backward";
  const Scenario named = ParseOrDie(doc);
  EXPECT_EQ(named.training.config.overlap, OverlapMode::kBackward);
  EXPECT_EQ(named.training.config.overlap_options, OverlapOptions{});
  EXPECT_EQ(ScenarioToJson(named)["workload"]["training"]["overlap"], "backward");
  doc["workload"]["training"]["overlap"] = {{"gradients", true}, {"pipeline_sends", true}};
  EXPECT_EQ(Total(doc), AnalyticalEngine().Run(named).iteration.total_ns);
  // The object is echoed whole, with Megatron's defaults filled in, and reads back the same.
  doc["workload"]["training"]["overlap"] = {{"tensor_parallel", false}};
  const Scenario object = ParseOrDie(doc);
  const nlohmann::json echoed = ScenarioToJson(object)["workload"]["training"]["overlap"];
  EXPECT_EQ(echoed, (nlohmann::json{{"gradients", false},
                                    {"parameter_gather", false},
                                    {"tensor_parallel", false},
                                    {"pipeline_sends", false},
                                    {"expert_all_to_all", false}}));
  EXPECT_EQ(ScenarioToJson(ParseOrDie(ScenarioToJson(object))), ScenarioToJson(object));
  // Megatron overlaps pipeline sends by default under the interleaved schedule only.
  nlohmann::json interleaved = PipelineJob();
  nlohmann::json& layers = interleaved["workload"]["training"]["model"]["layers"];
  for (const char* name : {"c", "d"}) {
    nlohmann::json more = layers[0];
    more["name"] = name;
    layers.push_back(more);
  }
  interleaved["workload"]["training"]["parallelism"] = {
      {"pipeline", 2}, {"micro_batches", 2}, {"pipeline_schedule", "interleaved"},
      {"virtual_stages", 2}};
  interleaved["workload"]["training"]["overlap"] = nlohmann::json::object();
  EXPECT_TRUE(ParseOrDie(interleaved).training.config.overlap_options.pipeline_sends);
}

TEST(OverlapScenario, BadOverlapsAreRefusedAtTheirPath) {
  nlohmann::json doc = ShardedJob();
  doc["workload"]["training"]["overlap"] = {{"tensor", true}};
  ExpectLoadError(doc, "workload.training.overlap.tensor", "tensor_parallel");
  doc["workload"]["training"]["overlap"] = {{"gradients", "yes"}};
  ExpectLoadError(doc, "workload.training.overlap.gradients", "");
  doc["workload"]["training"]["overlap"] = 1;
  ExpectLoadError(doc, "workload.training.overlap", "an object of booleans");
  doc["workload"]["training"]["overlap"] = "forward";
  ExpectLoadError(doc, "workload.training.overlap", "\"backward\"");
  // Megatron overlaps expert all-to-alls only under expert parallelism (this job has none).
  doc["workload"]["training"]["overlap"] = {{"expert_all_to_all", true}};
  ExpectLoadError(doc, "workload.training.overlap.expert_all_to_all", "expert model parallelism");
}

}  // namespace
}  // namespace hfsim
