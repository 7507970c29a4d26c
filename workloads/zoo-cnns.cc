#include "workloads/zoo-cnns.h"

#include <string>
#include <utility>

namespace hfsim {
namespace {

constexpr uint64_t kImageSize = 224;
constexpr uint64_t kImageChannels = 3;
constexpr uint64_t kImageNetClasses = 1000;

/// An activation of `channels` x `hw` x `hw`.
struct Shape {
  uint64_t channels = 0;
  uint64_t hw = 0;
};

/// What follows a conv's multiply-adds: a bias (out parameters) or a BatchNorm (scale and shift,
/// 2 * out parameters; its running statistics are buffers, not trained). Either way it is folded
/// into the conv's row.
enum class ConvTail { kBias, kBatchNorm };

/// Walks the activation shape through the network so that each layer's output size, and with it
/// its MACs, follows from kernel, stride and padding rather than from a table. Pooling changes the
/// shape but trains nothing and does no multiply-adds, so it adds no row.
class CnnBuilder {
 public:
  explicit CnnBuilder(std::string name) : m_shape{kImageChannels, kImageSize} {
    m_model.name = std::move(name);
  }

  Shape GetShape() const { return m_shape; }
  void SetShape(Shape shape) { m_shape = shape; }

  void Conv(std::string name, uint64_t out_channels, uint64_t kernel, uint64_t stride,
            uint64_t padding, ConvTail tail) {
    const uint64_t out_hw = SlideOutput(kernel, stride, padding);
    const uint64_t weights = kernel * kernel * m_shape.channels * out_channels;
    const uint64_t tail_params = tail == ConvTail::kBias ? out_channels : 2 * out_channels;
    // Every weight is applied once at every output position.
    AddRow(std::move(name), weights + tail_params, weights * out_hw * out_hw,
           out_channels * out_hw * out_hw);
    m_shape = {out_channels, out_hw};
  }

  void Pool(uint64_t kernel, uint64_t stride, uint64_t padding) {
    m_shape.hw = SlideOutput(kernel, stride, padding);
  }

  void GlobalAveragePool() { m_shape.hw = 1; }

  /// Fully connected layer on the flattened activation.
  void Linear(std::string name, uint64_t out_features) {
    const uint64_t weights = m_shape.channels * m_shape.hw * m_shape.hw * out_features;
    AddRow(std::move(name), weights + out_features, weights, out_features);
    m_shape = {out_features, 1};
  }

  Model Finish() { return std::move(m_model); }

 private:
  uint64_t SlideOutput(uint64_t kernel, uint64_t stride, uint64_t padding) const {
    return (m_shape.hw + 2 * padding - kernel) / stride + 1;
  }

  void AddRow(std::string name, uint64_t params, uint64_t macs, uint64_t output_elements) {
    Layer layer;
    layer.name = std::move(name);
    layer.params = params;
    layer.forward_flops_per_sample = 2.0 * static_cast<double>(macs);
    layer.output_elements_per_sample = output_elements;
    m_model.layers.push_back(std::move(layer));
  }

  Model m_model;
  Shape m_shape;
};

}  // namespace

Model BuildResNet50() {
  constexpr uint64_t kExpansion = 4;
  constexpr uint64_t kStageWidths[] = {64, 128, 256, 512};
  constexpr uint32_t kStageBlocks[] = {3, 4, 6, 3};
  CnnBuilder net("resnet50");
  net.Conv("conv1", 64, 7, 2, 3, ConvTail::kBatchNorm);  // 224 -> 112
  net.Pool(3, 2, 1);                                     // 112 -> 56
  for (int stage = 0; stage < 4; ++stage) {
    const uint64_t width = kStageWidths[stage];
    for (uint32_t block = 0; block < kStageBlocks[stage]; ++block) {
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      // Stages 2-4 halve the resolution in their first block, on the 3x3 conv (v1.5).
      const uint64_t stride = (block == 0 && stage > 0) ? 2 : 1;
      const Shape input = net.GetShape();
      net.Conv(prefix + "conv1", width, 1, 1, 0, ConvTail::kBatchNorm);
      net.Conv(prefix + "conv2", width, 3, stride, 1, ConvTail::kBatchNorm);
      net.Conv(prefix + "conv3", width * kExpansion, 1, 1, 0, ConvTail::kBatchNorm);
      // The first block of every stage changes the channel count (and stage 2-4 the resolution),
      // so its shortcut is a strided 1x1 conv + BN applied to the block's input.
      if (block == 0) {
        const Shape output = net.GetShape();
        net.SetShape(input);
        net.Conv(prefix + "downsample", width * kExpansion, 1, stride, 0, ConvTail::kBatchNorm);
        net.SetShape(output);
      }
    }
  }
  net.GlobalAveragePool();
  net.Linear("fc", kImageNetClasses);
  return net.Finish();
}

Model BuildVgg16() {
  // torchvision configuration "D": conv widths, 0 marking a 2x2/2 max pool.
  constexpr uint64_t kConfig[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                                  0,  512, 512, 512, 0,   512, 512, 512, 0};
  CnnBuilder net("vgg16");
  int conv = 0;
  for (uint64_t width : kConfig) {
    if (width == 0) {
      net.Pool(2, 2, 0);
    } else {
      net.Conv("conv" + std::to_string(++conv), width, 3, 1, 1, ConvTail::kBias);
    }
  }
  // torchvision's AdaptiveAvgPool2d(7) is the identity for 224x224 inputs (already 512x7x7).
  net.Linear("fc6", 4096);
  net.Linear("fc7", 4096);
  net.Linear("fc8", kImageNetClasses);
  return net.Finish();
}

}  // namespace hfsim
