// The allocations of a sweep, numbered 0..Count()-1 in a fixed order so that a point's number
// alone says what it is: resumed and sharded sweeps agree on every point without talking.
//
//   grid:  mixed radix over the axes, the last dimension fastest;
//   split: the (D-1)-tuples of step counts k with sum k <= n in lexicographic order, the last
//          dimension taking the rest of the total;
//   list:  the list's order; topology: one allocation, the scenario's bandwidths.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/scenario/scenario.h"

namespace hfsim {

class AllocationSpace {
 public:
  /// `spec` must have been validated by the loader for `dimensions`.
  AllocationSpace(const SweepSpec& spec, const std::vector<Dimension>& dimensions);

  uint64_t Count() const { return m_count; }
  uint32_t DimensionCount() const { return m_dimension_count; }
  /// Whether dimension d takes more than one value over the space.
  bool Varies(uint32_t d) const;

  /// Walks the space in order from any point; cheap per step (no unranking).
  class Cursor {
   public:
    Cursor(const AllocationSpace& space, uint64_t index);
    uint64_t Index() const { return m_index; }
    /// Bandwidth of each dimension in GB/s at the current point.
    const std::vector<double>& Bandwidths() const { return m_bandwidths; }
    void Advance();

   private:
    void Fill();
    const AllocationSpace* m_space;
    uint64_t m_index;
    std::vector<uint64_t> m_digits;
    std::vector<double> m_bandwidths;
  };

 private:
  friend class Cursor;
  double SplitValue(uint64_t steps) const;
  /// Number of r-tuples of non-negative integers with sum <= budget: C(budget + r, r).
  static uint64_t Tuples(uint64_t budget, uint32_t r);

  AllocationSetKind m_kind;
  uint32_t m_dimension_count;
  uint64_t m_count = 0;
  std::vector<std::vector<double>> m_axes;  ///< grid; list (one entry per allocation); topology
  SplitSpec m_split;
  uint64_t m_split_units = 0;  ///< n: steps to share among the first D-1 dimensions
  /// min + k * step for k = 0..n, rounded once here rather than per point.
  std::vector<double> m_split_values;
  /// Whether total - D*min is a whole number of steps: then the last dimension's value is
  /// also in m_split_values (else it is rounded per point).
  bool m_split_exact = false;
};

/// Random access that is cheap for runs of consecutive allocations (a cursor stepped forward),
/// which is how workers and writers visit them.
class AllocationWalker {
 public:
  explicit AllocationWalker(const AllocationSpace& space) : m_space(&space) {}
  /// Bandwidths in GB/s of `allocation` (< Count()); valid until the next call.
  const std::vector<double>& At(uint64_t allocation) {
    if (m_cursor && m_cursor->Index() + 1 == allocation) {
      m_cursor->Advance();
    } else if (!m_cursor || m_cursor->Index() != allocation) {
      m_cursor.emplace(*m_space, allocation);
    }
    return m_cursor->Bandwidths();
  }

 private:
  const AllocationSpace* m_space;
  std::optional<AllocationSpace::Cursor> m_cursor;
};

}  // namespace hfsim
