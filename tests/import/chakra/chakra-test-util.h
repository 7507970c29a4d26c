// Helpers of the Chakra tests: a trace directory per test, and a trace loaded onto a fabric as
// `hfsim run --chakra` loads it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/import/chakra/chakra-import.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/temp-path.h"

namespace hfsim::test {

/// A fresh directory for one test's traces, removed when the test ends.
class TraceDir {
 public:
  explicit TraceDir(const std::string& name) : m_dir(TempPath("chakra-" + name)) {
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  ~TraceDir() { std::filesystem::remove_all(m_dir); }
  std::filesystem::path Path(const std::string& file) const { return m_dir / file; }
  std::string Prefix() const { return (m_dir / "trace").string(); }
  std::filesystem::path Rank(int rank) const {
    return m_dir / ("trace." + std::to_string(rank) + ".et");
  }

 private:
  std::filesystem::path m_dir;
};

inline ChakraInputs Inputs(const std::string& prefix, const std::string& groups = "") {
  ChakraInputs inputs;
  inputs.prefix = prefix;
  inputs.groups_path = groups;
  return inputs;
}

inline nlohmann::json Dimension(const std::string& kind, int size, double bandwidth,
                                double latency) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", bandwidth}, {"latency_ns", latency}};
}

/// The scenario document: `dimensions` as the topology and the trace as the workload.
inline Expected<nlohmann::json> ChakraDocument(const ChakraInputs& inputs,
                                               const nlohmann::json& dimensions) {
  std::vector<uint32_t> sizes;
  for (const auto& dim : dimensions) sizes.push_back(dim["size"].get<uint32_t>());
  auto imported = ImportChakra(inputs, sizes);
  if (!imported) return imported.Error();
  return nlohmann::json{{"topology", {{"dimensions", dimensions}}},
                        {"workload", {{"graph", imported.Value().graph}}}};
}

inline Scenario LoadChakraOrDie(const ChakraInputs& inputs, const nlohmann::json& dimensions) {
  auto document = ChakraDocument(inputs, dimensions);
  if (!document) ADD_FAILURE() << document.Error().ToString();
  auto scenario = ParseScenario(document ? document.Value() : nlohmann::json::object());
  if (!scenario) {
    ADD_FAILURE() << scenario.Error().ToString();
    return Scenario{};
  }
  return scenario.Value();
}

}  // namespace hfsim::test
