// SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijection on 64-bit values that mixes
// every input bit into every output bit. The one definition behind hfsim's key hashing
// (parameter-server.h) and its deterministic random streams (base/deterministic-rng.h).
#pragma once

#include <cstdint>

namespace hfsim {

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace hfsim
