// Scenario builders and the conservation check shared by the packet-engine test suites.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/report/report.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim::test {

inline nlohmann::json Dim(const std::string& kind, int size, double bandwidth_GBps,
                          double latency_ns) {
  return {{"kind", kind},
          {"size", size},
          {"bandwidth_GBps", bandwidth_GBps},
          {"latency_ns", latency_ns}};
}

/// A JSON array of dimensions (brace-initialising one json from one object would not make one).
template <typename... D>
nlohmann::json Dims(D... dims) {
  return nlohmann::json::array({dims...});
}

inline nlohmann::json MiB(double size) { return {{"size_MiB", size}}; }
inline nlohmann::json Bytes(uint64_t size) { return {{"size_bytes", size}}; }

/// A one-collective scenario; `collective_size` is MiB(..) or Bytes(..). A `{}` argument for
/// the optional sections arrives as null and means "no keys".
inline Scenario Make(nlohmann::json dims, const std::string& kind, nlohmann::json collective_size,
                     nlohmann::json communication = nlohmann::json::object(),
                     nlohmann::json packet = nlohmann::json::object()) {
  nlohmann::json collective = {{"kind", kind}};
  collective.update(collective_size);
  nlohmann::json doc = {
      {"topology", {{"dimensions", dims}}},
      {"workload", {{"collective", collective}}},
      {"communication", communication.is_null() ? nlohmann::json::object() : communication},
      {"packet", packet.is_null() ? nlohmann::json::object() : packet}};
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

/// Every scheduled byte delivered, every reduction performed, nothing twice, no violation.
inline void ExpectConserved(const Report& report) {
  ASSERT_TRUE(report.packet.has_value());
  const PacketReport& p = *report.packet;
  EXPECT_GT(p.bytes_scheduled, 0u);
  EXPECT_EQ(p.bytes_delivered, p.bytes_scheduled);
  EXPECT_EQ(p.reductions_performed, p.reductions_scheduled);
  EXPECT_EQ(p.duplicate_deliveries, 0u);
  EXPECT_EQ(p.protocol_errors, 0u);
}

}  // namespace hfsim::test
