// Sets of ranks as bit words: which peers' contributions a rank holds for one block. Shared by
// the schedule check (models/schedule-check.cc) and the packet executor's replay of what really
// happened (sim/messages/collective-executor.cc), so both judge "aggregated exactly once" alike.
#pragma once

#include <bit>
#include <cstdint>

namespace hfsim::rank_set {

inline bool IsEmpty(const uint64_t* set, uint32_t words) {
  for (uint32_t w = 0; w < words; ++w) {
    if (set[w] != 0) return false;
  }
  return true;
}

/// First rank in a AND b, or -1.
inline int64_t FirstCommon(const uint64_t* a, const uint64_t* b, uint32_t words) {
  for (uint32_t w = 0; w < words; ++w) {
    if (const uint64_t both = a[w] & b[w]) return 64 * w + std::countr_zero(both);
  }
  return -1;
}

/// First rank in a but not in b, or -1.
inline int64_t FirstMissing(const uint64_t* a, const uint64_t* b, uint32_t words) {
  for (uint32_t w = 0; w < words; ++w) {
    if (const uint64_t only_a = a[w] & ~b[w]) return 64 * w + std::countr_zero(only_a);
  }
  return -1;
}

/// Whether the set is exactly {rank}.
inline bool HasOnly(const uint64_t* set, uint32_t words, uint32_t rank) {
  for (uint32_t w = 0; w < words; ++w) {
    const uint64_t expected = (rank / 64 == w) ? (uint64_t{1} << (rank % 64)) : 0;
    if (set[w] != expected) return false;
  }
  return true;
}

inline void Add(uint64_t* set, uint32_t rank) { set[rank / 64] |= uint64_t{1} << (rank % 64); }

}  // namespace hfsim::rank_set
