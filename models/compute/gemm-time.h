// The time of one GEMM on one device: tile and wave quantization under the measured matmul
// ceiling, bounded below by its memory traffic (a roofline). docs/compute-model.md §2.
//
//   FLOPs      2 m n k batch
//   tiles      ceil(m / Tm) ceil(n / Tn) batch        (one thread block per output tile)
//   waves      ceil(tiles / SMs available)             (a partial wave costs a full one)
//   efficiency m n batch / (waves x SMs x Tm x Tn)     (= tile x wave quantization)
//   compute    FLOPs / (peak(p) x ceiling(p) x efficiency)
//   memory     ((m k + k n) x bytes(p) + m n x output bytes) x batch / achievable HBM B/ns
//   time       max(compute, memory)
// The tile is the one that quantizes best (ties: the larger) among the device's (128 x 256), its
// transpose and, on NVIDIA devices from Ampere on, cuBLASLt's other tiles of at least 128 x 128
// (128 x 192, 192 x 128, 128 x 160, 160 x 128, 128 x 128): cuBLAS picks among its kernels per
// shape. Tiles with a side below 128 and split-K, which cuBLAS uses for GEMMs of less than a
// wave, are not modelled: such GEMMs come out slower than they run. No launch overhead is added (no
// published figure was found).
#pragma once

#include <cstdint>

#include "models/compute/device.h"
#include "models/compute/precision.h"

namespace hfsim {

struct GemmShape {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
  /// Independent GEMMs of this shape in one launch (batched or grouped GEMM).
  uint64_t batch = 1;
};

struct GemmOptions {
  /// Bytes moved per output element: 0 means 2 (BF16 output) for 16- and 8-bit inputs and 4 for
  /// tf32/fp32. A GEMM that accumulates into an fp32 buffer (Megatron's gradient-accumulation
  /// fusion: wgrad += into main_grad) reads and writes it: 8.
  double output_bytes_per_element = 0.0;
  /// SMs the GEMM may use (0: all): fewer when a communication kernel holds some
  /// (models/compute/comm-sm.h).
  uint32_t available_sms = 0;
};

struct GemmEstimate {
  double time_ns = 0.0;
  double flops = 0.0;
  double bytes = 0.0;
  /// The compute-bound and memory-bound times; time_ns is the larger.
  double compute_ns = 0.0;
  double memory_ns = 0.0;
  GemmTile tile;
  uint64_t tiles = 0;
  uint64_t waves = 0;
  /// Useful share of the tiles' area: m n / (ceil(m/Tm) Tm ceil(n/Tn) Tn).
  double tile_efficiency = 0.0;
  /// Tiles over the slots of the waves they need, counted over all the device's SMs.
  double wave_efficiency = 0.0;

  bool MemoryBound() const { return memory_ns > compute_ns; }
  /// FLOPs over time over the device's peak for the precision: the GEMM's MFU.
  double FractionOfPeak(const DeviceSpec& device, Precision precision) const;
};

/// The estimate of one GEMM. A precision the device has no arithmetic for (CheckPrecision)
/// takes forever: time_ns = +infinity. Any of m, n, k, batch = 0: nothing to do, 0 ns.
GemmEstimate EstimateGemm(const DeviceSpec& device, Precision precision, const GemmShape& shape,
                          const GemmOptions& options = {});

/// EstimateGemm(...).time_ns with default options, ns.
double GemmTimeNs(const DeviceSpec& device, Precision precision, uint64_t m, uint64_t n, uint64_t k,
                  uint64_t batch = 1);

/// The three GEMMs of a linear layer's training step, Y = X W^T with X tokens x in and W
/// out x in (Megatron's and TE's layout):
///   fprop  Y  = X W^T      m = tokens, n = out, k = in
///   dgrad  dX = dY W       m = tokens, n = in,  k = out
///   wgrad  dW = dY^T X     m = out,    n = in,  k = tokens
/// Wave quantization differs per pass, so the three differ even though their FLOPs are equal.
struct LinearGemms {
  GemmEstimate fprop;
  GemmEstimate dgrad;
  GemmEstimate wgrad;
  double ForwardNs() const { return fprop.time_ns; }
  double BackwardNs() const { return dgrad.time_ns + wgrad.time_ns; }
  double TotalNs() const { return ForwardNs() + BackwardNs(); }
};

struct LinearOptions {
  /// wgrad accumulates into the fp32 main_grad buffer (Megatron's gradient-accumulation fusion,
  /// on by default: `--no-gradient-accumulation-fusion` turns it off): 8 output bytes per
  /// element (read + write fp32) instead of the precision's output.
  bool fp32_wgrad_accumulation = true;
  uint32_t available_sms = 0;
  /// Independent linear layers of this shape run together as one grouped GEMM per pass (the
  /// routed experts on a rank, each with its own tokens): GemmShape::batch.
  uint64_t batch = 1;
};

LinearGemms EstimateLinearGemms(const DeviceSpec& device, Precision precision, uint64_t tokens,
                                uint64_t in, uint64_t out, const LinearOptions& options = {});

}  // namespace hfsim
