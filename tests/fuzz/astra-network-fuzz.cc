// libFuzzer target: an ASTRA-sim analytical network YAML (sim/import/astra-network.h). A network
// that is accepted must give a topology the scenario loader accepts too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/import/astra-network.h"
#include "sim/scenario/scenario-parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto network = hfsim::ParseAstraNetworkText(text, "network.yml");
  if (!network) return 0;
  // The smallest scenario around the imported topology: one all-reduce.
  const nlohmann::json scenario = {
      {"name", "fuzz"},
      {"topology", network.Value().topology},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1048576}}}}}};
  auto loaded = hfsim::ParseScenario(scenario);
  if (!loaded) {
    std::fprintf(stderr, "imported topology refused by the loader: %s\n", loaded.Error().ToString().c_str());
    std::abort();
  }
  return 0;
}
