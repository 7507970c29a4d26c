#include "models/learning/classifier.h"

#include <cmath>
#include <stdexcept>

#include "base/deterministic-rng.h"

namespace hfsim {

namespace {

// Parameter layout (all row-major): logistic W (C x F), b (C); MLP W1 (H x F), b1 (H), W2 (C x H),
// b2 (C).
struct Layout {
  uint64_t w1 = 0, b1 = 0, w2 = 0, b2 = 0, total = 0;
};

Layout LayoutOf(const ClassifierSpec& s) {
  Layout l;
  if (s.kind == ClassifierKind::kLogistic) {
    l.w1 = 0;
    l.b1 = uint64_t{s.classes} * s.features;
    l.total = l.b1 + s.classes;
    return l;
  }
  l.b1 = uint64_t{s.hidden} * s.features;
  l.w2 = l.b1 + s.hidden;
  l.b2 = l.w2 + uint64_t{s.classes} * s.hidden;
  l.total = l.b2 + s.classes;
  return l;
}

// Row-wise softmax, shifted by the row maximum for stability.
Eigen::MatrixXd Softmax(const Eigen::MatrixXd& logits) {
  Eigen::MatrixXd p = logits.colwise() - logits.rowwise().maxCoeff();
  p = p.array().exp();
  p.array().colwise() /= p.rowwise().sum().array();
  return p;
}

}  // namespace

Classifier::Classifier(const ClassifierSpec& spec) : m_spec(spec) {
  if (spec.features == 0 || spec.classes < 2 || (spec.kind == ClassifierKind::kMlp && spec.hidden == 0)) {
    throw std::invalid_argument("Classifier: needs features, at least 2 classes and hidden units");
  }
}

uint64_t Classifier::ParameterCount() const { return LayoutOf(m_spec).total; }

Eigen::VectorXd Classifier::Initial(uint64_t seed) const {
  const Layout l = LayoutOf(m_spec);
  Eigen::VectorXd p = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(l.total));
  DeterministicRng rng(seed);
  auto fill = [&](uint64_t begin, uint64_t end, double fan_in) {
    for (uint64_t i = begin; i < end; ++i) p(static_cast<Eigen::Index>(i)) = rng.Normal() / std::sqrt(fan_in);
  };
  fill(l.w1, l.b1, m_spec.features);
  if (m_spec.kind == ClassifierKind::kMlp) fill(l.w2, l.b2, m_spec.hidden);
  return p;
}

Eigen::MatrixXd Classifier::Logits(const Eigen::VectorXd& p, const Eigen::MatrixXd& x,
                                   Eigen::MatrixXd* hidden_out) const {
  const Layout l = LayoutOf(m_spec);
  const auto f = static_cast<Eigen::Index>(m_spec.features);
  const auto c = static_cast<Eigen::Index>(m_spec.classes);
  if (m_spec.kind == ClassifierKind::kLogistic) {
    Eigen::Map<const RowMatrix> w(p.data() + l.w1, c, f);
    Eigen::Map<const Eigen::VectorXd> b(p.data() + l.b1, c);
    return (x * w.transpose()).rowwise() + b.transpose();
  }
  const auto h = static_cast<Eigen::Index>(m_spec.hidden);
  Eigen::Map<const RowMatrix> w1(p.data() + l.w1, h, f);
  Eigen::Map<const Eigen::VectorXd> b1(p.data() + l.b1, h);
  Eigen::Map<const RowMatrix> w2(p.data() + l.w2, c, h);
  Eigen::Map<const Eigen::VectorXd> b2(p.data() + l.b2, c);
  Eigen::MatrixXd hidden = ((x * w1.transpose()).rowwise() + b1.transpose()).array().tanh();
  Eigen::MatrixXd logits = (hidden * w2.transpose()).rowwise() + b2.transpose();
  if (hidden_out != nullptr) *hidden_out = std::move(hidden);
  return logits;
}

double Classifier::LossAndGradient(const Eigen::VectorXd& p, const Dataset& data,
                                   const std::vector<uint32_t>& rows,
                                   Eigen::VectorXd* gradient) const {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd x(n, data.features.cols());
  Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, m_spec.classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    x.row(i) = data.features.row(rows[static_cast<size_t>(i)]);
    y(i, data.labels[rows[static_cast<size_t>(i)]]) = 1.0;
  }
  Eigen::MatrixXd hidden;
  const Eigen::MatrixXd logits = Logits(p, x, &hidden);
  const Eigen::MatrixXd prob = Softmax(logits);
  const double loss = -(y.array() * prob.array().max(1e-300).log()).sum() / static_cast<double>(n);
  if (gradient == nullptr) return loss;

  const Layout l = LayoutOf(m_spec);
  gradient->setZero(static_cast<Eigen::Index>(l.total));
  const Eigen::MatrixXd d_logits = (prob - y) / static_cast<double>(n);
  const auto f = static_cast<Eigen::Index>(m_spec.features);
  const auto c = static_cast<Eigen::Index>(m_spec.classes);
  if (m_spec.kind == ClassifierKind::kLogistic) {
    Eigen::Map<RowMatrix>(gradient->data() + l.w1, c, f) = d_logits.transpose() * x;
    Eigen::Map<Eigen::VectorXd>(gradient->data() + l.b1, c) = d_logits.colwise().sum().transpose();
    return loss;
  }
  const auto h = static_cast<Eigen::Index>(m_spec.hidden);
  Eigen::Map<const RowMatrix> w2(p.data() + l.w2, c, h);
  Eigen::Map<RowMatrix>(gradient->data() + l.w2, c, h) = d_logits.transpose() * hidden;
  Eigen::Map<Eigen::VectorXd>(gradient->data() + l.b2, c) = d_logits.colwise().sum().transpose();
  const Eigen::MatrixXd d_hidden =
      ((d_logits * w2).array() * (1.0 - hidden.array().square())).matrix();
  Eigen::Map<RowMatrix>(gradient->data() + l.w1, h, f) = d_hidden.transpose() * x;
  Eigen::Map<Eigen::VectorXd>(gradient->data() + l.b1, h) = d_hidden.colwise().sum().transpose();
  return loss;
}

double Classifier::Accuracy(const Eigen::VectorXd& p, const Dataset& data) const {
  const Eigen::MatrixXd logits = Logits(p, data.features, nullptr);
  uint32_t correct = 0;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    Eigen::Index best = 0;
    logits.row(i).maxCoeff(&best);
    correct += static_cast<uint32_t>(best) == data.labels[static_cast<size_t>(i)];
  }
  return static_cast<double>(correct) / static_cast<double>(data.Samples());
}

}  // namespace hfsim
