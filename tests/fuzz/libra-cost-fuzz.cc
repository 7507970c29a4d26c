// libFuzzer target: LIBRA's cost-model YAML ($ per GB/s of Link, Switch, Nic per cost dimension).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/import/libra-formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto cost = hfsim::ParseLibraCostText(text, "cost.yml");
  (void)cost;
  return 0;
}
