// Synchronous data-parallel SGD with compressed gradients (S5): every step each worker computes a
// gradient on its shard, compresses it (none, FP16, top-k or THC, models/compression/), the
// aggregator combines the compressed forms exactly as that scheme's aggregator does (THC: integer
// sums of table values, then one decode), and the shared model takes the mean step. It measures
// what compression costs in convergence, so that a time-to-accuracy comparison can count
// iterations as well as iteration time.
#pragma once

#include <cstdint>
#include <vector>

#include "models/compression/wire-size.h"
#include "models/learning/classifier.h"
#include "models/learning/gossip.h"
#include "models/learning/learning-rate.h"
#include "models/learning/synthetic-data.h"

namespace hfsim {

struct CompressedSgdSpec {
  uint32_t workers = 8;
  uint32_t steps = 300;
  uint32_t batch = 16;
  LearningRate learning_rate;
  ClassifierSpec classifier;
  CompressionChoice compression;
  uint32_t eval_every = 10;
  uint64_t seed = 1;
};

/// Test accuracy of the shared model after every eval_every steps (and the last).
/// `worker_accuracy` equals `mean_model_accuracy`: there is one model.
std::vector<Evaluation> RunCompressedSgd(const CompressedSgdSpec& spec, const SyntheticTask& task);

}  // namespace hfsim
