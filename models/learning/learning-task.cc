#include "models/learning/learning-task.h"

namespace hfsim {

std::string_view ToString(TaskKind kind) {
  return kind == TaskKind::kSynthetic ? "synthetic" : "fashion_mnist";
}

SyntheticTask MakeLearningTask(const LearningTaskSpec& spec) {
  return spec.kind == TaskKind::kSynthetic ? MakeSyntheticTask(spec.synthetic)
                                           : LoadFashionMnist(spec.fashion_mnist);
}

}  // namespace hfsim
