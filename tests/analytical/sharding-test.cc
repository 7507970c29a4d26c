// Data-parallel sharding and gradient buckets ("parallelism": {"zero_stage", "bucket_MiB",
// "prefetch"}), against closed forms: ZeRO-3 moves 3 (n - 1)/n of each layer's share per step
// on the data dimension (two parameter gathers and a gradient reduce-scatter), ZeRO-1/2 the
// same bytes as DDP's all-reduce; buckets keep every byte and merge the collectives as worked
// out by hand; prefetched gathers hide behind compute exactly as the hand-played timeline says.
// Every combination that cannot run is refused at its key.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

nlohmann::json& Parallelism(nlohmann::json& doc) {
  return doc["workload"]["training"]["parallelism"];
}

// gpt2_small, tensor 4 on the Ring of 4 (dimension 0), data 8 on the Switch of 8 (dimension 1):
// every data-parallel byte crosses dimension 1. Each layer's share is ceil(params / 4).
double DataBytesPerNpu(const nlohmann::json& doc) {
  return AnalyticalEngine().Run(ParseOrDie(doc)).dimensions[1].traffic_bytes_per_npu;
}

double SumOfShares() {
  double sum = 0.0;
  const Model model = *BuildZooModel("gpt2_small");
  for (const Layer& layer : model.layers) {
    sum += static_cast<double>((layer.params + 3) / 4);
  }
  return sum;
}

TEST(Sharding, ZeroThreeMovesThreeSharesPerStep) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const double share = 7.0 / 8.0 * SumOfShares();  // (n - 1)/n of every layer's share
  EXPECT_DOUBLE_EQ(DataBytesPerNpu(doc), 2 * 2 * share);  // DDP: all-reduce of 2-byte gradients
  Parallelism(doc)["zero_stage"] = 3;
  EXPECT_DOUBLE_EQ(DataBytesPerNpu(doc), 3 * 2 * share);  // gather, gather, reduce-scatter
  // Gathered in 4-byte parameters, reduced in 2-byte gradients.
  doc["workload"]["training"]["parameter_bytes_per_param"] = 4;
  EXPECT_DOUBLE_EQ(DataBytesPerNpu(doc), (4 + 4 + 2) * share);
  Parallelism(doc)["prefetch"] = false;  // same bytes, later
  EXPECT_DOUBLE_EQ(DataBytesPerNpu(doc), (4 + 4 + 2) * share);
}

TEST(Sharding, ZeroOneAndTwoMoveWhatTheAllReduceMoved) {
  nlohmann::json doc = test::BaseTrainingScenario();
  const double ddp = DataBytesPerNpu(doc);
  for (int stage : {1, 2}) {
    Parallelism(doc)["zero_stage"] = stage;
    const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
    EXPECT_DOUBLE_EQ(report.dimensions[1].traffic_bytes_per_npu, ddp) << stage;
    uint64_t scatters = 0, gathers = 0, all_reduces = 0;
    for (const CollectiveReport& c : report.collectives) {
      if (c.group != "data") continue;
      scatters += c.kind == CollectiveKind::kReduceScatter ? c.occurrences : 0;
      gathers += c.kind == CollectiveKind::kAllGather ? c.occurrences : 0;
      all_reduces += c.kind == CollectiveKind::kAllReduce ? c.occurrences : 0;
    }
    EXPECT_EQ(all_reduces, 0u);
    EXPECT_EQ(scatters, gathers);
    size_t with_params = 0;
    const Model model = *BuildZooModel("gpt2_small");
    for (const Layer& layer : model.layers) with_params += layer.params > 0;
    EXPECT_EQ(scatters, with_params);  // one of each per layer with parameters
  }
}

// Ten layers of 512 Ki parameters (1 MiB of 2-byte gradients each) in buckets of 3 MiB: in
// backward order layers 9-7, 6-4 and 3-1 fill a bucket each, layer 0 is the last, short one.
TEST(Sharding, BucketsMergeGradientsInBackwardOrder) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 10; ++i) {
    std::string name = "l";
    name += std::to_string(i);
    layers.push_back({{"name", name}, {"params", 512 * 1024},
                      {"forward_ns", 1000}, {"input_grad_ns", 1000}, {"weight_grad_ns", 1000}});
  }
  nlohmann::json doc = {
      {"topology", {{"dimensions", {{{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 50},
                                     {"latency_ns", 1000}}}}}},
      {"workload", {{"training", {{"model", {{"name", "ten"}, {"layers", layers}}},
                                  {"global_batch_samples", 4},
                                  {"parallelism", {{"data", 4}}}}}}}};
  const Report plain = AnalyticalEngine().Run(ParseOrDie(doc));
  Parallelism(doc)["bucket_MiB"] = 3;
  const Scenario scenario = ParseOrDie(doc);
  const Report bucketed = AnalyticalEngine().Run(scenario);
  EXPECT_DOUBLE_EQ(bucketed.dimensions[0].traffic_bytes_per_npu,
                   plain.dimensions[0].traffic_bytes_per_npu);
  std::map<uint64_t, uint64_t> sizes;  // bytes -> collectives
  for (const CollectiveReport& c : bucketed.collectives) sizes[c.size_bytes] += c.occurrences;
  EXPECT_EQ(sizes, (std::map<uint64_t, uint64_t>{{1 << 20, 1}, {3 << 20, 3}}));
  // Echoed back exactly.
  EXPECT_EQ(ParseOrDie(ScenarioToJson(scenario)).training.config.bucket_bytes, 3u << 20);
}

// Three layers on 2 NPUs (one Switch, no latency), ZeRO-3, gradients reduced on the main
// stream. Per layer: forward F, backward Bi + Bw, a parameter gather G and a gradient
// reduce-scatter R (priced as lone collectives). Without prefetch every gather waits:
// 3 (2G + F + Bi + Bw + R). With prefetch (G below F and below Bi + Bw + R) only the first
// gather of each pass shows: 2G + 3 (F + Bi + Bw + R).
TEST(Sharding, PrefetchedGathersHideBehindCompute) {
  const uint64_t params = 1 << 20, bytes = 2 * params;  // 2 MiB of parameters per layer
  const double f = 500'000, bi = 300'000, bw = 200'000;
  nlohmann::json dims = {{{"kind", "Switch"}, {"size", 2}, {"bandwidth_GBps", 50}, {"latency_ns", 0}}};
  auto lone = [&](const std::string& kind) {
    return AnalyticalEngine()
        .Run(ParseOrDie(test::CollectiveScenario(dims, kind, bytes)))
        .iteration.total_ns;
  };
  const double g = lone("all_gather"), r = lone("reduce_scatter");
  ASSERT_LT(g, f);
  ASSERT_LT(g, bi + bw + r);
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) {
    std::string name = "l";
    name += std::to_string(i);
    layers.push_back({{"name", name}, {"params", params}, {"forward_ns", f},
                      {"input_grad_ns", bi}, {"weight_grad_ns", bw}});
  }
  nlohmann::json doc = {
      {"topology", {{"dimensions", dims}}},
      {"workload", {{"training", {{"model", {{"name", "three"}, {"layers", layers}}},
                                  {"global_batch_samples", 2},
                                  {"parallelism", {{"data", 2}, {"zero_stage", 3}}}}}}}};
  EXPECT_NEAR(AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns,
              2 * g + 3 * (f + bi + bw + r), 1e-6);
  Parallelism(doc)["prefetch"] = false;
  EXPECT_NEAR(AnalyticalEngine().Run(ParseOrDie(doc)).iteration.total_ns,
              3 * (2 * g + f + bi + bw + r), 1e-6);
}

TEST(Sharding, ZeroOneAndBucketsInAPipeline) {
  nlohmann::json doc = test::BaseTrainingScenario();  // 32 NPUs: tensor 4 x data 2 x pipeline 4
  Parallelism(doc) = {{"tensor", 4}, {"data", 2}, {"pipeline", 4}, {"micro_batches", 4}};
  const double ddp = AnalyticalEngine().Run(ParseOrDie(doc)).total_traffic_bytes;
  Parallelism(doc)["zero_stage"] = 1;
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(ParseOrDie(doc)).total_traffic_bytes, ddp);
  Parallelism(doc)["bucket_MiB"] = 40;
  const Report bucketed = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_DOUBLE_EQ(bucketed.total_traffic_bytes, ddp);
  doc["workload"]["training"]["overlap"] = "backward";
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(ParseOrDie(doc)).total_traffic_bytes, ddp);
}

TEST(Sharding, CombinationsThatCannotRunAreRefusedAtTheirKey) {
  const std::string at = "workload.training.parallelism";
  nlohmann::json doc = test::BaseTrainingScenario();
  Parallelism(doc) = {{"data", 1}, {"tensor", 32}, {"zero_stage", 1}};
  ExpectLoadError(doc, at + ".zero_stage", "data is 1");

  doc = test::BaseTrainingScenario();
  Parallelism(doc) = {{"tensor", 4}, {"data", 2}, {"pipeline", 4}, {"micro_batches", 4},
                      {"zero_stage", 2}};
  ExpectLoadError(doc, at + ".zero_stage", "accepted with a pipeline: 0 or 1");

  doc = test::BaseTrainingScenario();
  Parallelism(doc)["zero_stage"] = 3;
  Parallelism(doc)["bucket_MiB"] = 25;
  ExpectLoadError(doc, at + ".bucket_MiB", "buckets apply to zero_stage 0 to 2");

  doc = test::BaseTrainingScenario();
  Parallelism(doc)["zero_stage"] = 4;
  ExpectLoadError(doc, at + ".zero_stage", "3");

  doc = test::BaseTrainingScenario();
  Parallelism(doc)["prefetch"] = true;
  ExpectLoadError(doc, at + ".prefetch", "zero_stage is 0");

  doc = test::BaseTrainingScenario();
  Parallelism(doc)["bucket_MiB"] = 0;
  ExpectLoadError(doc, at + ".bucket_MiB", "0");

  doc = test::BaseTrainingScenario();
  doc["workload"]["training"]["parameter_bytes_per_param"] = 0;
  ExpectLoadError(doc, "workload.training.parameter_bytes_per_param", "1");
}

// ZeRO-1 reduce-scatters every layer's gradients over the data group, and sequence parallelism
// all-gathers activations over the tensor group: an algorithm that cannot run those is refused
// at load, at its JSON path, as an all-reduce's is. (The loader used to check only the
// all-reduces a data x tensor job was assumed to run, so these passed it and failed in the
// engine with exit 1: issue 33, point 10.)
TEST(Sharding, AnAlgorithmThatCannotRunTheShardedCollectivesIsRefusedAtLoad) {
  nlohmann::json doc = test::BaseTrainingScenario();
  Parallelism(doc)["zero_stage"] = 1;
  doc["communication"]["algorithms"]["reduce_scatter"] = "double_binary_tree";
  ExpectLoadError(doc, "communication.algorithms.reduce_scatter",
                  "\"double_binary_tree\" cannot run the reduce_scatter stage of the "
                  "reduce_scatter over the data group on dimension 1 (Switch)");
  doc = test::BaseTrainingScenario();
  Parallelism(doc)["sequence_parallel"] = true;
  doc["communication"]["algorithms"]["all_gather"] = {"double_binary_tree", "ring"};
  ExpectLoadError(doc, "communication.algorithms.all_gather[0]",
                  "cannot run the all_gather stage of the all_gather over the tensor group");
  // What these groups run with algorithms that can: accepted.
  doc["communication"]["algorithms"]["all_gather"] = "halving_doubling";
  EXPECT_TRUE(ParseScenario(doc)) << ParseScenario(doc).Error().ToString();
}

// ZeRO-2 and -3 shard gradients, which nothing accumulates without a pipeline (one stage, one
// micro-batch). Once the parallelism named "order", "placement", "context" or even
// "expert": 1, such a job was refused as if it had a pipeline (issue 33, point 4). Here each
// of those keys places the ranks exactly as the dimension lists do (tensor on the Ring, data on
// the Switch), and with overlap both program forms time a job alike (stage-program.h), so each
// must cost what the dimension lists cost.
TEST(Sharding, ZeroTwoAndThreeRunWithoutAPipelineWhateverTheLayoutKeys) {
  std::vector<uint32_t> in_place(32);
  std::iota(in_place.begin(), in_place.end(), 0u);
  const std::vector<std::pair<std::string, nlohmann::json>> keys = {
      {"order", {"tensor", "data"}}, {"placement", in_place}, {"expert", 1}};
  for (const int stage : {2, 3}) {
    nlohmann::json lists = test::BaseTrainingScenario();
    lists["workload"]["training"]["overlap"] = "backward";
    Parallelism(lists)["zero_stage"] = stage;
    const Report expected = AnalyticalEngine().Run(ParseOrDie(lists));
    for (const auto& [key, value] : keys) {
      SCOPED_TRACE(key + " with ZeRO-" + std::to_string(stage));
      nlohmann::json doc = lists;
      Parallelism(doc)[key] = value;
      auto parsed = ParseScenario(doc);
      ASSERT_TRUE(parsed) << parsed.Error().ToString();
      const Report report = AnalyticalEngine().Run(parsed.Value());
      EXPECT_NEAR(report.iteration.total_ns, expected.iteration.total_ns,
                  1e-12 * expected.iteration.total_ns);
      EXPECT_DOUBLE_EQ(report.iteration.ComputeNs(), expected.iteration.ComputeNs());
      EXPECT_DOUBLE_EQ(report.dimensions[1].traffic_bytes_per_npu,
                       expected.dimensions[1].traffic_bytes_per_npu);
    }
  }
}

// The same with context parallelism, whose ranks hold the same parameters as the data ranks:
// tensor 4 on the Ring, context 2 x data 4 on the Switch, so ZeRO shards over 8 ranks there.
// By the closed forms above, ZeRO-2 moves on the data group what the all-reduce moved, and
// ZeRO-3 half as much again (two gathers and a reduce-scatter of the same shares).
TEST(Sharding, ZeroTwoAndThreeRunWithContextParallelism) {
  auto data_group_bytes = [](int stage) {
    nlohmann::json doc = test::BaseTrainingScenario();
    Parallelism(doc) = {{"tensor", 4}, {"context", 2}, {"data", 4}, {"zero_stage", stage}};
    auto parsed = ParseScenario(doc);
    EXPECT_TRUE(parsed) << parsed.Error().ToString();
    if (!parsed) return 0.0;
    double bytes = 0.0;
    for (const CollectiveReport& c : AnalyticalEngine().Run(parsed.Value()).collectives) {
      if (c.group == "data") bytes += c.dimension_traffic_bytes[1] * c.occurrences;
    }
    return bytes;
  };
  const double all_reduce = data_group_bytes(0);
  EXPECT_GT(all_reduce, 0.0);
  EXPECT_DOUBLE_EQ(data_group_bytes(2), all_reduce);
  EXPECT_DOUBLE_EQ(data_group_bytes(3), 1.5 * all_reduce);
}

}  // namespace
}  // namespace hfsim
