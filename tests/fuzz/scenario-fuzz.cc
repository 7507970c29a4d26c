// libFuzzer target: a scenario's JSON text through the loader (parse and validate only; no
// engine runs). A scenario that loads must also survive the echo: ScenarioToJson then
// ParseScenario gives the same scenario back (the promise in sim/scenario/scenario-parser.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

#include "sim/scenario/scenario-parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scenario = hfsim::ParseScenarioText(text, "fuzz.json");
  if (!scenario) return 0;
  const nlohmann::json echo = hfsim::ScenarioToJson(scenario.Value());
  auto again = hfsim::ParseScenario(echo);
  if (!again) {
    std::fprintf(stderr, "echo of a loaded scenario refused: %s\n", again.Error().ToString().c_str());
    std::abort();
  }
  if (hfsim::ScenarioToJson(again.Value()) != echo) {
    std::fprintf(stderr, "echo of a loaded scenario loads to a different scenario\n");
    std::abort();
  }
  return 0;
}
