// The learning dynamics behind gossip traffic: the synthetic task, the classifiers' gradients
// (against finite differences), learning-rate schedules (closed forms), and plain SGD reaching a
// stated accuracy.
#include <cmath>

#include <gtest/gtest.h>

#include "models/learning/classifier.h"
#include "models/learning/learning-rate.h"
#include "models/learning/synthetic-data.h"

namespace hfsim {
namespace {

TEST(SyntheticTask, IsDeterministicSizedAndShardedWithoutOverlap) {
  SyntheticTaskSpec spec;
  spec.train_samples = 1000;
  spec.test_samples = 200;
  const SyntheticTask a = MakeSyntheticTask(spec);
  const SyntheticTask b = MakeSyntheticTask(spec);
  EXPECT_EQ(a.train.features, b.train.features);
  EXPECT_EQ(a.test.labels, b.test.labels);
  EXPECT_EQ(a.train.Samples(), 1000u);
  EXPECT_EQ(a.test.Samples(), 200u);
  EXPECT_EQ(a.train.features.cols(), 16);
  spec.seed = 2;
  EXPECT_NE(MakeSyntheticTask(spec).train.features, a.train.features);
  // Every class appears, roughly evenly (1000 draws of 4 classes: 250 +- 5 sigma).
  std::vector<int> count(4, 0);
  for (uint32_t label : a.train.labels) ++count[label];
  for (int c : count) EXPECT_NEAR(c, 250, 5 * std::sqrt(1000 * 0.25 * 0.75));
  // Shards of 7 workers partition the training rows in order.
  uint32_t rows = 0;
  for (uint32_t w = 0; w < 7; ++w) {
    const Dataset shard = WorkerShard(a.train, w, 7);
    EXPECT_TRUE(shard.features.row(0) == a.train.features.row(rows));
    rows += shard.Samples();
  }
  EXPECT_EQ(rows, 1000u);
  EXPECT_THROW(WorkerShard(a.train, 7, 7), std::invalid_argument);
  spec.classes = 1;
  EXPECT_THROW(MakeSyntheticTask(spec), std::invalid_argument);
}

class Gradient : public ::testing::TestWithParam<ClassifierKind> {};

TEST_P(Gradient, MatchesCentralFiniteDifferences) {
  SyntheticTaskSpec task_spec;
  task_spec.train_samples = 64;
  task_spec.test_samples = 8;
  task_spec.features = 5;
  task_spec.classes = 3;
  const SyntheticTask task = MakeSyntheticTask(task_spec);
  ClassifierSpec spec{GetParam(), 5, 3, 4};
  const Classifier model(spec);
  const Eigen::VectorXd p = model.Initial(7);
  const std::vector<uint32_t> rows = {0, 3, 5, 9, 17, 33, 40, 63};
  Eigen::VectorXd gradient;
  model.LossAndGradient(p, task.train, rows, &gradient);
  ASSERT_EQ(gradient.size(), static_cast<Eigen::Index>(model.ParameterCount()));
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    Eigen::VectorXd plus = p, minus = p;
    plus(i) += h;
    minus(i) -= h;
    const double numeric = (model.LossAndGradient(plus, task.train, rows, nullptr) -
                            model.LossAndGradient(minus, task.train, rows, nullptr)) /
                           (2 * h);
    EXPECT_NEAR(gradient(i), numeric, 1e-6 + 1e-5 * std::abs(numeric)) << "parameter " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Classifiers, Gradient,
                         ::testing::Values(ClassifierKind::kLogistic, ClassifierKind::kMlp),
                         [](const auto& info) { return std::string(ToString(info.param)); });

TEST(Classifier, ParameterCountsFollowTheLayers) {
  EXPECT_EQ(Classifier({ClassifierKind::kLogistic, 16, 4, 0}).ParameterCount(), 16u * 4 + 4);
  EXPECT_EQ(Classifier({ClassifierKind::kMlp, 16, 4, 32}).ParameterCount(),
            32u * 16 + 32 + 4 * 32 + 4);
  EXPECT_THROW(Classifier({ClassifierKind::kMlp, 16, 4, 0}), std::invalid_argument);
}

TEST(Classifier, PlainSgdReachesNinetyPercentOnTheDefaultTask) {
  const SyntheticTask task = MakeSyntheticTask({});
  for (ClassifierKind kind : {ClassifierKind::kLogistic, ClassifierKind::kMlp}) {
    const Classifier model({kind, 16, 4, 32});
    // Not seed 1: the task's centres come from the same stream and the start would be trained.
    Eigen::VectorXd p = model.Initial(99);
    const double before = model.Accuracy(p, task.test);
    Eigen::VectorXd gradient;
    std::vector<uint32_t> rows(32);
    for (uint32_t step = 0; step < 400; ++step) {
      for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = (step * 32 + i * 97) % task.train.Samples();
      model.LossAndGradient(p, task.train, rows, &gradient);
      p -= 0.1 * gradient;
    }
    const double after = model.Accuracy(p, task.test);
    EXPECT_LT(before, 0.6) << ToString(kind);
    EXPECT_GE(after, 0.9) << ToString(kind);
  }
}

TEST(LearningRate, SchedulesFollowTheirClosedForms) {
  LearningRate lr;
  lr.initial = 0.2;
  EXPECT_DOUBLE_EQ(lr.At(12345), 0.2);
  lr.schedule = LearningRateSchedule::kStep;
  lr.factor = 0.5;
  lr.every = 100;
  EXPECT_DOUBLE_EQ(lr.At(99), 0.2);
  EXPECT_DOUBLE_EQ(lr.At(100), 0.1);
  EXPECT_DOUBLE_EQ(lr.At(250), 0.05);
  lr.schedule = LearningRateSchedule::kExponential;
  lr.gamma = 0.99;
  EXPECT_NEAR(lr.At(10), 0.2 * std::pow(0.99, 10), 1e-15);
  lr.schedule = LearningRateSchedule::kCosine;
  lr.total = 100;
  EXPECT_DOUBLE_EQ(lr.At(0), 0.2);
  EXPECT_NEAR(lr.At(50), 0.1, 1e-15);
  EXPECT_NEAR(lr.At(100), 0.0, 1e-15);
  EXPECT_NEAR(lr.At(500), 0.0, 1e-15);
}

}  // namespace
}  // namespace hfsim
