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
  for (const std::string text : {R"({"name": "x", "seed": 1e400})",
                                 R"({"topology": {"dimensions": [{"size": -1e999}]}})"}) {
    const auto scenario = ParseScenarioText(text, "big.json");
    ASSERT_FALSE(scenario) << text;
    EXPECT_EQ(scenario.Error().where, "big.json");
    EXPECT_NE(scenario.Error().message.find("accepted: numbers within +-1.8e308"), std::string::npos)
        << scenario.Error().ToString();
  }
}

// The same in the ASTRA-sim system JSON (found by fuzz_astra_system).
TEST(FuzzRegressions, AstraSystemNumberBeyondDoubleIsAnError) {
  const auto system = ParseAstraSystemText(R"({"endpoint-delay": 1e400})", "sys.json", {4});
  ASSERT_FALSE(system);
  EXPECT_EQ(system.Error().where, "sys.json");
  EXPECT_NE(system.Error().message.find("accepted: numbers within +-1.8e308"), std::string::npos)
      << system.Error().ToString();
}

}  // namespace
}  // namespace hfsim
