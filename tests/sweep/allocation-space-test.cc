// The allocation spaces of a sweep against hand-written grids and lists and against an
// independent enumeration of splits (every composition of n steps into D parts, whose number is
// C(n + D - 1, D - 1)); the cursor's stepping against its unranking; the walker's random access.
#include "sim/sweep/allocation-space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

using test::CollectiveSweep;
using test::ParseOrFail;
using test::RingDims;

using Allocations = std::vector<std::vector<double>>;

Scenario WithAllocations(size_t dimension_count, const nlohmann::json& bandwidth_GBps) {
  return ParseOrFail(
      CollectiveSweep(RingDims(dimension_count), {{"bandwidth_GBps", bandwidth_GBps}}));
}

/// Every allocation of the space, by unranking each index on its own.
Allocations Unranked(const AllocationSpace& space) {
  Allocations out;
  for (uint64_t i = 0; i < space.Count(); ++i) {
    out.push_back(AllocationSpace::Cursor(space, i).Bandwidths());
  }
  return out;
}

/// Every allocation of the space, stepping one cursor from 0.
Allocations Stepped(const AllocationSpace& space) {
  Allocations out;
  AllocationSpace::Cursor cursor(space, 0);
  for (uint64_t i = 0; i < space.Count(); ++i, cursor.Advance()) {
    EXPECT_EQ(cursor.Index(), i);
    out.push_back(cursor.Bandwidths());
  }
  return out;
}

/// All D-tuples of non-negative integers with sum n, in lexicographic order (brute force).
void Compositions(uint64_t n, size_t D, std::vector<uint64_t>& prefix,
                  std::vector<std::vector<uint64_t>>& out) {
  if (prefix.size() + 1 == D) {
    uint64_t used = 0;
    for (uint64_t k : prefix) used += k;
    prefix.push_back(n - used);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  uint64_t used = 0;
  for (uint64_t k : prefix) used += k;
  for (uint64_t k = 0; used + k <= n; ++k) {
    prefix.push_back(k);
    Compositions(n, D, prefix, out);
    prefix.pop_back();
  }
}

TEST(SweepAllocationSpace, GridIsMixedRadixWithTheLastDimensionFastest) {
  const Scenario s = WithAllocations(2, {{"grid", {{10, 20}, {1, 2, 3}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  const Allocations expected = {{10, 1}, {10, 2}, {10, 3}, {20, 1}, {20, 2}, {20, 3}};
  EXPECT_EQ(space.Count(), 6u);
  EXPECT_EQ(space.DimensionCount(), 2u);
  EXPECT_EQ(Unranked(space), expected);
  EXPECT_EQ(Stepped(space), expected);
  EXPECT_TRUE(space.Varies(0));
  EXPECT_TRUE(space.Varies(1));
}

TEST(SweepAllocationSpace, GridAxisWithOneValueDoesNotVary) {
  const Scenario s = WithAllocations(3, {{"grid", {{5, 6}, {7}, {1, 2, 3, 4}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  EXPECT_EQ(space.Count(), 8u);
  EXPECT_TRUE(space.Varies(0));
  EXPECT_FALSE(space.Varies(1));
  EXPECT_TRUE(space.Varies(2));
  EXPECT_EQ(AllocationSpace::Cursor(space, 5).Bandwidths(), (std::vector<double>{6, 7, 2}));
}

TEST(SweepAllocationSpace, FromToStepAxesAreTheDecimalValues) {
  // 0.1 + 2 * 0.1 is 0.30000000000000004 in doubles; the axis holds the double nearest 0.3.
  const Scenario s = WithAllocations(3, {{"grid",
                                          {{{"from", 0.1}, {"to", 0.3}, {"step", 0.1}},
                                           {{"from", 10}, {"to", 25}, {"step", 5}},
                                           {{"from", 10}, {"to", 20}, {"step", 5}}}}});
  ASSERT_EQ(s.sweep.grid.size(), 3u);
  EXPECT_EQ(s.sweep.grid[0], (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(s.sweep.grid[1], (std::vector<double>{10, 15, 20, 25}));  // "to" included
  EXPECT_EQ(s.sweep.grid[2], (std::vector<double>{10, 15, 20}));  // a step not dividing the
                                                                  // range is refused (BadStep)
  const AllocationSpace space(s.sweep, s.dimensions);
  EXPECT_EQ(space.Count(), 36u);
  EXPECT_EQ(AllocationSpace::Cursor(space, 35).Bandwidths(), (std::vector<double>{0.3, 25, 20}));
}

class SweepSplitByDimensions : public ::testing::TestWithParam<size_t> {};

// total 100, step 5, min 10: n = (100 - 10 D) / 5 steps shared among D dimensions.
TEST_P(SweepSplitByDimensions, EveryCompositionOnceInLexicographicOrder) {
  const size_t D = GetParam();
  const double total = 100;
  const double step = 5;
  const double min = 10;
  const Scenario s = WithAllocations(
      D, {{"split", {{"total_GBps", total}, {"step_GBps", step}, {"min_GBps", min}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  const uint64_t n = static_cast<uint64_t>((total - min * D) / step);
  ASSERT_EQ(space.Count(), test::Binomial(n + D - 1, D - 1));

  std::vector<std::vector<uint64_t>> compositions;
  std::vector<uint64_t> prefix;
  Compositions(n, D, prefix, compositions);
  ASSERT_EQ(compositions.size(), space.Count());

  const Allocations allocations = Stepped(space);
  ASSERT_EQ(allocations.size(), space.Count());
  std::set<std::vector<double>> distinct;
  for (size_t i = 0; i < allocations.size(); ++i) {
    const std::vector<double>& a = allocations[i];
    ASSERT_EQ(a.size(), D);
    double sum = 0;
    for (size_t d = 0; d < D; ++d) {
      sum += a[d];
      EXPECT_GE(a[d], min);
      const double steps = (a[d] - min) / step;
      EXPECT_EQ(steps, std::round(steps)) << "allocation " << i << " dimension " << d;
      // Integers: the expected values are exact.
      EXPECT_EQ(a[d], min + step * static_cast<double>(compositions[i][d]))
          << "allocation " << i << " dimension " << d;
    }
    EXPECT_EQ(sum, total) << "allocation " << i;
    if (i > 0) {
      EXPECT_TRUE(std::lexicographical_compare(allocations[i - 1].begin(), allocations[i - 1].end(),
                                               a.begin(), a.end()))
          << "allocation " << i;
    }
    distinct.insert(a);
  }
  EXPECT_EQ(distinct.size(), allocations.size());
  EXPECT_EQ(Unranked(space), allocations);
  for (size_t d = 0; d < D; ++d) EXPECT_TRUE(space.Varies(d));
}

INSTANTIATE_TEST_SUITE_P(D, SweepSplitByDimensions, ::testing::Values(2, 3, 4, 5));

TEST(SweepAllocationSpace, SplitOfDecimalStepsGivesTheNearestDoubles) {
  // total 1, step 0.1, min 0.1 over 3 dimensions: n = 7, C(9, 2) = 36 splits; every value is
  // m / 10 for an integer m (the division is correctly rounded: the double nearest m/10).
  const Scenario s =
      WithAllocations(3, {{"split", {{"total_GBps", 1}, {"step_GBps", 0.1}, {"min_GBps", 0.1}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  ASSERT_EQ(space.Count(), 36u);
  std::set<std::vector<int>> tenths;
  for (const std::vector<double>& a : Stepped(space)) {
    std::vector<int> m;
    double sum = 0;
    for (double b : a) {
      const int t = static_cast<int>(std::lround(b * 10));
      EXPECT_EQ(b, t / 10.0);
      EXPECT_GE(t, 1);
      m.push_back(t);
      sum += b;
    }
    EXPECT_EQ(m[0] + m[1] + m[2], 10);
    EXPECT_NEAR(sum, 1.0, 1e-12);
    tenths.insert(m);
  }
  EXPECT_EQ(tenths.size(), 36u);
}

TEST(SweepAllocationSpace, SplitWhoseTotalIsNotWholeStepsGivesTheRestToTheLast) {
  // total 10, step 3, min 1: the first dimensions take 1, 4, 7, ...; the last the rest (>= 1).
  {
    const Scenario s =
        WithAllocations(2, {{"split", {{"total_GBps", 10}, {"step_GBps", 3}, {"min_GBps", 1}}}});
    const AllocationSpace space(s.sweep, s.dimensions);
    const Allocations expected = {{1, 9}, {4, 6}, {7, 3}};
    EXPECT_EQ(Stepped(space), expected);
    EXPECT_EQ(Unranked(space), expected);
  }
  {
    const Scenario s =
        WithAllocations(3, {{"split", {{"total_GBps", 10}, {"step_GBps", 3}, {"min_GBps", 1}}}});
    const AllocationSpace space(s.sweep, s.dimensions);
    const Allocations expected = {{1, 1, 8}, {1, 4, 5}, {1, 7, 2}, {4, 1, 5}, {4, 4, 2}, {7, 1, 2}};
    EXPECT_EQ(Stepped(space), expected);
    EXPECT_EQ(Unranked(space), expected);
  }
}

TEST(SweepAllocationSpace, SplitWithoutRoomIsOneAllocation) {
  const Scenario s =
      WithAllocations(3, {{"split", {{"total_GBps", 30}, {"step_GBps", 5}, {"min_GBps", 10}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  EXPECT_EQ(Stepped(space), (Allocations{{10, 10, 10}}));
  for (uint32_t d = 0; d < 3; ++d) EXPECT_FALSE(space.Varies(d));
}

TEST(SweepAllocationSpace, SplitMinimumDefaultsToTheStep) {
  const Scenario s = WithAllocations(2, {{"split", {{"total_GBps", 20}, {"step_GBps", 5}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  EXPECT_EQ(Stepped(space), (Allocations{{5, 15}, {10, 10}, {15, 5}}));
}

class SweepCursorByDimensions : public ::testing::TestWithParam<size_t> {};

// A cursor stepped from 0, and one stepped from the middle, visit what unranking gives.
TEST_P(SweepCursorByDimensions, AdvanceVisitsWhatUnrankingGives) {
  const size_t D = GetParam();
  const Scenario s =
      WithAllocations(D, {{"split", {{"total_GBps", 100}, {"step_GBps", 2}, {"min_GBps", 2}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  const uint64_t n = (100 - 2 * D) / 2;
  ASSERT_EQ(space.Count(), test::Binomial(n + D - 1, D - 1));
  AllocationSpace::Cursor cursor(space, 0);
  for (uint64_t i = 0; i < space.Count(); ++i, cursor.Advance()) {
    ASSERT_EQ(cursor.Index(), i);
    ASSERT_EQ(cursor.Bandwidths(), AllocationSpace::Cursor(space, i).Bandwidths()) << "index " << i;
  }
  const uint64_t start = space.Count() / 3;
  AllocationSpace::Cursor middle(space, start);
  for (uint64_t i = start; i < std::min(space.Count(), start + 500); ++i, middle.Advance()) {
    ASSERT_EQ(middle.Bandwidths(), AllocationSpace::Cursor(space, i).Bandwidths()) << "index " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(D, SweepCursorByDimensions, ::testing::Values(2, 3, 4));

TEST(SweepAllocationSpace, GridCursorAdvanceVisitsWhatUnrankingGives) {
  const Scenario s = WithAllocations(4, {{"grid", {{1, 2, 3}, {4}, {5, 6}, {7, 8, 9, 10}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  ASSERT_EQ(space.Count(), 24u);
  Allocations expected;
  for (double a : {1, 2, 3}) {
    for (double c : {5, 6}) {
      for (double d : {7, 8, 9, 10}) expected.push_back({a, 4, c, d});
    }
  }
  EXPECT_EQ(Stepped(space), expected);
  EXPECT_EQ(Unranked(space), expected);
}

TEST(SweepAllocationSpace, WalkerGivesEveryAllocationInAnyOrder) {
  const Scenario s =
      WithAllocations(4, {{"split", {{"total_GBps", 60}, {"step_GBps", 2.5}, {"min_GBps", 5}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  const Allocations all = Unranked(space);
  AllocationWalker walker(space);
  std::mt19937_64 random(7);
  std::uniform_int_distribution<uint64_t> pick(0, space.Count() - 1);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t index = pick(random);
    ASSERT_EQ(walker.At(index), all[index]) << "index " << index;
    // Runs of consecutive indices (the cursor steps), and the same index again.
    if (index + 1 < space.Count()) {
      ASSERT_EQ(walker.At(index + 1), all[index + 1]);
    }
    ASSERT_EQ(walker.At(std::min(index + 1, space.Count() - 1)),
              all[std::min(index + 1, space.Count() - 1)]);
  }
  for (uint64_t i = space.Count(); i-- > 0;) ASSERT_EQ(walker.At(i), all[i]) << "index " << i;
}

TEST(SweepAllocationSpace, ListKeepsItsOrder) {
  const Scenario s = WithAllocations(2, {{"list", {{1, 2}, {3, 4}, {1, 0.5}}}});
  const AllocationSpace space(s.sweep, s.dimensions);
  const Allocations expected = {{1, 2}, {3, 4}, {1, 0.5}};
  EXPECT_EQ(Stepped(space), expected);
  EXPECT_EQ(Unranked(space), expected);
  EXPECT_TRUE(space.Varies(0));
  EXPECT_TRUE(space.Varies(1));

  const Scenario same_first = WithAllocations(2, {{"list", {{7, 2}, {7, 4}}}});
  const AllocationSpace other(same_first.sweep, same_first.dimensions);
  EXPECT_FALSE(other.Varies(0));
  EXPECT_TRUE(other.Varies(1));
}

TEST(SweepAllocationSpace, WithoutBandwidthsTheTopologysOwnIsTheOneAllocation) {
  nlohmann::json dims =
      test::Dims(test::Dim("Ring", 4, 100, 50), test::Dim("Switch", 2, 12.5, 500));
  const Scenario s = ParseOrFail(CollectiveSweep(
      dims,
      {{"parameters", {{{"path", "workload.collective.size_bytes"}, {"values", {1024, 2048}}}}}}));
  EXPECT_EQ(s.sweep.allocations, AllocationSetKind::kTopology);
  const AllocationSpace space(s.sweep, s.dimensions);
  EXPECT_EQ(Stepped(space), (Allocations{{100, 12.5}}));
  EXPECT_FALSE(space.Varies(0));
  EXPECT_FALSE(space.Varies(1));
}

TEST(SweepAllocationSpace, ShippedConfigHasTheCountsItsDescriptionStates) {
  // Every split of 500 in steps of 5, at least 5 each, over 4 dimensions: n = (500 - 20) / 5 = 96
  // steps, C(99, 3) = 156,849 allocations; two sizes.
  std::ifstream file(std::string(HFSIM_SOURCE_DIR) + "/configs/sweep-allreduce-4d.json");
  const nlohmann::json document = nlohmann::json::parse(file);
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->AllocationCount(), test::Binomial(99, 3));
  EXPECT_EQ(plan->AllocationCount(), 156849u);
  EXPECT_EQ(plan->PointCount(), 2 * 156849u);
  const std::string description = document["description"];
  EXPECT_NE(description.find("156,849 allocations"), std::string::npos);
  EXPECT_NE(description.find("313,698 points"), std::string::npos);
  const AllocationSpace& space = plan->Space();
  EXPECT_EQ(AllocationSpace::Cursor(space, 0).Bandwidths(), (std::vector<double>{5, 5, 5, 485}));
  EXPECT_EQ(AllocationSpace::Cursor(space, space.Count() - 1).Bandwidths(),
            (std::vector<double>{485, 5, 5, 5}));
}

}  // namespace
}  // namespace hfsim
