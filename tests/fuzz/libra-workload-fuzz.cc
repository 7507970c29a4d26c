// libFuzzer target: LIBRA's workload, ASTRA-sim 1.0's text format (one line per layer).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/import/libra-formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto workload = hfsim::ParseLibraWorkloadText(text, "workload.txt");
  (void)workload;
  return 0;
}
