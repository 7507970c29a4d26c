// Accelerator presets: what the kernel-level compute model (models/compute/) and the cluster
// model need to know about one device. Every figure and where it comes from: docs/devices.md.
//
// Rates are dense (no 2:4 sparsity), TFLOP/s = 10^12 FLOP/s = 1000 FLOP/ns; bandwidths are
// GB/s = 10^9 B/s = 1 B/ns, per direction. HBM capacity is in GiB: vendors print "80 GB" for
// parts whose HBM stacks are binary-sized (an A100 80GB reports 81920 MiB = 80 GiB), so the
// printed number is taken as GiB (docs/devices.md §2).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "models/compute/attention-table.h"
#include "models/compute/precision.h"

namespace hfsim {

enum class Architecture : uint8_t { kVolta, kAmpere, kHopper, kBlackwell, kCdna3 };
/// "Volta", "Ampere", "Hopper", "Blackwell", "CDNA3".
std::string_view ToString(Architecture architecture);

/// The output tile one thread block computes (one block per SM at a time), in elements.
struct GemmTile {
  uint32_t m = 128;
  uint32_t n = 256;
};

struct DeviceSpec {
  /// Canonical preset name, case-sensitive: "H100-SXM".
  std::string_view name;
  Architecture architecture = Architecture::kHopper;
  /// Dense peak per precision (indexed by Index(Precision)), TFLOP/s; 0: no such path in
  /// hardware (BF16 on Volta, FP8 before Hopper).
  std::array<double, kPrecisionCount> peak_TFLOPS{};
  /// The fraction of that peak a well-shaped GEMM reaches: the measured maximum achievable
  /// matmul FLOPS (MAMF) over the peak, per precision (docs/devices.md §3 says which are
  /// measured and which derived).
  std::array<double, kPrecisionCount> matmul_ceiling{};
  /// HBM capacity, GiB.
  double hbm_GiB = 0.0;
  /// HBM bandwidth, GB/s (= B/ns).
  double hbm_GBps = 0.0;
  /// The fraction of hbm_GBps a well-written memory-bound kernel moves.
  double hbm_achievable_fraction = 0.0;
  /// Streaming multiprocessors (NVIDIA) or compute units (AMD).
  uint32_t sm_count = 0;
  /// The GEMM tile the model assumes; the transposed tile (n x m) is tried too.
  GemmTile gemm_tile;
  /// The fused attention kernel the framework runs on it (table == nullptr: none, e.g. Volta).
  AttentionKernel attention;
  /// Scale-up (NVLink / xGMI) bandwidth of one GPU, all links together, per direction, GB/s.
  double scale_up_GBps = 0.0;
  /// The most of that one GPU can send to any single peer, per direction, GB/s (= scale_up_GBps
  /// behind an NVSwitch; one xGMI link on MI300X's point-to-point mesh).
  double scale_up_peer_GBps = 0.0;
  /// GPUs in one scale-up domain (NVLink / NVSwitch / xGMI) as the device is sold: 8 in an HGX
  /// or DGX board, 16 in a DGX-2, 72 in a GB200 NVL72.
  uint32_t scale_up_domain = 0;

  double PeakFlopsPerNs(Precision p) const { return peak_TFLOPS[Index(p)] * 1000.0; }
  /// The matmul ceiling as a rate: peak x ceiling, FLOP/ns.
  double MatmulFlopsPerNs(Precision p) const {
    return PeakFlopsPerNs(p) * matmul_ceiling[Index(p)];
  }
  /// What memory-bound kernels achieve, B/ns.
  double AchievableBytesPerNs() const { return hbm_GBps * hbm_achievable_fraction; }
  bool Supports(Precision p) const { return peak_TFLOPS[Index(p)] > 0.0; }
};

/// Every preset, in a fixed order (oldest generation first).
std::span<const DeviceSpec> AllDevices();
/// The preset named exactly `name`, or nullptr.
const DeviceSpec* FindDevice(std::string_view name);
/// Every preset's name, comma-separated, for error messages.
std::string DeviceNames();

/// Why `device` cannot run `precision` (naming what it can run), or nullopt when it can.
std::optional<std::string> CheckPrecision(const DeviceSpec& device, Precision precision);

}  // namespace hfsim
