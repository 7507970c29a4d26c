// The Zipf sampler against the closed-form pmf p(k) = (k+1)^-s / H(n, s): Pearson's chi-square
// over all keys with a fixed seed, below the 0.1% critical value of its degrees of freedom.
#include "workloads/zipf-sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace hfsim {
namespace {

// Chi-square of `draws` samples against the pmf over [0, n); keys beyond `buckets - 1` are
// pooled into the last bucket.
double ChiSquare(uint64_t n, double s, uint64_t draws, uint64_t buckets, uint64_t seed) {
  const ZipfSampler sampler(n, s);
  std::mt19937_64 engine(seed);
  std::vector<double> observed(buckets, 0.0);
  for (uint64_t i = 0; i < draws; ++i) {
    const uint64_t key = sampler.Sample(engine);
    EXPECT_LT(key, n);
    observed[std::min(key, buckets - 1)] += 1.0;
  }
  // The pmf's weights summed once (ZipfProbability sums the normaliser on every call, which
  // over 100,000 keys would be 10^10 terms); checked against ZipfProbability at the ends.
  std::vector<double> weight(n);
  double normaliser = 0.0;
  for (uint64_t k = n; k-- > 0;) {  // smallest terms first, as ZipfProbability does
    weight[k] = std::pow(static_cast<double>(k + 1), -s);
    normaliser += weight[k];
  }
  EXPECT_NEAR(weight[0] / normaliser, ZipfProbability(0, n, s), 1e-12);
  EXPECT_NEAR(weight[n - 1] / normaliser, ZipfProbability(n - 1, n, s), 1e-15);
  std::vector<double> expected(buckets, 0.0);
  for (uint64_t k = 0; k < n; ++k) {
    expected[std::min(k, buckets - 1)] += weight[k] / normaliser * static_cast<double>(draws);
  }
  double chi2 = 0.0;
  for (uint64_t b = 0; b < buckets; ++b) {
    chi2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
  }
  return chi2;
}

// Critical values of chi-square at p = 0.001 (standard tables): 19 df 43.82, 49 df 85.35.
TEST(ZipfSampler, MatchesPmfForSkewOnePointOne) {
  // 50 keys, 200,000 draws: the rarest key still expects ~750 draws.
  EXPECT_LT(ChiSquare(50, 1.1, 200000, 50, 12345), 85.35);
}

TEST(ZipfSampler, MatchesPmfForSkewExactlyOne) {
  // s = 1 takes the series branches of the helpers (1 - s = 0).
  EXPECT_LT(ChiSquare(50, 1.0, 200000, 50, 7), 85.35);
}

TEST(ZipfSampler, MatchesPmfForSteepSkewOnLargeSpace) {
  // 100,000 keys, s = 2: the first 19 keys one by one, the long tail pooled (20 buckets).
  EXPECT_LT(ChiSquare(100000, 2.0, 200000, 20, 99), 43.82);
}

TEST(ZipfSampler, ExponentZeroIsUniform) {
  EXPECT_LT(ChiSquare(20, 0.0, 100000, 20, 3), 43.82);
  EXPECT_DOUBLE_EQ(ZipfProbability(7, 20, 0.0), 1.0 / 20.0);
}

TEST(ZipfSampler, HugeKeySpaceStaysInRangeAndFavoursKeyZero) {
  // 2^50 keys (no table could hold them): key 0 has p = 1 / H(2^50, 1.1), and H(n, 1.1) for
  // large n is zeta(1.1) - n^-0.1 / 0.1 + ... = 10.584 - 10 * 2^-5 = 10.27 (to 0.5%).
  const uint64_t n = uint64_t{1} << 50;
  const ZipfSampler sampler(n, 1.1);
  std::mt19937_64 engine(5);
  const int draws = 100000;
  int zeros = 0;
  for (int i = 0; i < draws; ++i) {
    const uint64_t key = sampler.Sample(engine);
    ASSERT_LT(key, n);
    zeros += key == 0 ? 1 : 0;
  }
  const double p = 1.0 / 10.27;
  const double sigma = std::sqrt(draws * p * (1 - p));
  EXPECT_NEAR(zeros, draws * p, 4 * sigma + 0.005 * draws * p);
}

TEST(ZipfSampler, SameSeedSameKeys) {
  const ZipfSampler sampler(1000, 1.1);
  std::mt19937_64 a(42), b(42);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sampler.Sample(a), sampler.Sample(b));
}

TEST(ZipfSampler, RejectsBadArguments) {
  EXPECT_THROW(ZipfSampler(0, 1.0), std::invalid_argument);
  EXPECT_THROW(ZipfSampler(10, -0.5), std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
