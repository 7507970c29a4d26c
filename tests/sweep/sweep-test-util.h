// Small sweep scenarios written inline, shared by the tests of `hfsim sweep`.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario/scenario-parser.h"
#include "sim/sweep/sweep-plan.h"
#include "tests/packet/packet-test-util.h"

namespace hfsim::test {

/// D dimensions: Ring 2 each (4 NPUs for D = 2), `bandwidth_GBps` each.
inline nlohmann::json RingDims(size_t count, double bandwidth_GBps = 100.0) {
  nlohmann::json dims = nlohmann::json::array();
  for (size_t d = 0; d < count; ++d)
    dims.push_back(Dim("Ring", 2, bandwidth_GBps, 100.0 * (d + 1)));
  return dims;
}

/// A 1 MiB all-reduce on `dims` with the given "sweep" section.
inline nlohmann::json CollectiveSweep(const nlohmann::json& dims, const nlohmann::json& sweep) {
  return {{"name", "sweep-test"},
          {"topology", {{"dimensions", dims}}},
          {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}}}}},
          {"sweep", sweep}};
}

inline Scenario ParseOrFail(const nlohmann::json& document) {
  auto parsed = ParseScenario(document);
  if (!parsed) {
    ADD_FAILURE() << parsed.Error().ToString();
    return Scenario{};
  }
  return std::move(parsed).Value();
}

/// The plan of a valid document (on the heap: evaluators and tables keep a pointer to it).
inline std::unique_ptr<SweepPlan> PlanOrFail(const nlohmann::json& document) {
  const Scenario scenario = ParseOrFail(document);
  auto built = SweepPlan::Build(document, scenario);
  if (!built) {
    ADD_FAILURE() << built.Error().ToString();
    return nullptr;
  }
  return std::make_unique<SweepPlan>(std::move(built).Value());
}

/// Binomial coefficient by Pascal's triangle (no division: independent of the code's product
/// formula).
inline uint64_t Binomial(uint64_t n, uint64_t k) {
  std::vector<uint64_t> row(k + 1, 0);
  row[0] = 1;
  for (uint64_t i = 1; i <= n; ++i) {
    for (uint64_t j = std::min(i, k); j > 0; --j) row[j] += row[j - 1];
  }
  return row[k];
}

}  // namespace hfsim::test
