// The device presets (models/compute/device.h). Each number's source is in docs/devices.md;
// the comments here say which figures are measured, which derived and which chosen.
#include "models/compute/device.h"

#include <array>

namespace hfsim {
namespace {

// Peaks in the order of Precision: bf16, fp16, fp8, tf32, fp32.
constexpr std::array<double, kPrecisionCount> Peaks(double bf16, double fp16, double fp8,
                                                    double tf32, double fp32) {
  return {bf16, fp16, fp8, tf32, fp32};
}

// Measured maximum achievable matmul TFLOP/s (stas00/ml-engineering, compute/accelerator/
// README.md, "Maximum Achievable Matmul FLOPS comparison table"), BF16 and FP8.
constexpr double kMamfA100Bf16 = 271.2;
constexpr double kMamfH100Bf16 = 794.5;  // "H200 is the same"
constexpr double kMamfH100Fp8 = 1402.6;
constexpr double kMamfH200Fp8 = 1453.4;
constexpr double kMamfB200Bf16 = 1745.0;
constexpr double kMamfB200Fp8 = 3432.5;
constexpr double kMamfGb200Bf16 = 1822.0;
constexpr double kMamfGb200Fp8 = 3615.6;
constexpr double kMamfMi300xBf16 = 668.4;
// V100: the best cuBLAS mixed-precision GEMM rate in Markidis et al. 2018 ("NVIDIA Tensor Core
// Programmability, Performance & Precision", IPDPSW): "up to 83 Tflops/s" of 125.
constexpr double kMamfV100Fp16 = 83.0;

// Ceilings per precision. BF16 and FP16 run on the same tensor-core path and share one
// ceiling; TF32 and FP32 have no measurement on any device and take the 16-bit ceiling
// (chosen without data: docs/devices.md §3). fp8 = 0 where there is no FP8 path.
constexpr std::array<double, kPrecisionCount> Ceilings(double sixteen_bit, double fp8) {
  return {sixteen_bit, sixteen_bit, fp8, sixteen_bit, sixteen_bit};
}

// Memory-bound kernels: about 90 % of HBM peak (QuACK, Dao-AILab/quack media/
// 2025-07-10-membound-sol.md: softmax at 3.01 TB/s of an H100's 3.35; RMSNorm, softmax and
// cross-entropy "about 3 TB/s (~90 % peak)"). Measured on H100 only; taken for every device
// (chosen without data for the others: docs/devices.md §4).
constexpr double kHbmAchievable = 0.90;

// cuBLAS's most efficient tiles are 256x128 and 128x256 (NVIDIA, "Matrix Multiplication
// Background User's Guide", as restated in docs/compute-model.md §2). Taken for every
// generation; for Hopper, Blackwell and CDNA3 chosen without data.
constexpr GemmTile kTile{128, 256};

constexpr AttentionKernel kNoAttention{};
constexpr uint32_t kHopperSm = 132;

constexpr std::array<DeviceSpec, 9> kDevices = {{
    {
        .name = "V100-SXM2-32GB",
        .architecture = Architecture::kVolta,
        // No BF16, FP8 or TF32 on Volta; 125 TFLOP/s FP16 tensor cores, 15.7 FP32.
        .peak_TFLOPS = Peaks(0, 125, 0, 0, 15.7),
        .matmul_ceiling = {0, kMamfV100Fp16 / 125, 0, 0, kMamfV100Fp16 / 125},
        .hbm_GiB = 32,
        .hbm_GBps = 900,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 80,
        .gemm_tile = kTile,
        // FlashAttention-2 needs Ampere or newer: Volta runs attention unfused.
        .attention = kNoAttention,
        // NVLink 2: 6 links x 25 GB/s per direction; 16 GPUs behind NVSwitch in a DGX-2.
        .scale_up_GBps = 150,
        .scale_up_peer_GBps = 150,
        .scale_up_domain = 16,
    },
    {
        .name = "A100-SXM-40GB",
        .architecture = Architecture::kAmpere,
        .peak_TFLOPS = Peaks(312, 312, 0, 156, 19.5),
        // The A100 SXM MAMF (memory size not stated; same SMs and clock as the 40GB part).
        .matmul_ceiling = Ceilings(kMamfA100Bf16 / 312, 0),
        .hbm_GiB = 40,
        .hbm_GBps = 1555,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 108,
        .gemm_tile = kTile,
        .attention = {&kFlashAttention2A100, 1.0},
        .scale_up_GBps = 300,
        .scale_up_peer_GBps = 300,
        .scale_up_domain = 8,
    },
    {
        .name = "A100-SXM-80GB",
        .architecture = Architecture::kAmpere,
        .peak_TFLOPS = Peaks(312, 312, 0, 156, 19.5),
        .matmul_ceiling = Ceilings(kMamfA100Bf16 / 312, 0),
        .hbm_GiB = 80,
        .hbm_GBps = 2039,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 108,
        .gemm_tile = kTile,
        .attention = {&kFlashAttention2A100, 1.0},
        .scale_up_GBps = 300,
        .scale_up_peer_GBps = 300,
        .scale_up_domain = 8,
    },
    {
        .name = "H100-SXM",
        .architecture = Architecture::kHopper,
        .peak_TFLOPS = Peaks(989, 989, 1979, 494.5, 67),
        .matmul_ceiling = Ceilings(kMamfH100Bf16 / 989, kMamfH100Fp8 / 1979),
        .hbm_GiB = 80,
        .hbm_GBps = 3350,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = kHopperSm,
        .gemm_tile = kTile,
        .attention = {&kCudnnH100, 1.0},
        .scale_up_GBps = 450,
        .scale_up_peer_GBps = 450,
        .scale_up_domain = 8,
    },
    {
        // Same GH100 silicon, memory and low-precision rates as the H100 SXM; NVLink cut to
        // 400 GB/s bidirectional. Ceilings are the H100's (derived: no H800 measurement).
        .name = "H800-SXM",
        .architecture = Architecture::kHopper,
        .peak_TFLOPS = Peaks(989, 989, 1979, 494.5, 67),
        .matmul_ceiling = Ceilings(kMamfH100Bf16 / 989, kMamfH100Fp8 / 1979),
        .hbm_GiB = 80,
        .hbm_GBps = 3350,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = kHopperSm,
        .gemm_tile = kTile,
        .attention = {&kCudnnH100, 1.0},
        .scale_up_GBps = 200,
        .scale_up_peer_GBps = 200,
        .scale_up_domain = 8,
    },
    {
        .name = "H200-SXM",
        .architecture = Architecture::kHopper,
        .peak_TFLOPS = Peaks(989, 989, 1979, 494.5, 67),
        // BF16: the H100's ("H200 is the same"); FP8 measured on the H200 itself.
        .matmul_ceiling = Ceilings(kMamfH100Bf16 / 989, kMamfH200Fp8 / 1979),
        .hbm_GiB = 141,
        .hbm_GBps = 4800,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = kHopperSm,
        .gemm_tile = kTile,
        // The H100's tables: attention is compute-bound, and the H200 has the same SMs/clock.
        .attention = {&kCudnnH100, 1.0},
        .scale_up_GBps = 450,
        .scale_up_peer_GBps = 450,
        .scale_up_domain = 8,
    },
    {
        .name = "B200",
        .architecture = Architecture::kBlackwell,
        .peak_TFLOPS = Peaks(2250, 2250, 4500, 1125, 80),
        .matmul_ceiling = Ceilings(kMamfB200Bf16 / 2250, kMamfB200Fp8 / 4500),
        .hbm_GiB = 180,
        .hbm_GBps = 8000,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 148,
        .gemm_tile = kTile,
        // No published Blackwell attention table: the H100 cuDNN table scaled by the two
        // devices' BF16 MAMF (chosen without data: docs/devices.md §5).
        .attention = {&kCudnnH100, kMamfB200Bf16 / kMamfH100Bf16},
        .scale_up_GBps = 900,
        .scale_up_peer_GBps = 900,
        .scale_up_domain = 8,
    },
    {
        // Per GPU of a GB200 (NVIDIA runs its B200 chips faster there). SM count not
        // published: taken as the B200's 148 (chosen: same die).
        .name = "GB200",
        .architecture = Architecture::kBlackwell,
        .peak_TFLOPS = Peaks(2500, 2500, 5000, 1250, 80),
        .matmul_ceiling = Ceilings(kMamfGb200Bf16 / 2500, kMamfGb200Fp8 / 5000),
        .hbm_GiB = 186,
        .hbm_GBps = 8000,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 148,
        .gemm_tile = kTile,
        .attention = {&kCudnnH100, kMamfGb200Bf16 / kMamfH100Bf16},
        .scale_up_GBps = 900,
        .scale_up_peer_GBps = 900,
        .scale_up_domain = 72,
    },
    {
        .name = "MI300X",
        .architecture = Architecture::kCdna3,
        // 2100 MHz x 256 x 2 x 1216 matrix cores = 1307.4; FP8 twice that.
        .peak_TFLOPS = Peaks(1307.4, 1307.4, 2614.8, 653.7, 163.4),
        // BF16 measured (TunableOp on); FP8 not measured: the BF16 fraction (derived).
        .matmul_ceiling = Ceilings(kMamfMi300xBf16 / 1307.4, kMamfMi300xBf16 / 1307.4),
        .hbm_GiB = 192,
        .hbm_GBps = 5300,
        .hbm_achievable_fraction = kHbmAchievable,
        .sm_count = 304,
        .gemm_tile = kTile,
        // No published MI300X table: FlashAttention-2's H100 table (the CK port runs the FA2
        // algorithm) scaled by the two devices' BF16 MAMF (chosen without data).
        .attention = {&kFlashAttention2H100, kMamfMi300xBf16 / kMamfH100Bf16},
        // xGMI: 64 GB/s to each of 7 peers, 448 GB/s to all of them.
        .scale_up_GBps = 448,
        .scale_up_peer_GBps = 64,
        .scale_up_domain = 8,
    },
}};

constexpr std::array<std::string_view, 5> kArchitectureNames = {"Volta", "Ampere", "Hopper",
                                                                "Blackwell", "CDNA3"};

}  // namespace

std::string_view ToString(Architecture architecture) {
  return kArchitectureNames[static_cast<size_t>(architecture)];
}

std::span<const DeviceSpec> AllDevices() { return kDevices; }

const DeviceSpec* FindDevice(std::string_view name) {
  for (const DeviceSpec& device : kDevices) {
    if (device.name == name) return &device;
  }
  return nullptr;
}

std::string DeviceNames() {
  std::string names;
  for (const DeviceSpec& device : kDevices) {
    if (!names.empty()) names += ", ";
    names += device.name;
  }
  return names;
}

std::optional<std::string> CheckPrecision(const DeviceSpec& device, Precision precision) {
  if (device.Supports(precision)) return std::nullopt;
  std::string can;
  for (Precision p : kAllPrecisions) {
    if (!device.Supports(p)) continue;
    if (!can.empty()) can += ", ";
    can += ToString(p);
  }
  return std::string(device.name) + " has no " + std::string(ToString(precision)) +
         " arithmetic; it runs: " + can;
}

}  // namespace hfsim
