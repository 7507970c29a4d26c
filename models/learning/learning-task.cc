#include "models/learning/learning-task.h"

namespace hfsim {

SyntheticTask MakeLearningTask(const LearningTaskSpec& spec) {
  return spec.kind == TaskKind::kSynthetic ? MakeSyntheticTask(spec.synthetic)
                                           : LoadFashionMnist(spec.fashion_mnist);
}

}  // namespace hfsim
