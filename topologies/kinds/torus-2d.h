// A Torus2D dimension's parameters (topologies/kinds/torus-2d.cc holds the kind): for code that
// builds one, tests above all; everything else reads a dimension through its DimensionShape.
#pragma once

#include <cstdint>

#include "topologies/dimension.h"

namespace hfsim {

/// Rows of the torus (Dimension::parameters[0]); its columns are size / rows.
uint32_t Torus2DRows(const Dimension& dim);
/// A torus of rows x columns NPUs: position y * columns + x is row y, column x.
Dimension Torus2DDimension(uint32_t rows, uint32_t columns, double bandwidth_Bpns = 0.0,
                           double latency_ns = 0.0);

}  // namespace hfsim
