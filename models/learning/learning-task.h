// The data set a scenario's learning runs on: the synthetic Gaussian task generated in-process
// (synthetic-data.h), or Fashion-MNIST from Debian's dataset-fashion-mnist package
// (idx-dataset.h). Both arrive as the same train/test pair, so the classifiers, gossip and
// compressed SGD do not care which.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/name-table.h"
#include "models/learning/idx-dataset.h"
#include "models/learning/synthetic-data.h"

namespace hfsim {

enum class TaskKind { kSynthetic, kFashionMnist };
inline constexpr NameTable<TaskKind, 2> kTaskKindNames = {{
    {TaskKind::kSynthetic, "synthetic"},
    {TaskKind::kFashionMnist, "fashion_mnist"},
}};
inline std::string_view ToString(TaskKind kind) { return NameIn(kTaskKindNames, kind); }

struct LearningTaskSpec {
  TaskKind kind = TaskKind::kSynthetic;
  SyntheticTaskSpec synthetic;  ///< kind synthetic
  IdxTaskSpec fashion_mnist;    ///< kind fashion_mnist

  uint32_t Features() const {
    return kind == TaskKind::kSynthetic ? synthetic.features : kFashionMnistFeatures;
  }
  uint32_t Classes() const { return kind == TaskKind::kSynthetic ? synthetic.classes : 10; }
  uint32_t TrainSamples() const {
    return kind == TaskKind::kSynthetic ? synthetic.train_samples : fashion_mnist.train_samples;
  }
  /// Seeds the synthetic task's generation or Fashion-MNIST's training-row shuffle.
  void SetSeed(uint64_t seed) {
    synthetic.seed = seed;
    fashion_mnist.seed = seed;
  }
};

/// Builds (synthetic) or reads (Fashion-MNIST) the task. Throws as MakeSyntheticTask and
/// LoadFashionMnist do.
SyntheticTask MakeLearningTask(const LearningTaskSpec& spec);

}  // namespace hfsim
