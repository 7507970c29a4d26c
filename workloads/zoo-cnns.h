// Convolutional models of the zoo (torchvision definitions, 224x224 ImageNet inputs).
#pragma once

#include "workloads/layer.h"

namespace hfsim {

/// torchvision resnet50 (v1.5: stride on the 3x3 conv). One row per conv ("conv1",
/// "layer<s>.<b>.conv<k>", "layer<s>.0.downsample") with its BatchNorm folded in, and "fc".
Model BuildResNet50();

/// torchvision vgg16 (no BatchNorm). Rows "conv1".."conv13", "fc6".."fc8".
Model BuildVgg16();

}  // namespace hfsim
