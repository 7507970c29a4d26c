#include "models/learning/compressed-sgd.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "base/deterministic-rng.h"
#include "models/compression/baselines.h"
#include "models/compression/thc.h"

namespace hfsim {

namespace {

// One scheme's path from the workers' gradients to the mean the model steps with.
class GradientAggregator {
 public:
  GradientAggregator(const CompressionChoice& choice, uint32_t workers, uint64_t dimension,
                     uint64_t seed)
      : m_choice(choice), m_dimension(dimension) {
    for (uint32_t w = 0; w < workers; ++w) {
      if (choice.scheme == CompressionScheme::kTopK) {
        m_top_k.push_back(std::make_unique<TopKCompressor>(dimension, choice.top_k_fraction, true));
      }
      if (choice.scheme == CompressionScheme::kThc) {
        m_thc.push_back(std::make_unique<ThcWorker>(choice.thc, dimension, SplitMix64(seed + w)));
      }
    }
  }

  Eigen::VectorXd Mean(const std::vector<Eigen::VectorXd>& gradients) {
    const auto n = static_cast<uint32_t>(gradients.size());
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m_dimension));
    switch (m_choice.scheme) {
      case CompressionScheme::kNone:
        for (const auto& g : gradients) sum += g;
        return sum / n;
      case CompressionScheme::kFp16:
        for (const auto& g : gradients) {
          for (Eigen::Index i = 0; i < g.size(); ++i) {
            sum(i) += HalfToFloat(FloatToHalf(static_cast<float>(g(i))));
          }
        }
        return sum / n;
      case CompressionScheme::kTopK:
        for (uint32_t w = 0; w < n; ++w) sum += m_top_k[w]->Decompress(m_top_k[w]->Compress(gradients[w]));
        return sum / n;
      case CompressionScheme::kThc: {
        double max_norm = 0.0;
        for (uint32_t w = 0; w < n; ++w) max_norm = std::max(max_norm, m_thc[w]->Prepare(gradients[w]));
        std::vector<std::vector<uint8_t>> packed;
        for (uint32_t w = 0; w < n; ++w) packed.push_back(m_thc[w]->Encode(max_norm));
        const auto sums = AggregateThc(packed, m_choice.thc, m_thc[0]->PaddedLength());
        return DecodeThc(sums, n, max_norm, m_choice.thc, m_dimension);
      }
    }
    return sum;
  }

 private:
  CompressionChoice m_choice;
  uint64_t m_dimension;
  std::vector<std::unique_ptr<TopKCompressor>> m_top_k;
  std::vector<std::unique_ptr<ThcWorker>> m_thc;
};

}  // namespace

std::vector<Evaluation> RunCompressedSgd(const CompressedSgdSpec& spec, const SyntheticTask& task) {
  if (spec.workers == 0 || spec.steps == 0 || spec.batch == 0 || spec.eval_every == 0) {
    throw std::invalid_argument("compressed SGD: needs workers, steps, a batch and eval_every");
  }
  if (task.train.features.cols() != spec.classifier.features ||
      task.train.Samples() < spec.workers) {
    throw std::invalid_argument(
        "compressed SGD: the classifier's features must match the task's, and every worker needs "
        "a training sample");
  }
  const Classifier model(spec.classifier);
  Eigen::VectorXd parameters = model.Initial(SplitMix64(spec.seed));
  GradientAggregator aggregator(spec.compression, spec.workers,
                                static_cast<uint64_t>(parameters.size()), spec.seed);
  std::vector<Dataset> shards;
  for (uint32_t w = 0; w < spec.workers; ++w) shards.push_back(WorkerShard(task.train, w, spec.workers));
  DeterministicRng rng(spec.seed);
  std::vector<Eigen::VectorXd> gradients(spec.workers);
  std::vector<uint32_t> rows(spec.batch);
  std::vector<Evaluation> evaluations;
  for (uint32_t step = 0; step < spec.steps; ++step) {
    for (uint32_t w = 0; w < spec.workers; ++w) {
      for (uint32_t& r : rows) r = static_cast<uint32_t>(rng.Below(shards[w].Samples()));
      model.LossAndGradient(parameters, shards[w], rows, &gradients[w]);
    }
    parameters -= spec.learning_rate.At(step) * aggregator.Mean(gradients);
    if ((step + 1) % spec.eval_every == 0 || step + 1 == spec.steps) {
      const double accuracy = model.Accuracy(parameters, task.test);
      evaluations.push_back({step + 1, accuracy, accuracy});
    }
  }
  return evaluations;
}

}  // namespace hfsim
