// The compression baselines THC is compared with (S5): none (fp32), FP16, and top-k
// sparsification with optional error feedback.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace hfsim {

/// IEEE 754 binary16 from binary32, round to nearest even, with subnormals, overflow to infinity
/// and NaN kept (quiet). Bit exact, no hardware support needed.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t half);

struct SparseVector {
  std::vector<uint32_t> index;  ///< ascending
  std::vector<float> value;
};

/// Top-k: keeps the k = max(1, round(fraction d)) largest magnitudes (ties: the lower index), sent
/// as (uint32 index, fp32 value) pairs. With error feedback, what was dropped is added back to the
/// next gradient.
class TopKCompressor {
 public:
  TopKCompressor(uint64_t dimension, double fraction, bool error_feedback);
  uint64_t K() const { return m_k; }
  SparseVector Compress(const Eigen::VectorXd& gradient);
  Eigen::VectorXd Decompress(const SparseVector& sparse) const;
  const Eigen::VectorXd& Residual() const { return m_residual; }

 private:
  uint64_t m_dimension;
  uint64_t m_k;
  bool m_error_feedback;
  Eigen::VectorXd m_residual;
};

}  // namespace hfsim
