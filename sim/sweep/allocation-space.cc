#include "sim/sweep/allocation-space.h"

#include <cmath>
#include <string>

#include "sim/scenario/sweep-section.h"

namespace hfsim {

AllocationSpace::AllocationSpace(const SweepSpec& spec, const std::vector<Dimension>& dimensions)
    : m_kind(spec.allocations), m_dimension_count(static_cast<uint32_t>(dimensions.size())),
      m_split(spec.split) {
  switch (m_kind) {
    case AllocationSetKind::kTopology: {
      std::vector<double> own;
      for (const Dimension& d : dimensions) own.push_back(d.bandwidth_Bpns);
      m_axes.push_back(own);
      m_count = 1;
      break;
    }
    case AllocationSetKind::kGrid:
      m_axes = spec.grid;
      m_count = 1;
      for (const auto& axis : m_axes) m_count *= axis.size();
      break;
    case AllocationSetKind::kList:
      m_axes = spec.list;
      m_count = m_axes.size();
      break;
    case AllocationSetKind::kSplit:
      m_split_units = static_cast<uint64_t>(
          std::floor((m_split.total_GBps - m_dimension_count * m_split.min_GBps) /
                     m_split.step_GBps * (1.0 + 1e-12) + 1e-9));
      m_count = Tuples(m_split_units, m_dimension_count - 1);
      for (uint64_t k = 0; k <= m_split_units; ++k) {
        m_split_values.push_back(
            RoundSweepValue(m_split.min_GBps + static_cast<double>(k) * m_split.step_GBps));
      }
      m_split_exact = RoundSweepValue(m_split.min_GBps * m_dimension_count +
                              static_cast<double>(m_split_units) * m_split.step_GBps) ==
                      RoundSweepValue(m_split.total_GBps);
      break;
  }
}

uint64_t AllocationSpace::Tuples(uint64_t budget, uint32_t r) {
  // C(budget + r, r) built up one factor at a time; exact while it fits (the loader caps it).
  uint64_t value = 1;
  for (uint32_t k = 1; k <= r; ++k) value = value * (budget + k) / k;
  return value;
}

double AllocationSpace::SplitValue(uint64_t steps) const { return m_split_values[steps]; }

bool AllocationSpace::Varies(uint32_t d) const {
  switch (m_kind) {
    case AllocationSetKind::kTopology: return false;
    case AllocationSetKind::kGrid: return m_axes[d].size() > 1;
    case AllocationSetKind::kSplit: return m_split_units > 0;
    case AllocationSetKind::kList:
      for (const auto& allocation : m_axes) {
        if (allocation[d] != m_axes.front()[d]) return true;
      }
      return false;
  }
  return false;
}

AllocationSpace::Cursor::Cursor(const AllocationSpace& space, uint64_t index)
    : m_space(&space), m_index(index), m_digits(space.m_dimension_count, 0),
      m_bandwidths(space.m_dimension_count, 0.0) {
  if (index >= space.m_count) return;
  const uint32_t D = space.m_dimension_count;
  if (space.m_kind == AllocationSetKind::kGrid) {
    uint64_t rest = index;
    for (uint32_t d = D; d-- > 0;) {
      m_digits[d] = rest % space.m_axes[d].size();
      rest /= space.m_axes[d].size();
    }
  } else if (space.m_kind == AllocationSetKind::kSplit) {
    // Unrank: for each leading dimension, skip whole blocks of completions.
    uint64_t rest = index;
    uint64_t budget = space.m_split_units;
    for (uint32_t d = 0; d + 1 < D; ++d) {
      const uint32_t later = D - 2 - d;
      uint64_t k = 0;
      while (true) {
        const uint64_t block = Tuples(budget - k, later);
        if (rest < block) break;
        rest -= block;
        ++k;
      }
      m_digits[d] = k;
      budget -= k;
    }
  }
  Fill();
}

void AllocationSpace::Cursor::Fill() {
  const AllocationSpace& s = *m_space;
  const uint32_t D = s.m_dimension_count;
  switch (s.m_kind) {
    case AllocationSetKind::kTopology: m_bandwidths = s.m_axes[0]; break;
    case AllocationSetKind::kList: m_bandwidths = s.m_axes[m_index]; break;
    case AllocationSetKind::kGrid:
      for (uint32_t d = 0; d < D; ++d) m_bandwidths[d] = s.m_axes[d][m_digits[d]];
      break;
    case AllocationSetKind::kSplit: {
      double used = 0.0;
      uint64_t steps = 0;
      for (uint32_t d = 0; d + 1 < D; ++d) {
        m_bandwidths[d] = s.SplitValue(m_digits[d]);
        used += m_bandwidths[d];
        steps += m_digits[d];
      }
      // The last dimension takes the rest: a table entry when the total is a whole number of
      // steps (the same value the rounding below gives, without formatting a number).
      m_bandwidths[D - 1] = s.m_split_exact ? s.SplitValue(s.m_split_units - steps)
                                            : RoundSweepValue(s.m_split.total_GBps - used);
      break;
    }
  }
}

void AllocationSpace::Cursor::Advance() {
  const AllocationSpace& s = *m_space;
  ++m_index;
  if (m_index >= s.m_count) return;
  const uint32_t D = s.m_dimension_count;
  if (s.m_kind == AllocationSetKind::kGrid) {
    for (uint32_t d = D; d-- > 0;) {
      if (++m_digits[d] < s.m_axes[d].size()) break;
      m_digits[d] = 0;
    }
  } else if (s.m_kind == AllocationSetKind::kSplit) {
    // Lexicographic successor among tuples with sum <= n: bump the last free digit that can
    // grow, zeroing the ones after it.
    uint64_t sum = 0;
    for (uint32_t d = 0; d + 1 < D; ++d) sum += m_digits[d];
    for (uint32_t d = D - 1; d-- > 0;) {
      if (sum < s.m_split_units) {
        ++m_digits[d];
        break;
      }
      sum -= m_digits[d];
      m_digits[d] = 0;
    }
  }
  Fill();
}

}  // namespace hfsim
