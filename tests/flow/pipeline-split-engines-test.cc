// workload.training.parallelism.pipeline_split across the loader and the three engines: the
// split read, echoed and refused at its JSON path (each rule's problem at the key that breaks
// it), and an iteration timed by hand where Megatron's uniform split leaves the heavy last row
// (an LM head) on a stage with as many other rows as the rest, so it runs slower than hfsim's
// balanced cut: on the analytical, flow and packet engines alike (they share the graph).
#include <gtest/gtest.h>

#include <string>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// Two NPUs, pipeline 2, tensor 1, data 1, 2 micro-batches of 1 sample, 1F1B. Eight rows timed
// per iteration (so per micro-batch half of it), no parameters (no gradient collectives) and no
// output (free sends): seven of forward 2,000 and input gradients 4,000 ns (f = 1,000 and
// b = 2,000 per micro-batch), and a "head" five times as heavy (f = 5,000, b = 10,000).
nlohmann::json HeavyHeadJob(const nlohmann::json& split) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 7; ++i) {
    layers.push_back({{"name", "block" + std::to_string(i)},
                      {"params", 0},
                      {"forward_ns", 2000},
                      {"input_grad_ns", 4000}});
  }
  layers.push_back(
      {{"name", "head"}, {"params", 0}, {"forward_ns", 10000}, {"input_grad_ns", 20000}});
  nlohmann::json parallelism = {{"tensor", 1}, {"data", 1}, {"pipeline", 2}, {"micro_batches", 2}};
  if (!split.is_null()) parallelism["pipeline_split"] = split;
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", 2}, {"bandwidth_GBps", 100}, {"latency_ns", 0}}}}}},
          {"workload",
           {{"training",
             {{"model", {{"name", "heavy_head"}, {"layers", layers}}},
              {"global_batch_samples", 2},
              {"parallelism", parallelism}}}}}};
}

// 1F1B on two stages with two micro-batches and free sends, stage s taking f_s forward and
// b_s backward per micro-batch: stage 0 runs F1 F2 B1 B2, stage 1 F1 B1 F2 B2. When stage 1 is
// the slower (f1 + b1 >= f0), it starts at f0 and then never waits: it ends at
// f0 + 2 (f1 + b1), and stage 0's last backward follows: T = f0 + b0 + 2 (f1 + b1).
//   Balanced (rows cut 6 | 2, each stage 18,000 per micro-batch): f0 = 6,000, b0 = 12,000,
//   f1 = 1,000 + 5,000, b1 = 2,000 + 10,000: T = 18,000 + 2 x 18,000 = 54,000 ns
//   (= (m + p - 1)(F + B) for equal stages).
//   Megatron (rows counted, 8 / 2 = 4 | 4): f0 = 4,000, b0 = 8,000, f1 = 3,000 + 5,000,
//   b1 = 6,000 + 10,000: T = 12,000 + 2 x 24,000 = 60,000 ns.
TEST(PipelineSplitEngines, MegatronsUniformSplitIsSlowerWithAHeavyHead) {
  const Scenario balanced = ParseOrDie(HeavyHeadJob(nullptr));
  const Scenario megatron = ParseOrDie(HeavyHeadJob("megatron"));
  const Scenario listed = ParseOrDie(HeavyHeadJob({6, 2}));
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(balanced).iteration.total_ns, 54000.0);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(megatron).iteration.total_ns, 60000.0);
  // The balanced cut, written out, is the same job.
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(listed).iteration.total_ns, 54000.0);
  EXPECT_NEAR(FlowEngine().Run(balanced).iteration.total_ns, 54000.0, 1e-6);
  EXPECT_NEAR(FlowEngine().Run(megatron).iteration.total_ns, 60000.0, 1e-6);
  EXPECT_NEAR(PacketEngine().Run(balanced).iteration.total_ns, 54000.0, 1.0);
  EXPECT_NEAR(PacketEngine().Run(megatron).iteration.total_ns, 60000.0, 1.0);
}

// gpt2_small (embedding, 12 blocks, ln_f with the tied LM head) on 4 stages.
nlohmann::json Gpt2Pipeline() {
  return nlohmann::json::parse(R"({
    "topology": {"dimensions": [{"kind": "Switch", "size": 4, "bandwidth_GBps": 100, "latency_ns": 500}]},
    "workload": {"training": {
      "model": "gpt2_small", "global_batch_samples": 8,
      "parallelism": {"tensor": 1, "data": 1, "pipeline": 4, "micro_batches": 8}}}
  })");
}
nlohmann::json& Parallelism(nlohmann::json& doc) {
  return doc["workload"]["training"]["parallelism"];
}

TEST(PipelineSplitEngines, ReadsAndEchoesEachForm) {
  for (const nlohmann::json& split :
       {nlohmann::json("megatron"), nlohmann::json({2, 4, 4, 2}),
        nlohmann::json::parse(R"({"rule": "megatron", "first_stage_blocks": 2,
                                  "last_stage_blocks": 2})")}) {
    SCOPED_TRACE(split.dump());
    nlohmann::json doc = Gpt2Pipeline();
    Parallelism(doc)["pipeline_split"] = split;
    const Scenario scenario = ParseOrDie(doc);
    const nlohmann::json echo = ScenarioToJson(scenario);
    EXPECT_EQ(echo["workload"]["training"]["parallelism"]["pipeline_split"], split);
    const Scenario again = ParseOrDie(echo);
    EXPECT_EQ(again.training.pipeline.split, scenario.training.pipeline.split);
    EXPECT_EQ(AnalyticalEngine().Run(again).iteration.total_ns,
              AnalyticalEngine().Run(scenario).iteration.total_ns);
  }
  // The default is not written, so balanced scenarios echo as before.
  nlohmann::json doc = Gpt2Pipeline();
  Parallelism(doc)["pipeline_split"] = "balanced";
  EXPECT_FALSE(ScenarioToJson(ParseOrDie(doc))["workload"]["training"]["parallelism"].contains(
      "pipeline_split"));
  // GPT-2 small's head outweighs four blocks: Megatron's 3 blocks a stage leave it on a stage
  // of its own plus three, slower than the balanced cut.
  Parallelism(doc)["pipeline_split"] = "megatron";
  EXPECT_GT(AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns,
            AnalyticalEngine().Run(ParseOrDie(Gpt2Pipeline())).iteration.total_ns);
}

TEST(PipelineSplitEngines, RefusesBadSplitsAtTheirPath) {
  const std::string at = "workload.training.parallelism.pipeline_split";
  auto with = [](const nlohmann::json& split) {
    nlohmann::json doc = Gpt2Pipeline();
    Parallelism(doc)["pipeline_split"] = split;
    return doc;
  };
  ExpectLoadError(with("even"), at, "\"balanced\", \"megatron\"");
  ExpectLoadError(with(3), at, "or a list of transformer blocks per chunk");
  ExpectLoadError(with({3, 3, 3}), at, "lists 3 chunks; the pipeline has 4");
  ExpectLoadError(with({3, 3, 3, 4}), at,
                  "lists 13 blocks in all; model \"gpt2_small\" has 12 transformer blocks");
  ExpectLoadError(with({6, 0, 3, 3}), at + "[1]", "stage 1 would hold no layer");
  ExpectLoadError(with({6, 13, 3, 3}), at + "[1]", "");
  ExpectLoadError(with(nlohmann::json::parse(R"({"account_for_loss": true})")), at + ".rule",
                  "missing");
  ExpectLoadError(with(nlohmann::json::parse(R"({"rule": "megatron", "embedding": true})")),
                  at + ".embedding", "accepted keys here: \"rule\", \"account_for_embedding\"");
  // 12 + 1 = 13 layers over 4 stages.
  ExpectLoadError(
      with(nlohmann::json::parse(R"({"rule": "megatron", "account_for_embedding": true})")), at,
      "12 blocks + the embedding = 13 layers do not divide over 4 stages");
  ExpectLoadError(
      with(nlohmann::json::parse(R"({"rule": "megatron", "first_stage_blocks": 3,
                                     "last_stage_blocks": 2})")),
      at + ".first_stage_blocks", "leaves 7 blocks for the other 2 stages");
  ExpectLoadError(with(nlohmann::json::parse(R"({"rule": "megatron", "account_for_loss": true,
                                                 "last_stage_blocks": 2})")),
                  at + ".last_stage_blocks", "not given with account_for");
  // A layer list marks no embedding or head.
  nlohmann::json doc = HeavyHeadJob(
      nlohmann::json::parse(R"({"rule": "megatron", "account_for_embedding": true})"));
  ExpectLoadError(doc, at + ".account_for_embedding", "has no embedding apart from its blocks");
  // Only with a pipeline.
  doc = HeavyHeadJob("megatron");
  Parallelism(doc)["pipeline"] = 1;
  Parallelism(doc)["data"] = 2;
  ExpectLoadError(doc, at, "applies to a pipeline");
  doc = test::BaseTrainingScenario();
  Parallelism(doc)["pipeline_split"] = "megatron";
  ExpectLoadError(doc, at, "applies to a pipeline");
  // The interleaved schedule: 12 / 4 stages = 3 do not divide into 2 chunks.
  doc = with("megatron");
  Parallelism(doc)["pipeline_schedule"] = "interleaved";
  Parallelism(doc)["virtual_stages"] = 2;
  ExpectLoadError(doc, at, "3 per stage, which do not divide into 2 virtual stages");
}

}  // namespace
}  // namespace hfsim
