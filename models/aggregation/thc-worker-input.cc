#include "models/aggregation/thc-worker-input.h"

#include <algorithm>
#include <cmath>

namespace hfsim {

int8_t ThcNormExponent(double norm) {
  int exponent = 0;
  std::frexp(norm, &exponent);
  return static_cast<int8_t>(std::clamp(exponent, -128, 127));
}

ThcWorkerInput MakeThcWorkerInput(ThcWorker& encoder, const Eigen::VectorXd& gradient,
                                  std::vector<uint8_t>* packed) {
  ThcWorkerInput input;
  input.norm_exponent = ThcNormExponent(encoder.Prepare(gradient));
  input.coordinates = encoder.PaddedLength();
  input.encode = [&encoder, packed](int32_t agreed) {
    std::vector<uint8_t> bytes = encoder.Encode(std::ldexp(1.0, agreed));
    std::vector<uint32_t> indices =
        UnpackIndices(bytes, encoder.Config().bits, encoder.PaddedLength());
    if (packed != nullptr) *packed = std::move(bytes);
    return indices;
  };
  return input;
}

}  // namespace hfsim
