#include "sim/import/chakra/astra-trace-settings.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "sim/scenario/json-text.h"
#include "sim/scenario/input-file.h"

namespace hfsim {

Expected<AstraTraceSettings> ReadAstraTraceSettings(const std::string& system_path) {
  // The ASTRA-sim importer has read and checked the file already; read it as carefully.
  auto text = ReadInputFile(system_path, "the ASTRA-sim system file", std::size_t{1} << 20);
  if (!text) return text.Error();
  auto parsed = ParseJsonText(text.Value(), system_path, {std::size_t{1} << 20, 64});
  if (!parsed) return parsed.Error();
  const nlohmann::json& root = parsed.Value();
  AstraTraceSettings settings;
  if (!root.is_object()) return settings;
  if (root.contains("roofline-enabled")) {
    const nlohmann::json& enabled = root["roofline-enabled"];
    if (!enabled.is_number_integer() ||
        (enabled.get<int64_t>() != 0 && enabled.get<int64_t>() != 1)) {
      return UserError{system_path + ": roofline-enabled",
                       fmt::format("got {}; accepted: 0 or 1", enabled.dump())};
    }
    ChakraRoofline& roofline = settings.roofline;
    roofline.enabled = enabled.get<int64_t>() == 1;
    for (const auto& [key, value] :
         {std::pair<const char*, double*>{"peak-perf", &roofline.peak_tflops},
          {"local-mem-bw", &roofline.memory_GBps}}) {
      if (!roofline.enabled) break;
      if (!root.contains(key) || !root[key].is_number() || !(root[key].get<double>() > 0.0) ||
          !(root[key].get<double>() < 1e9)) {
        return UserError{fmt::format("{}: {}", system_path, key),
                         fmt::format("got {}; accepted with roofline-enabled 1: a number above 0 "
                                     "(peak-perf in TFLOP/s, local-mem-bw in GB/s)",
                                     root.contains(key) ? root[key].dump() : "nothing")};
      }
      *value = root[key].get<double>();
    }
  }
  const std::pair<const char*, const char*> kCustom[] = {
      {"all-reduce-implementation-custom", "all_reduce"},
      {"reduce-scatter-implementation-custom", "reduce_scatter"},
      {"all-gather-implementation-custom", "all_gather"},
      {"all-to-all-implementation-custom", "all_to_all"}};
  for (const auto& [key, kind] : kCustom) {
    if (!root.contains(key)) continue;
    const nlohmann::json& value = root[key];
    // ASTRA-sim takes exactly one prefix (CollectiveImplLookup throws on more).
    if (!value.is_array() || value.size() != 1 || !value[0].is_string() ||
        value[0].get<std::string>().empty()) {
      return UserError{fmt::format("{}: {}", system_path, key),
                       fmt::format("got {}; accepted: a list of one Chakra trace prefix, e.g. "
                                   "[\"traces/custom_allreduce\"]",
                                   value.dump())};
    }
    settings.custom[kind] = value[0].get<std::string>();
  }
  return settings;
}

}  // namespace hfsim
