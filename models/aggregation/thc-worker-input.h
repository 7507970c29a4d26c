// A THC encoder (models/compression/thc.h) as the input of an aggregation worker
// (aggregation-worker.h) of a THC switch: the one way the packet engine, the P4 test vectors and
// the tests turn a gradient into what the worker announces and, once the switch has agreed the
// scale, the indices it sends.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "models/aggregation/aggregation-worker.h"
#include "models/compression/thc.h"

namespace hfsim {

/// The norm exponent a worker announces: e with norm < 2^e (frexp), clamped to the 8-bit header
/// field.
int8_t ThcNormExponent(double norm);

/// Prepares `gradient` in `encoder` (adding its error feedback) and returns the worker input:
/// the padded coordinates, the norm exponent, and an encoder call that, given the agreed exponent
/// e, encodes at the max-norm bound 2^e and unpacks the indices. `encoder` (and `packed`, which
/// when given receives the packed indices for independent checks) must outlive the worker.
ThcWorkerInput MakeThcWorkerInput(ThcWorker& encoder, const Eigen::VectorXd& gradient,
                                  std::vector<uint8_t>* packed = nullptr);

}  // namespace hfsim
