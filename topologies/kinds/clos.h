// A Clos dimension's parameters (topologies/kinds/clos.cc holds the kind): for code that builds
// one, tests above all; everything else reads a dimension through its DimensionShape.
#pragma once

#include <cstdint>

#include "topologies/dimension.h"

namespace hfsim {

/// NPUs per leaf k (dividing the size into at least 2 leaves), spines S (1 to k) and the
/// oversubscription r >= 1: a leaf's up-links carry 1/r of what its NPUs can send, so each
/// leaf-spine link has bandwidth_Bpns x k / (S x r).
struct ClosParameters {
  uint32_t leaf_npus = 0;
  uint32_t spines = 0;
  double oversubscription = 1.0;
};

/// The parameters of a Clos dimension (Dimension::parameters in this order).
ClosParameters ClosParametersOf(const Dimension& dim);
Dimension ClosDimension(uint32_t size, const ClosParameters& parameters,
                        double bandwidth_Bpns = 0.0, double latency_ns = 0.0);

}  // namespace hfsim
