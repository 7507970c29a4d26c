#include "models/learning/idx-dataset.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <zlib.h>

#include "base/deterministic-rng.h"

namespace hfsim {

namespace {

constexpr uint32_t kImageMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelMagic = 0x00000801;  // unsigned bytes, 1 dimension
constexpr uint32_t kClasses = 10;
/// Larger images mean a corrupt header; refusing them keeps a bad count from asking for gigabytes.
constexpr uint64_t kMaxPixelsPerImage = uint64_t{1} << 24;
/// Bytes per gzread call and per growth of the buffer, so a header that overstates the count
/// fails as truncated after reading what is there rather than by allocating what is promised.
constexpr uint64_t kReadChunk = uint64_t{1} << 24;

const char* const kInstallHint =
    "Debian's package dataset-fashion-mnist provides the Fashion-MNIST files in "
    "/usr/share/datasets/fashion-mnist (apt-get install dataset-fashion-mnist)";

std::string Hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

// One IDX file, gzip-compressed or plain (gzread passes plain files through).
class IdxReader {
 public:
  explicit IdxReader(std::string path) : m_path(std::move(path)) {
    errno = 0;
    m_file = gzopen(m_path.c_str(), "rb");
    if (m_file == nullptr) {
      const std::string why = errno != 0 ? std::strerror(errno) : "out of memory";
      throw std::runtime_error(m_path + ": cannot open (" + why + "); " + kInstallHint);
    }
    gzbuffer(m_file, 1 << 17);
  }
  ~IdxReader() { gzclose(m_file); }
  IdxReader(const IdxReader&) = delete;
  IdxReader& operator=(const IdxReader&) = delete;

  /// Appends up to n bytes to *out; returns how many there were. Throws on a read error; the end
  /// of the data, including a gzip stream cut short, is a short count for the caller to explain.
  uint64_t Append(std::vector<uint8_t>* out, uint64_t n) {
    uint64_t done = 0;
    while (done < n) {
      const uint64_t chunk = std::min(n - done, kReadChunk);
      const size_t at = out->size();
      out->resize(at + chunk);
      const int got = gzread(m_file, out->data() + at, static_cast<unsigned>(chunk));
      out->resize(at + static_cast<size_t>(std::max(got, 0)));
      if (got < 0) {
        int code = Z_OK;
        const char* message = gzerror(m_file, &code);
        if (code == Z_BUF_ERROR) break;  // zlib's "unexpected end of file": truncated
        const std::string why = code == Z_ERRNO ? std::strerror(errno) : message;
        throw std::runtime_error(m_path + ": cannot read (" + why + "); " + kInstallHint);
      }
      if (got == 0) break;
      done += static_cast<uint64_t>(got);
    }
    return done;
  }

  /// The `dims` dimensions after the magic number, which must be `magic`. The magic number is
  /// checked before the rest is read, so that a wrong file says so rather than looking truncated.
  std::vector<uint32_t> Header(uint32_t magic, uint32_t dims, const char* kind) {
    const uint32_t found = Word(4 * (uint64_t{dims} + 1));
    if (found != magic) {
      std::string note;
      if (found == kImageMagic) note = " (that of an IDX image file)";
      if (found == kLabelMagic) note = " (that of an IDX label file)";
      throw std::runtime_error(m_path + ": wrong magic number " + Hex(found) + note +
                               ", expected " + Hex(magic) + " for an IDX " + kind + " file");
    }
    std::vector<uint32_t> words(dims);
    for (uint32_t& word : words) word = Word(4 * (uint64_t{dims} + 1));
    return words;
  }

 private:
  /// The next big-endian 32-bit word of a header of `header_bytes`.
  uint32_t Word(uint64_t header_bytes) {
    std::vector<uint8_t> bytes;
    if (Append(&bytes, 4) < 4) {
      throw std::runtime_error(m_path + ": truncated: the file ends inside the " +
                               std::to_string(header_bytes) + "-byte IDX header");
    }
    return uint32_t{bytes[0]} << 24 | uint32_t{bytes[1]} << 16 | uint32_t{bytes[2]} << 8 |
           uint32_t{bytes[3]};
  }

  std::string m_path;
  gzFile m_file = nullptr;
};

// The first `limit` samples of an image file and its label file, as bytes.
struct IdxSamples {
  uint32_t count = 0;  ///< samples read
  uint64_t pixels_per_image = 0;
  std::vector<uint8_t> pixels;  ///< count x pixels_per_image, row-major
  std::vector<uint8_t> labels;
};

IdxSamples ReadSamples(const std::string& images_path, const std::string& labels_path,
                       uint32_t limit) {
  IdxReader images(images_path);
  IdxReader labels(labels_path);
  const std::vector<uint32_t> image_dims = images.Header(kImageMagic, 3, "image");
  const std::vector<uint32_t> label_dims = labels.Header(kLabelMagic, 1, "label");
  const uint32_t count = image_dims[0];
  const uint64_t pixels = uint64_t{image_dims[1]} * image_dims[2];
  if (pixels == 0 || pixels > kMaxPixelsPerImage) {
    throw std::runtime_error(images_path + ": implausible image size " +
                             std::to_string(image_dims[1]) + " x " + std::to_string(image_dims[2]) +
                             " pixels in the IDX header");
  }
  if (label_dims[0] != count) {
    throw std::runtime_error(images_path + " holds " + std::to_string(count) + " images but " +
                             labels_path + " holds " + std::to_string(label_dims[0]) +
                             " labels; they must pair one to one");
  }
  if (limit == 0 || limit > count) {
    throw std::invalid_argument(images_path + ": asked for " + std::to_string(limit) +
                                " samples, but the file holds " + std::to_string(count) +
                                " (need 1 to " + std::to_string(count) + ")");
  }

  IdxSamples out;
  out.count = limit;
  out.pixels_per_image = pixels;
  const uint64_t pixel_bytes = uint64_t{limit} * pixels;
  if (const uint64_t got = images.Append(&out.pixels, pixel_bytes); got < pixel_bytes) {
    throw std::runtime_error(images_path + ": truncated: the header promises " +
                             std::to_string(count) + " images of " + std::to_string(pixels) +
                             " bytes, but the file ends after " + std::to_string(got) +
                             " pixel bytes (" + std::to_string(got / pixels) + " whole images)");
  }
  if (const uint64_t got = labels.Append(&out.labels, limit); got < limit) {
    throw std::runtime_error(labels_path + ": truncated: the header promises " +
                             std::to_string(count) + " labels, but the file ends after " +
                             std::to_string(got));
  }
  for (uint32_t i = 0; i < limit; ++i) {
    if (out.labels[i] >= kClasses) {
      throw std::runtime_error(labels_path + ": label " + std::to_string(out.labels[i]) +
                               " of sample " + std::to_string(i) + " is out of range (0 to " +
                               std::to_string(kClasses - 1) + ")");
    }
  }
  return out;
}

// Row i of the result is sample order[i].
Dataset ToDataset(const IdxSamples& samples, const std::vector<uint32_t>& order) {
  using PixelRow = Eigen::Matrix<uint8_t, 1, Eigen::Dynamic>;
  const auto width = static_cast<Eigen::Index>(samples.pixels_per_image);
  Dataset out;
  out.classes = kClasses;
  out.features.resize(static_cast<Eigen::Index>(order.size()), width);
  out.labels.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const uint8_t* row = samples.pixels.data() + order[i] * samples.pixels_per_image;
    out.features.row(static_cast<Eigen::Index>(i)) =
        Eigen::Map<const PixelRow>(row, width).cast<double>() / 255.0;
    out.labels[i] = samples.labels[order[i]];
  }
  return out;
}

std::vector<uint32_t> Identity(uint32_t n) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

}  // namespace

namespace {

std::string Directory(const IdxTaskSpec& spec) {
  return spec.directory.empty() || spec.directory.back() == '/' ? spec.directory
                                                                : spec.directory + "/";
}

// The headers of one image file and its label file, against what the task needs.
std::string CheckPair(const std::string& images_path, const std::string& labels_path,
                      uint32_t samples) {
  IdxReader images(images_path);
  IdxReader labels(labels_path);
  const std::vector<uint32_t> image_dims = images.Header(kImageMagic, 3, "image");
  const std::vector<uint32_t> label_dims = labels.Header(kLabelMagic, 1, "label");
  if (uint64_t{image_dims[1]} * image_dims[2] != kFashionMnistFeatures) {
    return images_path + " holds " + std::to_string(image_dims[1]) + " x " +
           std::to_string(image_dims[2]) + "-pixel images; Fashion-MNIST's are 28 x 28";
  }
  if (image_dims[0] != label_dims[0]) {
    return images_path + " holds " + std::to_string(image_dims[0]) + " images but " + labels_path +
           " " + std::to_string(label_dims[0]) + " labels";
  }
  if (image_dims[0] < samples) {
    return images_path + " holds " + std::to_string(image_dims[0]) + " images, fewer than the " +
           std::to_string(samples) + " asked for";
  }
  return "";
}

}  // namespace

std::string CheckFashionMnistFiles(const IdxTaskSpec& spec) {
  const std::string dir = Directory(spec);
  try {
    std::string problem = CheckPair(dir + "train-images-idx3-ubyte.gz",
                                    dir + "train-labels-idx1-ubyte.gz", spec.train_samples);
    if (problem.empty()) {
      problem = CheckPair(dir + "t10k-images-idx3-ubyte.gz", dir + "t10k-labels-idx1-ubyte.gz",
                          spec.test_samples);
    }
    return problem;
  } catch (const std::runtime_error& error) {
    return error.what();
  }
}

Dataset ReadIdxPair(const std::string& images_path, const std::string& labels_path,
                    uint32_t limit) {
  const IdxSamples samples = ReadSamples(images_path, labels_path, limit);
  return ToDataset(samples, Identity(samples.count));
}

SyntheticTask LoadFashionMnist(const IdxTaskSpec& spec) {
  const std::string dir = Directory(spec);
  const std::string train_images = dir + "train-images-idx3-ubyte.gz";
  const std::string test_images = dir + "t10k-images-idx3-ubyte.gz";
  SyntheticTask task;
  {
    const IdxSamples train =
        ReadSamples(train_images, dir + "train-labels-idx1-ubyte.gz", spec.train_samples);
    // Fisher-Yates on the selected rows only, so a smaller train_samples is a subset of the file's
    // head rather than a different draw from all of it.
    std::vector<uint32_t> order = Identity(train.count);
    DeterministicRng rng(spec.seed);
    for (uint32_t i = train.count - 1; i > 0; --i) {
      std::swap(order[i], order[rng.Below(uint64_t{i} + 1)]);
    }
    task.train = ToDataset(train, order);
  }
  task.test = ReadIdxPair(test_images, dir + "t10k-labels-idx1-ubyte.gz", spec.test_samples);
  if (task.train.features.cols() != task.test.features.cols()) {
    throw std::runtime_error(train_images + " has " + std::to_string(task.train.features.cols()) +
                             "-pixel images but " + test_images + " has " +
                             std::to_string(task.test.features.cols()) + "-pixel ones");
  }
  return task;
}

}  // namespace hfsim
