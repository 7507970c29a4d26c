// The gossip workload: the analytical price of its exchanges against a hand-computed closed form,
// the loader's errors (each naming its JSON path), the echo round trip, and the S3 config's shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// Two workers on a 2-NPU Switch at 12.5 GB/s and 1000 ns per hop, push-sum exchanging after every
// step, 10^6-byte exchanges, 1 ms of compute per step.
nlohmann::json TwoWorkers() {
  return nlohmann::json::parse(R"({
    "topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 12.5, "latency_ns": 1000}]},
    "workload": {"gossip": {
      "workers": [0, 1], "rule": "push_sum", "trigger": {"kind": "fixed", "period_steps": 1},
      "steps": 20, "batch": 8, "model_bytes": 1000000, "step_compute_ns": 1000000,
      "eval_every_steps": 5, "task": {"train_samples": 256, "test_samples": 64}}}
  })");
}

TEST(GossipAnalytical, ExchangesMatchTheHandComputedClosedForm) {
  const Report report = AnalyticalEngine().Run(ParseOrDie(TwoWorkers()));
  ASSERT_TRUE(report.gossip.has_value());
  const GossipReport& g = *report.gossip;
  // Every step both workers push one message: 0 -> 1 and 1 -> 0. Each crosses its sender's
  // up-link and its receiver's down-link, one message per link: 10^6 B / 12.5 B/ns = 80,000 ns,
  // plus 2 hops x 1000 ns. So a step is 1,000,000 + 82,000 ns, and 20 steps 21,640,000 ns.
  EXPECT_EQ(g.messages, 40u);
  EXPECT_EQ(g.total_bytes, 40'000'000u);
  EXPECT_DOUBLE_EQ(g.compute_ns, 20'000'000.0);
  EXPECT_NEAR(g.exchange_ns, 20 * 82'000.0, 1e-6);
  EXPECT_NEAR(g.total_ns, 21'640'000.0, 1e-6);
  EXPECT_NEAR(report.iteration.total_ns, 1'082'000.0, 1e-6);
  // Evaluations after steps 5, 10, 15, 20: their times and bytes follow the same steps.
  ASSERT_EQ(g.evaluations.size(), 4u);
  EXPECT_NEAR(g.evaluations[1].time_ns, 10 * 1'082'000.0, 1e-6);
  EXPECT_EQ(g.evaluations[1].bytes, 20'000'000u);
  // The per-dimension traffic: every message crosses dimension 0; per step and NPU, 10^6 B.
  ASSERT_EQ(report.dimensions.size(), 1u);
  EXPECT_NEAR(report.dimensions[0].traffic_bytes_per_npu, 1e6, 1e-6);
}

TEST(GossipAnalytical, IncastOnTheElasticCentreIsPriced) {
  nlohmann::json doc = TwoWorkers();
  doc["topology"]["dimensions"][0]["size"] = 5;
  auto& g = doc["workload"]["gossip"];
  g["workers"] = {0, 1, 2, 3};
  g["rule"] = "elastic";
  g["server"] = 4;
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  // Every step the 4 workers each send to the centre (its down-link carries 4 x 10^6 B) and the
  // centre answers each (its up-link carries 4 x 10^6 B): one phase of 320,000 + 2,000 ns.
  EXPECT_EQ(report.gossip->messages, 20u * 8);
  EXPECT_NEAR(report.gossip->exchange_ns, 20 * 322'000.0, 1e-6);
}

TEST(GossipLoader, ErrorsNameThePathAndWhatIsAccepted) {
  const std::string g = "workload.gossip";
  auto with = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = TwoWorkers();
    edit(doc["workload"]["gossip"]);
    return doc;
  };
  ExpectLoadError(with([](auto& s) { s["workers"] = {0}; }), g + ".workers", "2");
  ExpectLoadError(with([](auto& s) { s["workers"] = {0, 0}; }), g + ".workers[1]", "listed twice");
  ExpectLoadError(with([](auto& s) { s["workers"] = {0, 2}; }), g + ".workers[1]", "2");
  ExpectLoadError(with([](auto& s) { s["rule"] = "flood"; }), g + ".rule", "push_sum");
  ExpectLoadError(with([](auto& s) { s["rule"] = "elastic"; }), g + ".server", "missing");
  ExpectLoadError(with([](auto& s) { s["server"] = 1; }), g + ".server", "elastic");
  ExpectLoadError(with([](auto& s) { s["model"] = "resnet50"; }), g, "exactly one of");
  ExpectLoadError(with([](auto& s) {
                s.erase("model_bytes");
                s["model"] = "resnet5000";
              }),
              g + ".model", "unknown model");
  ExpectLoadError(with([](auto& s) { s["trigger"] = {{"kind", "adaptive"}, {"policy", "sometimes"}}; }),
              g + ".trigger.policy", "lr_proportional");
  ExpectLoadError(with([](auto& s) { s["trigger"] = {{"kind", "fixed"}, {"period_steps", 0}}; }),
              g + ".trigger.period_steps", "1");
  ExpectLoadError(with([](auto& s) { s["target_accuracy"] = 1.5; }), g + ".target_accuracy", "1");
  ExpectLoadError(with([](auto& s) { s["learning_rate"] = {{"schedule", "step"}, {"factor", 0}}; }),
              g + ".learning_rate.factor", "0");
  ExpectLoadError(with([](auto& s) {
                s["steps"] = 100000;
                s["batch"] = 4096;
              }),
              g, "in-process");
  nlohmann::json aggregation = TwoWorkers();
  aggregation["aggregation"] = nlohmann::json::object();
  ExpectLoadError(aggregation, "aggregation", "gossip");
  nlohmann::json optimize = TwoWorkers();
  optimize["optimize"] = nlohmann::json::object();
  ExpectLoadError(optimize, "optimize", "gossip");
  nlohmann::json chunks = TwoWorkers();
  chunks["communication"] = {{"chunks", 4}};
  ExpectLoadError(chunks, "communication.chunks", "gossip");
}

TEST(GossipLoader, FewerSamplesThanWorkersAndHugePacketRunsAreRefused) {
  nlohmann::json few = TwoWorkers();
  few["workload"]["gossip"]["task"] = {{"train_samples", 1}, {"test_samples", 64}};
  ExpectLoadError(few, "workload.gossip.task.train_samples", "2 workers");
  // 20 steps x 2 workers x 2^40 B = 4.4e13 B > 2 TiB at packet level; fine analytically.
  nlohmann::json huge = TwoWorkers();
  huge["workload"]["gossip"]["model_bytes"] = uint64_t{1} << 40;
  EXPECT_TRUE(ParseScenario(huge));
  huge["engine"] = "packet";
  ExpectLoadError(huge, "workload.gossip", "2 TiB");
}

// `hfsim run --seed N` changes scenario.seed after loading: the learning must follow it.
TEST(GossipAnalytical, TheSeedAtRunTimeSeedsTheTaskAndTheWorkers) {
  Scenario reseeded = ParseOrDie(TwoWorkers());
  reseeded.seed = 9;
  nlohmann::json doc = TwoWorkers();
  doc["seed"] = 9;
  const GossipReport a = *AnalyticalEngine().Run(reseeded).gossip;
  const GossipReport b = *AnalyticalEngine().Run(ParseOrDie(doc)).gossip;
  ASSERT_EQ(a.evaluations.size(), b.evaluations.size());
  for (size_t i = 0; i < a.evaluations.size(); ++i) {
    EXPECT_EQ(a.evaluations[i].mean_model_accuracy, b.evaluations[i].mean_model_accuracy);
  }
  const GossipReport one = *AnalyticalEngine().Run(ParseOrDie(TwoWorkers())).gossip;
  bool differs = false;
  for (size_t i = 0; i < a.evaluations.size(); ++i) {
    differs = differs || a.evaluations[i].mean_model_accuracy != one.evaluations[i].mean_model_accuracy;
  }
  EXPECT_TRUE(differs);
}

TEST(GossipLoader, EchoRoundTripsEveryKey) {
  const Scenario scenario = ParseOrDie(TwoWorkers());
  const nlohmann::json echo = ScenarioToJson(scenario);
  const Scenario again = ParseOrDie(echo);
  EXPECT_EQ(ScenarioToJson(again), echo);
  EXPECT_EQ(again.gossip.spec.model_bytes, 1'000'000u);
  EXPECT_EQ(again.gossip.worker_npus, (std::vector<uint32_t>{0, 1}));
}

TEST(GossipS3Config, AdaptiveSendsFarLessThanEveryStepAtTheSameAccuracy) {
  auto loaded = LoadScenarioFile(HFSIM_SOURCE_DIR "/configs/s3-gossip-adaptive.json");
  ASSERT_TRUE(loaded) << loaded.Error().ToString();
  Scenario adaptive = std::move(loaded).Value();
  EXPECT_EQ(adaptive.gossip.spec.model_bytes, 4u * 25'557'032u);  // ResNet-50's fp32 parameters
  Scenario every_step = adaptive;
  every_step.gossip.spec.trigger = ExchangeTrigger{};
  every_step.gossip.spec.trigger.period = 1;
  const GossipReport a = *AnalyticalEngine().Run(adaptive).gossip;
  const GossipReport f = *AnalyticalEngine().Run(every_step).gossip;
  EXPECT_LT(a.total_bytes, f.total_bytes / 10);  // S3 reports -92 % traffic
  EXPECT_LT(a.total_ns, 0.7 * f.total_ns);       // and -52 % time
  EXPECT_GE(a.final_accuracy, f.final_accuracy - 0.01);
  EXPECT_TRUE(a.reached_target.has_value());
}

}  // namespace
}  // namespace hfsim
