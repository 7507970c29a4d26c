// The small models each gossip worker really trains (S3): multinomial logistic regression and a
// one-hidden-layer MLP (tanh), with softmax cross-entropy, on Eigen. Parameters are one flat
// vector so that gossip rules can average, halve and add models without knowing their shape.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "base/name-table.h"
#include "models/learning/synthetic-data.h"

namespace hfsim {

enum class ClassifierKind { kLogistic, kMlp };
inline constexpr NameTable<ClassifierKind, 2> kClassifierKindNames = {{
    {ClassifierKind::kLogistic, "logistic"},
    {ClassifierKind::kMlp, "mlp"},
}};
inline std::string_view ToString(ClassifierKind kind) { return NameIn(kClassifierKindNames, kind); }

struct ClassifierSpec {
  ClassifierKind kind = ClassifierKind::kLogistic;
  uint32_t features = 16;
  uint32_t classes = 4;
  uint32_t hidden = 32;  ///< MLP only
};

class Classifier {
 public:
  explicit Classifier(const ClassifierSpec& spec);

  uint64_t ParameterCount() const;
  /// Small random weights (scaled by 1/sqrt(fan-in)), zero biases; the same seed gives every
  /// worker the same start, as data-parallel training does.
  Eigen::VectorXd Initial(uint64_t seed) const;
  /// Mean softmax cross-entropy over `rows` of `data`; its gradient in *gradient (resized).
  double LossAndGradient(const Eigen::VectorXd& parameters, const Dataset& data,
                         const std::vector<uint32_t>& rows, Eigen::VectorXd* gradient) const;
  /// Fraction of `data` classified correctly (argmax of the logits, lowest class on ties).
  double Accuracy(const Eigen::VectorXd& parameters, const Dataset& data) const;
  const ClassifierSpec& Spec() const { return m_spec; }

 private:
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  /// Logits of every row of `x`; with `hidden_out`, the MLP's hidden activations too.
  Eigen::MatrixXd Logits(const Eigen::VectorXd& p, const Eigen::MatrixXd& x,
                         Eigen::MatrixXd* hidden_out) const;

  ClassifierSpec m_spec;
};

}  // namespace hfsim
