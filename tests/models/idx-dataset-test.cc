// The Fashion-MNIST loader: small hand-written gzip IDX files for scaling, limits, the seeded
// shuffle and every error message (each must name the file), then the real installed files for
// their counts and a logistic regression that must learn from them.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "base/deterministic-rng.h"
#include "models/learning/classifier.h"
#include "models/learning/idx-dataset.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

using Bytes = std::vector<uint8_t>;

constexpr uint32_t kImageMagic = 0x00000803;
constexpr uint32_t kLabelMagic = 0x00000801;

void PutBe32(Bytes* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(value >> shift));
}

Bytes ImageFile(uint32_t count, uint32_t rows, uint32_t cols, const Bytes& pixels,
                uint32_t magic = kImageMagic) {
  Bytes out;
  PutBe32(&out, magic);
  PutBe32(&out, count);
  PutBe32(&out, rows);
  PutBe32(&out, cols);
  out.insert(out.end(), pixels.begin(), pixels.end());
  return out;
}

Bytes LabelFile(uint32_t count, const Bytes& labels, uint32_t magic = kLabelMagic) {
  Bytes out;
  PutBe32(&out, magic);
  PutBe32(&out, count);
  out.insert(out.end(), labels.begin(), labels.end());
  return out;
}

void WriteGz(const std::string& path, const Bytes& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  if (!bytes.empty()) {
    EXPECT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
  }
  EXPECT_EQ(gzclose(file), Z_OK);
}

void WritePlain(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// Success if f throws E whose message contains every one of `parts`.
template <typename E>
::testing::AssertionResult ThrowsWith(const std::function<void()>& f,
                                      std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) {
      if (message.find(part) == std::string::npos) {
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" lacks \"" << part << "\"";
      }
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "threw nothing";
}

// 5 images of 2 x 3 pixels, each a distinct multiple of 51 (= 255 / 5, so every scaled value is a
// fifth), and their labels.
const Bytes kPixels = {
    0,   255, 51,  102, 153, 204,  // sample 0
    255, 0,   0,   0,   0,   51,   // sample 1
    102, 102, 102, 102, 102, 102,  // sample 2
    1,   2,   3,   4,   5,   6,    // sample 3
    204, 153, 102, 51,  0,   255,  // sample 4
};
const Bytes kLabels = {9, 0, 3, 3, 7};

class IdxFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() /
            ("hfsim-idx-test-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  std::string Path(const std::string& name) const { return (m_dir / name).string(); }
  /// images.gz and labels.gz holding kPixels and kLabels.
  void WriteGood() {
    WriteGz(Path("images.gz"), ImageFile(5, 2, 3, kPixels));
    WriteGz(Path("labels.gz"), LabelFile(5, kLabels));
  }

  fs::path m_dir;
};

TEST_F(IdxFiles, ScalesPixelsToUnitIntervalAndKeepsLabelsInFileOrder) {
  WriteGood();
  const Dataset data = ReadIdxPair(Path("images.gz"), Path("labels.gz"), 5);
  ASSERT_EQ(data.features.rows(), 5);
  ASSERT_EQ(data.features.cols(), 6);
  EXPECT_EQ(data.Samples(), 5u);
  EXPECT_EQ(data.classes, 10u);
  EXPECT_EQ(data.labels, (std::vector<uint32_t>{9, 0, 3, 3, 7}));
  for (int s = 0; s < 5; ++s) {
    for (int p = 0; p < 6; ++p) {
      EXPECT_DOUBLE_EQ(data.features(s, p), kPixels[static_cast<size_t>(s * 6 + p)] / 255.0)
          << "sample " << s << " pixel " << p;
    }
  }
  EXPECT_EQ(data.features(0, 0), 0.0);
  EXPECT_EQ(data.features(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(data.features(0, 2), 0.2);
  EXPECT_DOUBLE_EQ(data.features(4, 1), 0.6);
}

TEST_F(IdxFiles, LimitTakesTheFirstSamplesAndMustBeOneToTheCount) {
  WriteGood();
  const Dataset data = ReadIdxPair(Path("images.gz"), Path("labels.gz"), 2);
  ASSERT_EQ(data.features.rows(), 2);
  EXPECT_EQ(data.labels, (std::vector<uint32_t>{9, 0}));
  EXPECT_EQ(data.features(1, 0), 1.0);
  EXPECT_TRUE(ThrowsWith<std::invalid_argument>(
      [&] { ReadIdxPair(Path("images.gz"), Path("labels.gz"), 0); },
      {Path("images.gz"), "asked for 0 samples", "need 1 to 5"}));
  EXPECT_TRUE(ThrowsWith<std::invalid_argument>(
      [&] { ReadIdxPair(Path("images.gz"), Path("labels.gz"), 6); },
      {Path("images.gz"), "asked for 6 samples", "holds 5"}));
}

TEST_F(IdxFiles, ReadsUncompressedFilesToo) {
  WritePlain(Path("images"), ImageFile(5, 2, 3, kPixels));
  WritePlain(Path("labels"), LabelFile(5, kLabels));
  const Dataset data = ReadIdxPair(Path("images"), Path("labels"), 5);
  EXPECT_EQ(data.labels[4], 7u);
  EXPECT_DOUBLE_EQ(data.features(3, 5), 6 / 255.0);
}

TEST_F(IdxFiles, MissingOrUnreadableFilesNameThePathAndThePackage) {
  WriteGood();
  const std::string missing = Path("no-such-file.gz");
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(missing, Path("labels.gz"), 1); },
      {missing, "cannot open", "No such file", "apt-get install dataset-fashion-mnist"}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), missing, 1); },
      {missing, "cannot open", "apt-get install dataset-fashion-mnist"}));
  // A directory opens but cannot be read.
  fs::create_directory(m_dir / "a-directory");
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("a-directory"), Path("labels.gz"), 1); },
      {Path("a-directory"), "cannot read", "apt-get install dataset-fashion-mnist"}));
}

TEST_F(IdxFiles, WrongMagicNumbersNameTheFileAndBothNumbers) {
  WriteGood();
  // Images and labels swapped: each file has the other's magic.
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("labels.gz"), Path("images.gz"), 1); },
      {Path("labels.gz"), "wrong magic number 0x00000801", "expected 0x00000803", "label file"}));
  WriteGz(Path("bad-labels.gz"), LabelFile(5, kLabels, 0x12345678));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), Path("bad-labels.gz"), 1); },
      {Path("bad-labels.gz"), "wrong magic number 0x12345678", "expected 0x00000801"}));
  // Not an IDX file at all (text, gzip-compressed).
  WriteGz(Path("text.gz"),
          Bytes{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!', '!', '!', '!'});
  EXPECT_TRUE(
      ThrowsWith<std::runtime_error>([&] { ReadIdxPair(Path("text.gz"), Path("labels.gz"), 1); },
                                     {Path("text.gz"), "wrong magic number 0x68656c6c"}));
}

TEST_F(IdxFiles, TruncatedFilesNameTheFileAndWhatIsMissing) {
  WriteGood();
  // The header promises 5 images; 4 and a half follow.
  WriteGz(Path("short-images.gz"), ImageFile(5, 2, 3, Bytes(kPixels.begin(), kPixels.end() - 3)));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("short-images.gz"), Path("labels.gz"), 5); },
      {Path("short-images.gz"), "truncated", "promises 5 images", "27 pixel bytes", "4 whole"}));
  // The first 4 are all there, and a prefix is all that is read.
  EXPECT_EQ(ReadIdxPair(Path("short-images.gz"), Path("labels.gz"), 4).Samples(), 4u);

  WriteGz(Path("short-labels.gz"), LabelFile(5, Bytes{1, 2}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), Path("short-labels.gz"), 3); },
      {Path("short-labels.gz"), "truncated", "promises 5 labels", "ends after 2"}));

  WriteGz(Path("header-only.gz"), Bytes{0, 0, 8, 3, 0, 0});
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("header-only.gz"), Path("labels.gz"), 1); },
      {Path("header-only.gz"), "truncated", "inside the 16-byte IDX header"}));

  // A gzip stream cut short (a partial download): zlib reports an unexpected end of file.
  Bytes big_pixels(5 * 64 * 64);
  DeterministicRng rng(3);
  for (uint8_t& p : big_pixels) p = static_cast<uint8_t>(rng.Below(256));  // incompressible
  WriteGz(Path("big.gz"), ImageFile(5, 64, 64, big_pixels));
  const auto size = fs::file_size(m_dir / "big.gz");
  fs::resize_file(m_dir / "big.gz", size / 2);
  EXPECT_TRUE(
      ThrowsWith<std::runtime_error>([&] { ReadIdxPair(Path("big.gz"), Path("labels.gz"), 5); },
                                     {Path("big.gz"), "truncated", "promises 5 images"}));
}

TEST_F(IdxFiles, CountMismatchesAndBadLabelsAndSizesAreRefused) {
  WriteGood();
  WriteGz(Path("four-labels.gz"), LabelFile(4, Bytes{1, 2, 3, 4}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), Path("four-labels.gz"), 1); },
      {Path("images.gz"), "holds 5 images", Path("four-labels.gz"), "holds 4 labels"}));

  WriteGz(Path("label-ten.gz"), LabelFile(5, Bytes{1, 2, 10, 3, 4}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), Path("label-ten.gz"), 5); },
      {Path("label-ten.gz"), "label 10 of sample 2", "out of range"}));
  // Only the selected samples' labels are read, so a bad one past the limit does not matter.
  EXPECT_EQ(ReadIdxPair(Path("images.gz"), Path("label-ten.gz"), 2).labels[1], 2u);
  WriteGz(Path("label-255.gz"), LabelFile(5, Bytes{1, 2, 3, 4, 255}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("images.gz"), Path("label-255.gz"), 5); },
      {Path("label-255.gz"), "label 255 of sample 4"}));

  WriteGz(Path("empty-images.gz"), ImageFile(5, 0, 28, {}));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { ReadIdxPair(Path("empty-images.gz"), Path("labels.gz"), 1); },
      {Path("empty-images.gz"), "image size 0 x 28"}));
}

// A Fashion-MNIST-named directory whose image n has first pixel n and label n % 10, so every row
// says which sample it came from.
class FakeFashionMnist : public IdxFiles {
 protected:
  static constexpr uint32_t kTrain = 20;
  static constexpr uint32_t kTest = 7;
  static constexpr uint32_t kPixelsPerImage = 4;

  void SetUp() override {
    IdxFiles::SetUp();
    Write("train", kTrain);
    Write("t10k", kTest);
  }
  void Write(const std::string& prefix, uint32_t count) {
    Bytes pixels, labels;
    for (uint32_t n = 0; n < count; ++n) {
      pixels.insert(pixels.end(), {static_cast<uint8_t>(n), 0, 255, static_cast<uint8_t>(2 * n)});
      labels.push_back(static_cast<uint8_t>(n % 10));
    }
    WriteGz(Path(prefix + "-images-idx3-ubyte.gz"), ImageFile(count, 2, 2, pixels));
    WriteGz(Path(prefix + "-labels-idx1-ubyte.gz"), LabelFile(count, labels));
  }
  IdxTaskSpec Spec(uint32_t train, uint32_t test, uint64_t seed) const {
    IdxTaskSpec spec;
    spec.directory = m_dir.string();
    spec.train_samples = train;
    spec.test_samples = test;
    spec.seed = seed;
    return spec;
  }
  /// The sample each row came from, checking that the row is intact and kept its label.
  static std::vector<uint32_t> Origins(const Dataset& data) {
    std::vector<uint32_t> origins;
    for (uint32_t i = 0; i < data.Samples(); ++i) {
      const auto n = static_cast<uint32_t>(std::lround(data.features(i, 0) * 255.0));
      EXPECT_EQ(data.labels[i], n % 10) << "row " << i;
      EXPECT_DOUBLE_EQ(data.features(i, 3), 2 * n / 255.0) << "row " << i;
      EXPECT_EQ(data.features(i, 2), 1.0) << "row " << i;
      origins.push_back(n);
    }
    return origins;
  }
};

TEST_F(FakeFashionMnist, ShufflesTrainingRowsBySeedAndKeepsTestRowsInOrder) {
  const SyntheticTask a = LoadFashionMnist(Spec(kTrain, kTest, 1));
  const SyntheticTask b = LoadFashionMnist(Spec(kTrain, kTest, 1));
  const SyntheticTask c = LoadFashionMnist(Spec(kTrain, kTest, 2));
  EXPECT_EQ(a.train.features, b.train.features);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_EQ(a.train.classes, 10u);
  EXPECT_EQ(a.test.classes, 10u);
  ASSERT_EQ(a.train.features.cols(), 4);

  const std::vector<uint32_t> order = Origins(a.train);
  std::vector<uint32_t> identity(kTrain);
  std::iota(identity.begin(), identity.end(), 0u);
  EXPECT_NE(order, identity) << "not shuffled";
  EXPECT_NE(Origins(c.train), order) << "the seed does not matter";
  std::vector<uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity) << "not a permutation";
  // The documented algorithm (Fisher-Yates drawing Below(i + 1) from i = n - 1 down to 1), so the
  // order is the same on every standard library.
  std::vector<uint32_t> expected = identity;
  DeterministicRng rng(1);
  for (uint32_t i = kTrain - 1; i > 0; --i) std::swap(expected[i], expected[rng.Below(i + 1)]);
  EXPECT_EQ(order, expected);

  std::vector<uint32_t> test_order(kTest);
  std::iota(test_order.begin(), test_order.end(), 0u);
  EXPECT_EQ(Origins(a.test), test_order);
}

TEST_F(FakeFashionMnist, SelectsTheFirstSamplesBeforeShuffling) {
  IdxTaskSpec spec = Spec(8, 3, 1);
  spec.directory += "/";  // a trailing slash is fine
  const SyntheticTask task = LoadFashionMnist(spec);
  ASSERT_EQ(task.train.Samples(), 8u);
  ASSERT_EQ(task.test.Samples(), 3u);
  std::vector<uint32_t> order = Origins(task.train);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Origins(task.test), (std::vector<uint32_t>{0, 1, 2}));
}

TEST_F(FakeFashionMnist, SampleCountsOutOfRangeNameTheFile) {
  const std::string train = Path("train-images-idx3-ubyte.gz");
  const std::string test = Path("t10k-images-idx3-ubyte.gz");
  EXPECT_TRUE(ThrowsWith<std::invalid_argument>([&] { LoadFashionMnist(Spec(0, kTest, 1)); },
                                                {train, "asked for 0 samples"}));
  EXPECT_TRUE(
      ThrowsWith<std::invalid_argument>([&] { LoadFashionMnist(Spec(kTrain + 1, kTest, 1)); },
                                        {train, "asked for 21 samples", "holds 20"}));
  EXPECT_TRUE(
      ThrowsWith<std::invalid_argument>([&] { LoadFashionMnist(Spec(kTrain, kTest + 1, 1)); },
                                        {test, "asked for 8 samples", "holds 7"}));
  fs::remove(m_dir / "t10k-labels-idx1-ubyte.gz");
  EXPECT_TRUE(ThrowsWith<std::runtime_error>(
      [&] { LoadFashionMnist(Spec(kTrain, kTest, 1)); },
      {Path("t10k-labels-idx1-ubyte.gz"), "cannot open", "apt-get install dataset-fashion-mnist"}));
}

TEST_F(FakeFashionMnist, TrainAndTestImagesMustHaveTheSameSize) {
  WriteGz(Path("t10k-images-idx3-ubyte.gz"), ImageFile(kTest, 1, 3, Bytes(kTest * 3, 0)));
  EXPECT_TRUE(ThrowsWith<std::runtime_error>([&] { LoadFashionMnist(Spec(kTrain, kTest, 1)); },
                                             {Path("train-images-idx3-ubyte.gz"), "4-pixel",
                                              Path("t10k-images-idx3-ubyte.gz"), "3-pixel"}));
}

// The real data set, as Debian's dataset-fashion-mnist installs it.
bool RealFilesPresent() {
  const std::string dir = IdxTaskSpec{}.directory;
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
    if (!fs::exists(dir + "/" + name)) return false;
  }
  return true;
}

#define SKIP_WITHOUT_REAL_FILES()                                         \
  if (!RealFilesPresent()) {                                              \
    GTEST_SKIP() << "Fashion-MNIST is not in " << IdxTaskSpec{}.directory \
                 << " (apt-get install dataset-fashion-mnist)";           \
  }

TEST(RealFashionMnist, HasItsPublishedShapeAndBalancedClasses) {
  SKIP_WITHOUT_REAL_FILES();
  const SyntheticTask task = LoadFashionMnist({});
  ASSERT_EQ(task.train.Samples(), 60000u);
  ASSERT_EQ(task.test.Samples(), 10000u);
  EXPECT_EQ(task.train.features.cols(), 784);
  EXPECT_EQ(task.test.features.cols(), 784);
  EXPECT_EQ(task.train.classes, 10u);
  EXPECT_EQ(task.test.classes, 10u);
  // Fashion-MNIST has exactly 6000 training and 1000 test images per class.
  std::vector<int> train_count(10, 0), test_count(10, 0);
  for (uint32_t label : task.train.labels) ++train_count.at(label);
  for (uint32_t label : task.test.labels) ++test_count.at(label);
  EXPECT_EQ(train_count, std::vector<int>(10, 6000));
  EXPECT_EQ(test_count, std::vector<int>(10, 1000));
  EXPECT_EQ(task.train.features.minCoeff(), 0.0);
  EXPECT_EQ(task.train.features.maxCoeff(), 1.0);
  EXPECT_GE(task.test.features.minCoeff(), 0.0);
  EXPECT_LE(task.test.features.maxCoeff(), 1.0);
  // Shuffled: the head of the training set is not the file's.
  const Dataset head = ReadIdxPair(IdxTaskSpec{}.directory + "/train-images-idx3-ubyte.gz",
                                   IdxTaskSpec{}.directory + "/train-labels-idx1-ubyte.gz", 100);
  EXPECT_NE(std::vector<uint32_t>(task.train.labels.begin(), task.train.labels.begin() + 100),
            head.labels);
  EXPECT_EQ(task.test.features.topRows(100),
            ReadIdxPair(IdxTaskSpec{}.directory + "/t10k-images-idx3-ubyte.gz",
                        IdxTaskSpec{}.directory + "/t10k-labels-idx1-ubyte.gz", 100)
                .features);
}

TEST(RealFashionMnist, LogisticRegressionLearnsIt) {
  SKIP_WITHOUT_REAL_FILES();
  IdxTaskSpec spec;
  spec.train_samples = 5000;
  spec.test_samples = 2000;
  const SyntheticTask task = LoadFashionMnist(spec);
  const Classifier model({ClassifierKind::kLogistic, 784, 10, 0});
  Eigen::VectorXd p = model.Initial(99);
  const double before = model.Accuracy(p, task.test);
  DeterministicRng rng(7);
  Eigen::VectorXd gradient;
  std::vector<uint32_t> rows(32);
  for (uint32_t step = 0; step < 400; ++step) {
    for (uint32_t& row : rows) row = static_cast<uint32_t>(rng.Below(task.train.Samples()));
    model.LossAndGradient(p, task.train, rows, &gradient);
    p -= 0.1 * gradient;
  }
  const double after = model.Accuracy(p, task.test);
  RecordProperty("accuracy_before", std::to_string(before));
  RecordProperty("accuracy_after", std::to_string(after));
  std::printf("logistic regression on Fashion-MNIST: test accuracy %.4f before, %.4f after\n",
              before, after);
  EXPECT_LT(before, 0.3);
  EXPECT_GT(after, 0.70);
}

}  // namespace
}  // namespace hfsim
