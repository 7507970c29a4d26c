// A made-up device with round numbers, so GEMM and elementwise times can be worked out by hand
// in the compute-model tests: 10 SMs, 128 x 256 tiles, 100 TFLOP/s BF16 and 200 FP8 at a 0.5
// ceiling (50,000 and 100,000 FLOP/ns for the whole device: 5,000 and 10,000 per SM), 1000 GB/s of
// HBM all of it achievable.
#pragma once

#include "models/compute/device.h"

namespace hfsim {

inline DeviceSpec RoundNumberDevice() {
  DeviceSpec d;
  d.name = "test";
  d.architecture = Architecture::kHopper;
  d.peak_TFLOPS = {100, 100, 200, 0, 0};
  d.matmul_ceiling = {0.5, 0.5, 0.5, 0, 0};
  d.hbm_GiB = 16;
  d.hbm_GBps = 1000;
  d.hbm_achievable_fraction = 1.0;
  d.sm_count = 10;
  d.gemm_tile = GemmTile{128, 256};
  return d;
}

}  // namespace hfsim
