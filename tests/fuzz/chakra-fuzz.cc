// libFuzzer target: Chakra execution traces (sim/import/chakra/), from the bytes of the files
// through the importer to the graph loader. The input is two rank files of a 2-NPU fabric: a
// 2-byte little-endian length, rank 0's file of that many bytes, and rank 1's (the rest). The
// files are written to a directory of this process, as `hfsim run --chakra` reads them.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/import/chakra/chakra-import.h"
#include "sim/scenario/scenario-parser.h"

namespace {

const std::filesystem::path& Directory() {
  static const std::filesystem::path dir = [] {
    auto path = std::filesystem::temp_directory_path() /
                ("hfsim-fuzz-chakra-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t first = std::min<size_t>(size - 2, data[0] | (size_t{data[1]} << 8));
  const char* bytes = reinterpret_cast<const char*>(data) + 2;
  const std::filesystem::path prefix = Directory() / "trace";
  std::ofstream(prefix.string() + ".0.et", std::ios::binary | std::ios::trunc).write(bytes, first);
  std::ofstream(prefix.string() + ".1.et", std::ios::binary | std::ios::trunc)
      .write(bytes + first, static_cast<std::streamsize>(size - 2 - first));
  hfsim::ChakraInputs inputs;
  inputs.prefix = prefix.string();
  auto imported = hfsim::ImportChakra(inputs, {2});
  if (!imported) return 0;
  const nlohmann::json document = {
      {"topology",
       {{"dimensions",
         {{{"kind", "Switch"}, {"size", 2}, {"bandwidth_GBps", 50}, {"latency_ns", 500}}}}}},
      {"workload", {{"graph", imported.Value().graph}}}};
  auto scenario = hfsim::ParseScenario(document);
  (void)scenario;
  return 0;
}
