// Inputs the fuzzers (tests/fuzz, scripts/fuzz) found crashing a parser, each kept here so the
// crash cannot come back. docs/fuzzing.md lists them.
#include <string>

#include <gtest/gtest.h>

#include "sim/import/astra-system.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

// A JSON number beyond a double made nlohmann::json throw out_of_range, which the loader did not
// catch: std::terminate instead of an error (found by fuzz_scenario).
TEST(FuzzRegressions, ScenarioNumberBeyondDoubleIsAnError) {
  // Named at its JSON path (it was the file alone).
  for (const auto& [text, where] :
       {std::pair<std::string, std::string>{R"({"name": "x", "seed": 1e400})", "big.json: seed"},
        {R"({"topology": {"dimensions": [{"size": -1e999}]}})",
         "big.json: topology.dimensions[0].size"}}) {
    const auto scenario = ParseScenarioText(text, "big.json");
    ASSERT_FALSE(scenario) << text;
    EXPECT_EQ(scenario.Error().where, where);
    EXPECT_NE(scenario.Error().message.find("accepted: numbers within +-1.8e308"), std::string::npos)
        << scenario.Error().ToString();
  }
}

// The same in the ASTRA-sim system JSON (found by fuzz_astra_system).
TEST(FuzzRegressions, AstraSystemNumberBeyondDoubleIsAnError) {
  const auto system = ParseAstraSystemText(R"({"endpoint-delay": 1e400})", "sys.json", {4});
  ASSERT_FALSE(system);
  EXPECT_EQ(system.Error().where, "sys.json: endpoint-delay");
  EXPECT_NE(system.Error().message.find("accepted: numbers within +-1.8e308"), std::string::npos)
      << system.Error().ToString();
}

}  // namespace
}  // namespace hfsim
