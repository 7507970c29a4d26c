#include "models/learning/synthetic-data.h"

#include <stdexcept>

#include "base/deterministic-rng.h"

namespace hfsim {

Dataset Dataset::Slice(uint32_t begin, uint32_t end) const {
  Dataset out;
  out.classes = classes;
  out.features = features.middleRows(begin, end - begin);
  out.labels.assign(labels.begin() + begin, labels.begin() + end);
  return out;
}

SyntheticTask MakeSyntheticTask(const SyntheticTaskSpec& spec) {
  if (spec.train_samples == 0 || spec.test_samples == 0 || spec.features == 0 ||
      spec.classes < 2) {
    throw std::invalid_argument("synthetic task: needs samples, features and at least 2 classes");
  }
  DeterministicRng rng(spec.seed);
  // Class centres: random directions scaled to `separation`.
  Eigen::MatrixXd centres(spec.classes, spec.features);
  for (uint32_t c = 0; c < spec.classes; ++c) {
    for (uint32_t f = 0; f < spec.features; ++f) centres(c, f) = rng.Normal();
    centres.row(c) *= spec.separation / centres.row(c).norm();
  }
  const uint32_t total = spec.train_samples + spec.test_samples;
  Dataset all;
  all.classes = spec.classes;
  all.features.resize(total, spec.features);
  all.labels.resize(total);
  for (uint32_t i = 0; i < total; ++i) {
    const auto label = static_cast<uint32_t>(rng.Below(spec.classes));
    all.labels[i] = label;
    for (uint32_t f = 0; f < spec.features; ++f) all.features(i, f) = centres(label, f) + rng.Normal();
  }
  return {all.Slice(0, spec.train_samples), all.Slice(spec.train_samples, total)};
}

Dataset WorkerShard(const Dataset& train, uint32_t worker, uint32_t workers) {
  if (workers == 0 || worker >= workers) throw std::invalid_argument("WorkerShard: worker out of range");
  const uint64_t n = train.Samples();
  const auto begin = static_cast<uint32_t>(n * worker / workers);
  const auto end = static_cast<uint32_t>(n * (worker + 1) / workers);
  return train.Slice(begin, end);
}

}  // namespace hfsim
