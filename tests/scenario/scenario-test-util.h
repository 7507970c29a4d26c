// Helpers shared by the scenario and engine tests: small scenarios written inline.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario-parser.h"

namespace hfsim::test {

/// A valid 2-D training scenario to mutate in bad-input tests.
/// A Ring dimension of `size` NPUs (100 GB/s and no hop latency unless given).
inline nlohmann::json Ring(uint32_t size, double bandwidth_GBps = 100, double latency_ns = 0) {
  return {{"kind", "Ring"},
          {"size", size},
          {"bandwidth_GBps", bandwidth_GBps},
          {"latency_ns", latency_ns}};
}

inline nlohmann::json BaseTrainingScenario() {
  return nlohmann::json::parse(R"({
    "name": "base",
    "topology": {"dimensions": [
      {"kind": "Ring", "size": 4, "bandwidth_GBps": 100, "latency_ns": 50},
      {"kind": "Switch", "size": 8, "bandwidth_GBps": 25, "latency_ns": 500}]},
    "workload": {"training": {
      "model": "gpt2_small", "global_batch_samples": 64,
      "parallelism": {"data": 8, "tensor": 4}}}
  })");
}

/// A one-collective scenario on the given dimensions (JSON array of dimension objects).
inline nlohmann::json CollectiveScenario(const nlohmann::json& dimensions, const std::string& kind,
                                         uint64_t size_bytes, uint32_t chunks = 1) {
  return {{"topology", {{"dimensions", dimensions}}},
          {"workload", {{"collective", {{"kind", kind}, {"size_bytes", size_bytes}}}}},
          {"communication", {{"chunks", chunks}}}};
}

/// The loader refuses `document` at JSON path `where`, with a message containing `part`.
inline void ExpectLoadError(const nlohmann::json& document, const std::string& where,
                            const std::string& part) {
  auto result = ParseScenario(document);
  ASSERT_FALSE(result) << "accepted: " << document.dump();
  EXPECT_EQ(result.Error().where, where) << result.Error().ToString();
  EXPECT_NE(result.Error().message.find(part), std::string::npos) << result.Error().ToString();
}

inline Scenario ParseOrDie(const nlohmann::json& document) {
  auto result = ParseScenario(document);
  if (!result) ADD_FAILURE() << result.Error().ToString();
  return std::move(result).Value();
}

}  // namespace hfsim::test
