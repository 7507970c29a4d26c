// Time to accuracy inside a scenario run (workload.parameter_server.convergence, S5): the steps
// each compression scheme needs on the learning task, times the iteration time the engine priced;
// the loader's errors and echo; Fashion-MNIST from Debian's package as the task.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"
#include "tests/temp-path.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// 8 workers and one server on a Switch at 12.5 GB/s; a dense model of 2^20 fp32 parameters in
// 1 MiB keys; the workers train logistic regression on the synthetic task (separation 2.5, which
// tops out near 91 %) to 80 %, evaluating every 5 steps.
nlohmann::json Scenario8(const nlohmann::json& compression) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "seed": 7,
    "topology": {"dimensions": [{"kind": "Switch", "size": 9, "bandwidth_GBps": 12.5, "latency_ns": 1000}]},
    "workload": {"parameter_server": {"workers": [0, 1, 2, 3, 4, 5, 6, 7], "servers": [8],
      "dense": {"params": 1048576, "bytes_per_param": 4, "partition_bytes": 1048576},
      "worker_compute_ns": 1000000,
      "convergence": {"task": {"separation": 2.5}, "max_steps": 150, "eval_every_steps": 5,
                      "batch": 16, "target_accuracy": 0.80}}}
  })");
  doc["communication"] = {{"compression", compression}};
  return doc;
}

const ConvergenceReport& Converged(const Report& report) {
  EXPECT_TRUE(report.convergence.has_value());
  return *report.convergence;
}

TEST(Convergence, TimeToAccuracyIsStepsToTargetTimesTheIterationTime) {
  const Report report = AnalyticalEngine().Run(ParseOrDie(Scenario8({{"scheme", "none"}})));
  const ConvergenceReport& c = Converged(report);
  EXPECT_EQ(c.scheme, "none");
  EXPECT_EQ(c.workers, 8u);
  EXPECT_EQ(c.evaluations.size(), 30u);  // every 5 of 150 steps
  ASSERT_TRUE(c.reached_target.has_value());
  EXPECT_EQ(c.reached_target->step % 5, 0u);
  EXPECT_GE(c.reached_target->accuracy, 0.80);
  // The evaluation before it was still below the target.
  for (const ConvergenceRow& row : c.evaluations) {
    if (row.step < c.reached_target->step) {
      EXPECT_LT(row.accuracy, 0.80);
    }
  }
  EXPECT_DOUBLE_EQ(c.iteration_ns, report.iteration.total_ns);
  EXPECT_DOUBLE_EQ(c.reached_target->time_ns, c.reached_target->step * report.iteration.total_ns);
}

// S5's premise, measured inside a scenario run: THC's unbiased rounding with error feedback needs
// about as many steps as exact aggregation (within one evaluation), so its faster iterations make
// a faster time to accuracy; top-k keeping 1 % needs more steps.
TEST(Convergence, ThcKeepsTheStepsAndWinsTimeToAccuracyTopKNeedsMoreSteps) {
  const Report none = AnalyticalEngine().Run(ParseOrDie(Scenario8({{"scheme", "none"}})));
  const Report thc = AnalyticalEngine().Run(ParseOrDie(Scenario8({{"scheme", "thc"}})));
  const Report top_k = AnalyticalEngine().Run(
      ParseOrDie(Scenario8({{"scheme", "top_k"}, {"top_k_fraction", 0.01}})));
  const ConvergenceReport& n = Converged(none);
  const ConvergenceReport& t = Converged(thc);
  const ConvergenceReport& k = Converged(top_k);
  ASSERT_TRUE(n.reached_target && t.reached_target && k.reached_target);
  EXPECT_LE(t.reached_target->step, n.reached_target->step + 5);
  EXPECT_GT(k.reached_target->step, n.reached_target->step);
  EXPECT_LT(thc.iteration.total_ns, none.iteration.total_ns);
  EXPECT_LT(t.reached_target->time_ns, n.reached_target->time_ns);
  EXPECT_NEAR(t.final_accuracy, n.final_accuracy, 0.02);
}

TEST(ConvergenceLoader, ErrorsNameThePathAndWhatIsAccepted) {
  const std::string c = "workload.parameter_server.convergence";
  auto with = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = Scenario8({{"scheme", "thc"}});
    edit(doc["workload"]["parameter_server"]["convergence"]);
    return doc;
  };
  ExpectLoadError(with([](auto& s) { s["steps"] = 10; }), c + ".steps", "max_steps");
  ExpectLoadError(with([](auto& s) { s["max_steps"] = 0; }), c + ".max_steps", "1");
  ExpectLoadError(with([](auto& s) { s["target_accuracy"] = 0; }), c + ".target_accuracy", "0");
  ExpectLoadError(with([](auto& s) { s["task"] = {{"kind", "imagenet"}}; }), c + ".task.kind",
              "fashion_mnist");
  ExpectLoadError(with([](auto& s) { s["task"] = {{"kind", "fashion_mnist"}, {"separation", 2}}; }),
              c + ".task.separation", "directory");
  ExpectLoadError(with([](auto& s) { s["task"] = {{"kind", "fashion_mnist"}, {"train_samples", 60001}}; }),
              c + ".task.train_samples", "60000");
  ExpectLoadError(with([](auto& s) {
                s["task"] = {{"kind", "fashion_mnist"}, {"directory", "/nonexistent/fmnist"}};
              }),
              c + ".task.directory", "dataset-fashion-mnist");
  ExpectLoadError(with([](auto& s) { s["classifier"] = {{"kind", "transformer"}}; }),
              c + ".classifier.kind", "mlp");
  ExpectLoadError(with([](auto& s) {
                s["max_steps"] = 100000;
                s["batch"] = 4096;
              }),
              c, "in-process");
  nlohmann::json sparse = Scenario8({{"scheme", "none"}});
  sparse["workload"]["parameter_server"].erase("dense");
  sparse["workload"]["parameter_server"]["sparse"] = {
      {"key_count", 1000}, {"bytes_per_key", 256}, {"lookups_per_worker", 100}};
  ExpectLoadError(sparse, c, "dense");
}

TEST(ConvergenceLoader, FewerSamplesThanWorkersAndFilesThatAreNotIdxAreRefused) {
  const std::string c = "workload.parameter_server.convergence";
  nlohmann::json few = Scenario8({{"scheme", "none"}});
  few["workload"]["parameter_server"]["convergence"]["task"] = {{"train_samples", 7}};
  ExpectLoadError(few, c + ".task.train_samples", "8 workers");
  // Four files that exist but are not IDX: refused at load time, naming the file.
  const std::filesystem::path dir = test::TempPath("hfsim-not-idx");
  std::filesystem::create_directories(dir);
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
    std::ofstream(dir / name) << "not an IDX file at all";
  }
  nlohmann::json bad = Scenario8({{"scheme", "none"}});
  bad["workload"]["parameter_server"]["convergence"]["task"] = {{"kind", "fashion_mnist"},
                                                                {"directory", dir.string()}};
  ExpectLoadError(bad, c + ".task.directory", "wrong magic number");
  std::filesystem::remove_all(dir);
}

// The learning is seeded by the scenario's seed when the run starts, so `hfsim run --seed N`
// (which changes scenario.seed after loading) gives the run a scenario with seed N would give.
TEST(Convergence, TheSeedAtRunTimeSeedsTheTaskAndTheWorkers) {
  Scenario reseeded = ParseOrDie(Scenario8({{"scheme", "thc"}}));
  reseeded.seed = 8;
  nlohmann::json doc = Scenario8({{"scheme", "thc"}});
  doc["seed"] = 8;
  const ConvergenceReport a = *AnalyticalEngine().Run(reseeded).convergence;
  const ConvergenceReport b = *AnalyticalEngine().Run(ParseOrDie(doc)).convergence;
  const ConvergenceReport seven = *AnalyticalEngine().Run(ParseOrDie(Scenario8({{"scheme", "thc"}}))).convergence;
  ASSERT_EQ(a.evaluations.size(), b.evaluations.size());
  for (size_t i = 0; i < a.evaluations.size(); ++i) {
    EXPECT_EQ(a.evaluations[i].accuracy, b.evaluations[i].accuracy);
  }
  EXPECT_NE(a.final_accuracy, seven.final_accuracy);
}

TEST(ConvergenceLoader, EchoRoundTripsEveryKey) {
  const Scenario scenario = ParseOrDie(Scenario8({{"scheme", "fp16"}}));
  const nlohmann::json echo = ScenarioToJson(scenario);
  const auto& c = echo["workload"]["parameter_server"]["convergence"];
  EXPECT_EQ(c["task"]["kind"], "synthetic");
  EXPECT_EQ(c["max_steps"], 150);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
}

// Fashion-MNIST (Debian's dataset-fashion-mnist, installed by scripts/setup) as the task: 8
// workers train logistic regression on 6,000 training images and reach 75 % on 1,000 test images.
TEST(Convergence, FashionMnistTrainsToATarget) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/setup installs it)";
  }
  nlohmann::json doc = Scenario8({{"scheme", "thc"}});
  auto& c = doc["workload"]["parameter_server"]["convergence"];
  c["task"] = {{"kind", "fashion_mnist"}, {"train_samples", 6000}, {"test_samples", 1000}};
  c["target_accuracy"] = 0.75;
  c["max_steps"] = 100;
  c["eval_every_steps"] = 10;
  c["learning_rate"] = {{"initial", 0.2}};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  const ConvergenceReport& r = Converged(report);
  EXPECT_EQ(r.task, "fashion_mnist");
  EXPECT_TRUE(r.reached_target.has_value()) << "final accuracy " << r.final_accuracy;
  EXPECT_GT(r.final_accuracy, 0.75);
}

}  // namespace
}  // namespace hfsim
