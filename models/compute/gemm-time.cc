// GEMM time: tile and wave quantization under the matmul ceiling, with a memory roofline
// (models/compute/gemm-time.h; docs/compute-model.md §2).
#include "models/compute/gemm-time.h"

#include <algorithm>
#include <array>
#include <limits>

namespace hfsim {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct Quantization {
  GemmTile tile;
  uint64_t tiles = 0;
  uint64_t waves = 0;
  double tile_efficiency = 0.0;
  double wave_efficiency = 0.0;
  double Efficiency() const { return tile_efficiency * wave_efficiency; }
};

Quantization Quantize(const GemmShape& shape, GemmTile tile, uint32_t available_sms,
                      uint32_t all_sms) {
  Quantization q;
  q.tile = tile;
  const uint64_t rows = CeilDiv(shape.m, tile.m);
  const uint64_t cols = CeilDiv(shape.n, tile.n);
  q.tiles = rows * cols * shape.batch;
  q.waves = CeilDiv(q.tiles, available_sms);
  q.tile_efficiency = static_cast<double>(shape.m) * static_cast<double>(shape.n) /
                      (static_cast<double>(rows * tile.m) * static_cast<double>(cols * tile.n));
  q.wave_efficiency =
      static_cast<double>(q.tiles) / (static_cast<double>(q.waves) * static_cast<double>(all_sms));
  return q;
}

// cuBLASLt's output tiles of at least 128 x 128 other than 128 x 256 / 256 x 128, as its
// cublasLtMatmulTile_t enumerates them (CUBLASLT_MATMUL_TILE_128x128, _128x160, _160x128,
// _128x192, _192x128), largest first. Smaller tiles are left out: no per-tile efficiency was
// found to charge them, without which the smallest tile would always win (docs §2, §9).
constexpr std::array<GemmTile, 5> kCublasLtLargeTiles = {GemmTile{128, 192}, GemmTile{192, 128},
                                                         GemmTile{128, 160}, GemmTile{160, 128},
                                                         GemmTile{128, 128}};

// NVIDIA devices from Ampere on run cuBLASLt's tile list; Volta and CDNA3 (hipBLASLt) keep
// their own tile and its transpose.
bool UsesCublasLtTiles(Architecture architecture) {
  return architecture == Architecture::kAmpere || architecture == Architecture::kHopper ||
         architecture == Architecture::kBlackwell;
}

double DefaultOutputBytes(Precision precision) {
  return precision == Precision::kTf32 || precision == Precision::kFp32 ? 4.0 : 2.0;
}

}  // namespace

double GemmEstimate::FractionOfPeak(const DeviceSpec& device, Precision precision) const {
  if (time_ns <= 0.0) return 0.0;
  return flops / time_ns / device.PeakFlopsPerNs(precision);
}

GemmEstimate EstimateGemm(const DeviceSpec& device, Precision precision, const GemmShape& shape,
                          const GemmOptions& options) {
  GemmEstimate e;
  if (shape.m == 0 || shape.n == 0 || shape.k == 0 || shape.batch == 0) return e;
  const double m = static_cast<double>(shape.m);
  const double n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k);
  const double batch = static_cast<double>(shape.batch);
  e.flops = 2.0 * m * n * k * batch;
  const double output_bytes = options.output_bytes_per_element > 0.0
                                  ? options.output_bytes_per_element
                                  : DefaultOutputBytes(precision);
  e.bytes = ((m * k + k * n) * BytesPerElement(precision) + m * n * output_bytes) * batch;
  if (!device.Supports(precision)) {
    e.time_ns = e.compute_ns = std::numeric_limits<double>::infinity();
    return e;
  }

  const uint32_t sms = options.available_sms > 0 ? std::min(options.available_sms, device.sm_count)
                                                 : device.sm_count;
  // The tile that runs it fastest (the same memory time for every tile, so the best
  // quantization), the larger tiles first so that ties keep them.
  const GemmTile tile = device.gemm_tile;
  Quantization q = Quantize(shape, tile, sms, device.sm_count);
  auto consider = [&](GemmTile candidate) {
    const Quantization c = Quantize(shape, candidate, sms, device.sm_count);
    if (c.Efficiency() > q.Efficiency()) q = c;
  };
  consider(GemmTile{tile.n, tile.m});
  if (UsesCublasLtTiles(device.architecture)) {
    for (const GemmTile candidate : kCublasLtLargeTiles) consider(candidate);
  }
  e.tile = q.tile;
  e.tiles = q.tiles;
  e.waves = q.waves;
  e.tile_efficiency = q.tile_efficiency;
  e.wave_efficiency = q.wave_efficiency;

  e.compute_ns = e.flops / (device.MatmulFlopsPerNs(precision) * q.Efficiency());
  e.memory_ns = e.bytes / device.AchievableBytesPerNs();
  e.time_ns = std::max(e.compute_ns, e.memory_ns);
  return e;
}

double GemmTimeNs(const DeviceSpec& device, Precision precision, uint64_t m, uint64_t n, uint64_t k,
                  uint64_t batch) {
  return EstimateGemm(device, precision, GemmShape{m, n, k, batch}).time_ns;
}

LinearGemms EstimateLinearGemms(const DeviceSpec& device, Precision precision, uint64_t tokens,
                                uint64_t in, uint64_t out, const LinearOptions& options) {
  GemmOptions forward;
  forward.available_sms = options.available_sms;
  GemmOptions wgrad = forward;
  if (options.fp32_wgrad_accumulation) wgrad.output_bytes_per_element = 8.0;
  LinearGemms g;
  const uint64_t batch = options.batch;
  g.fprop = EstimateGemm(device, precision, GemmShape{tokens, out, in, batch}, forward);
  g.dgrad = EstimateGemm(device, precision, GemmShape{tokens, in, out, batch}, forward);
  g.wgrad = EstimateGemm(device, precision, GemmShape{out, in, tokens, batch}, wgrad);
  return g;
}

}  // namespace hfsim
