// Builds a Scenario from its JSON form, checking everything a user can get wrong, and writes a
// Scenario back out as JSON with every default filled in (the "echo" a report carries, from
// which the run can be reproduced).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Limits the loader enforces before anything is allocated, so a small file cannot ask for a
/// huge simulation by accident.
struct ScenarioLimits {
  static constexpr uint64_t kMaxDimensions = 8;
  static constexpr uint64_t kMaxDimensionSize = 65536;
  static constexpr uint64_t kMaxNpus = uint64_t{1} << 20;
  static constexpr uint64_t kMaxFullyConnectedSize = 1024;
  static constexpr double kMaxBandwidthGBps = 1e6;
  /// The smallest bandwidth (1 MB/s) and compute rate (1 GFLOP/s) accepted: anything positive
  /// below would let the largest transfer's time leave double's range (5e-324 GB/s gave inf).
  static constexpr double kMinBandwidthGBps = 1e-3;
  static constexpr double kMinPeakTFLOPS = 1e-3;
  /// The smallest compute efficiency (0.1%): with the smallest peak, an NPU computes at least
  /// 1 MFLOP/s, so the largest job's compute stays far inside double's range (an efficiency of
  /// 1e-320 gave "total inf s -nan %" and "time_ns": null).
  static constexpr double kMinComputeEfficiency = 1e-3;
  /// The largest total per NPU a fabric can have: kMaxBandwidthGBps in each of the most
  /// dimensions (bounds totals in "optimize" and "sweep").
  static constexpr double kMaxTotalBandwidthGBps = kMaxBandwidthGBps * kMaxDimensions;
  static constexpr double kMaxLatencyNs = 1e9;
  static constexpr uint64_t kMaxCollectiveBytes = uint64_t{1} << 50;
  static constexpr uint64_t kMaxChunks = 4096;
  static constexpr uint64_t kMaxLayers = 100000;
};

/// The scenario described by `document`, or the first problem found (JSON path + message).
Expected<Scenario> ParseScenario(const nlohmann::json& document);
/// Parses JSON text first; a syntax error names `source_name` and the byte offset.
Expected<Scenario> ParseScenarioText(std::string_view text, std::string_view source_name);
/// Reads a scenario file's JSON without interpreting it (a syntax error names the file).
Expected<nlohmann::json> LoadScenarioDocument(const std::string& path);
/// Reads and parses a scenario file; errors start with the file name.
Expected<Scenario> LoadScenarioFile(const std::string& path);

/// The scenario as JSON with all defaults explicit; ParseScenario(ScenarioToJson(s)) gives s back.
nlohmann::json ScenarioToJson(const Scenario& scenario);

}  // namespace hfsim
