// Fashion-MNIST (Xiao, Rasul, Vollgraf 2017) from the gzip-compressed IDX files that Debian's
// dataset-fashion-mnist package installs: a real image task for the learning dynamics, next to the
// synthetic one (synthetic-data.h), returned in the same Dataset form so that the classifiers and
// WorkerShard take it unchanged. Errors are exceptions whose message names the file and the fault.
#pragma once

#include <cstdint>
#include <string>

#include "models/learning/synthetic-data.h"

namespace hfsim {

struct IdxTaskSpec {
  /// Holds train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and
  /// t10k-labels-idx1-ubyte.gz.
  std::string directory = "/usr/share/datasets/fashion-mnist";
  /// The first N samples of each file, 1..the file's count (60000 and 10000 for Fashion-MNIST).
  uint32_t train_samples = 60000;
  uint32_t test_samples = 10000;
  /// Seeds the shuffle of the selected training rows (DeterministicRng, so bit-for-bit portable).
  uint64_t seed = 1;
};

/// Fashion-MNIST's images (28 x 28 = 784 features, pixels scaled to [0, 1]; the reader takes any
/// size, CheckFashionMnistFiles and the learning check it against the classifier) and labels (10
/// classes). The selected training rows are shuffled with a seeded Fisher-Yates, because callers
/// shard them contiguously (WorkerShard) and the file order is not guaranteed i.i.d.; test rows
/// keep the file order. Throws std::runtime_error on a missing, unreadable or malformed file and
/// std::invalid_argument on a sample count out of range, each naming the file.
SyntheticTask LoadFashionMnist(const IdxTaskSpec& spec);

/// Fashion-MNIST's image size: 28 x 28 pixels, the features of its classifiers.
inline constexpr uint32_t kFashionMnistFeatures = 28 * 28;

/// Checks, reading only their headers, that the four files of `spec` can give what it asks: the
/// right magic numbers, 28 x 28 images, labels for every image and at least train_samples and
/// test_samples of each. Returns the problem, naming the file, or an empty string. (Labels out
/// of range or a body cut short are still found by LoadFashionMnist.)
std::string CheckFashionMnistFiles(const IdxTaskSpec& spec);

/// The first `limit` samples of an IDX image file (magic 0x00000803, dims count x rows x cols,
/// uint8 pixels) with their labels from an IDX label file (magic 0x00000801, uint8 labels 0..9),
/// in file order, gzip-compressed or plain. Pixels become x / 255; classes is 10. Throws as
/// LoadFashionMnist, also when the two files' counts differ, a label is 10 or more, or the files
/// end before `limit` samples.
Dataset ReadIdxPair(const std::string& images_path, const std::string& labels_path, uint32_t limit);

}  // namespace hfsim
