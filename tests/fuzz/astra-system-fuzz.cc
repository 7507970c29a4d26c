// libFuzzer target: an ASTRA-sim system JSON (sim/import/astra-system.h). The network's sizes
// come with the input in real use; here they follow the length of the all-reduce list (so the
// seeds from configs/ fit) and mix powers of two with others (halvingDoubling's check).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/import/astra-system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t dimensions = 3;
  const nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_object() && document.contains("all-reduce-implementation")) {
    const nlohmann::json& list = document["all-reduce-implementation"];
    if (list.is_array() && !list.empty() && list.size() <= 8) dimensions = list.size();
  }
  constexpr uint32_t kSizes[8] = {2, 8, 4, 6, 16, 3, 2, 2};
  const std::vector<uint32_t> sizes(kSizes, kSizes + dimensions);
  auto system = hfsim::ParseAstraSystemText(text, "system.json", sizes);
  (void)system;
  return 0;
}
