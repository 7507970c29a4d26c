// Timelines are written once, generic over their number type `Time`: double, or a number that
// carries its gradient with respect to the per-dimension bandwidths (sim/optimize/
// time-gradient.h) for the optimiser. Each type provides TimeMax and SetBandwidthDerivative;
// these are the double ones (a double carries no gradient).
#pragma once

#include <algorithm>
#include <cstdint>

namespace hfsim {

inline double TimeMax(double a, double b) { return std::max(a, b); }

/// Records d time / d B_dimension = derivative on a time that depends on one bandwidth only.
inline void SetBandwidthDerivative(double& /*time*/, uint32_t /*dimension*/, double /*derivative*/) {}

}  // namespace hfsim
