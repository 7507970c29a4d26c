// The parts of a scenario that describe real learning (docs/learning.md): the data set, the
// classifier and the learning-rate schedule. workload.gossip (S3) and
// workload.parameter_server.convergence (S5's time to accuracy) read them the same way. Internal
// to the loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "models/learning/classifier.h"
#include "models/learning/learning-rate.h"
#include "models/learning/learning-task.h"
#include "sim/scenario/json-cursor.h"

namespace hfsim {

/// Bounds that keep one run to seconds: the learning runs in-process, step by step.
inline constexpr uint64_t kMaxLearningSteps = 100000;
/// steps x workers x batch x classifier parameters (about 2^33 multiply-adds: tens of seconds).
inline constexpr double kMaxLearningWork = 8.6e9;

/// "task": {"kind": "synthetic" (default) with train_samples, test_samples, features, classes,
/// separation; or "fashion_mnist" with train_samples, test_samples, directory}. For
/// Fashion-MNIST the four files must exist (the error names the missing one and its package).
LearningTaskSpec ReadLearningTask(const JsonCursor& task, uint64_t seed);
LearningRate ReadLearningRate(const JsonCursor& learning_rate);
/// "classifier": {"kind": "logistic" or "mlp", "hidden"}; features and classes from `task`.
ClassifierSpec ReadClassifier(const std::optional<JsonCursor>& classifier, const LearningTaskSpec& task);
/// Fails (at the section's task.train_samples, or the section) when the training set has fewer
/// samples than workers: every worker's shard needs at least one.
void CheckTrainSamples(const JsonCursor& section, const LearningTaskSpec& task, uint64_t workers);
/// Fails at `where` when steps x workers x batch x parameters exceeds kMaxLearningWork.
void CheckLearningWork(const JsonCursor& where, uint64_t steps, uint64_t workers, uint64_t batch,
                       const ClassifierSpec& classifier);

nlohmann::json LearningTaskToJson(const LearningTaskSpec& task);
nlohmann::json LearningRateToJson(const LearningRate& learning_rate);
nlohmann::json ClassifierToJson(const ClassifierSpec& classifier);

}  // namespace hfsim
