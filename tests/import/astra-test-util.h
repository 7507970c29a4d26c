// Helpers for the ASTRA-sim import tests: temporary input files and one analytical run.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/import/astra-import.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim::testing {

/// Writes `text` to a fresh file under the temporary directory and returns its path.
inline std::string WriteTemp(const std::string& name, const std::string& text) {
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hfsim-astra-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

/// A system JSON with one implementation name per dimension for every collective.
inline std::string System(const std::string& implementations, const std::string& extra = "",
                          int splits = 1, int active = 1, const std::string& optimization = "localBWAware") {
  return "{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10, \"active-chunks-per-dimension\": " +
         std::to_string(active) + ", \"preferred-dataset-splits\": " + std::to_string(splits) +
         ", \"all-reduce-implementation\": " + implementations +
         ", \"reduce-scatter-implementation\": " + implementations +
         ", \"all-gather-implementation\": " + implementations +
         ", \"all-to-all-implementation\": " + implementations +
         ", \"collective-optimization\": \"" + optimization + "\"" + extra + "}";
}

/// Imports (network, system, collective, size), loads and runs it; the collective's time in ns.
inline double CollectiveNs(const std::string& network, const std::string& system,
                           const std::string& kind, const std::string& size) {
  auto document = ImportAstraSim(AstraInputs{WriteTemp("net.yml", network),
                                             WriteTemp("sys.json", system), "", kind, size});
  EXPECT_TRUE(document) << document.Error().ToString();
  if (!document) return -1.0;
  auto scenario = ParseScenario(document.Value());
  EXPECT_TRUE(scenario) << scenario.Error().ToString();
  if (!scenario) return -1.0;
  return AnalyticalEngine().Run(scenario.Value()).collectives.at(0).time_ns;
}

/// The import's error as one line, or "" when it succeeded.
inline std::string ImportError(const AstraInputs& inputs) {
  auto document = ImportAstraSim(inputs);
  return document ? "" : document.Error().ToString();
}

}  // namespace hfsim::testing
