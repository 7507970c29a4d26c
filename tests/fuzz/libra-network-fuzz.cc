// libFuzzer target: LIBRA's network YAML (Topology, NpusCount, CostDimension).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/import/libra-formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto network = hfsim::ParseLibraNetworkText(text, "network.yml");
  (void)network;
  return 0;
}
