// libFuzzer target: LIBRA's communicator YAML (Forward, InputGrad, WeightGrad). It is read
// against a network; the network here has as many dimensions as the Forward list has entries
// (so the seeds from configs/ fit), with sizes like configs/libra-inputs/4d-network.yml.
#include <cstddef>
#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/import/libra-formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t dimensions = 4;
  try {
    const YAML::Node root = YAML::Load(text);
    const YAML::Node forward = root.IsMap() ? root["Forward"] : YAML::Node();
    if (forward.IsSequence() && forward.size() >= 1 && forward.size() <= 8) dimensions = forward.size();
  } catch (const YAML::Exception&) {
    // The reader reports the syntax error itself.
  }
  constexpr const char* kKinds[8] = {"Ring", "FullyConnected", "Ring", "Switch",
                                     "Ring", "Switch", "FullyConnected", "Ring"};
  constexpr uint64_t kSizes[8] = {4, 8, 4, 32, 2, 16, 3, 2};
  hfsim::LibraNetwork network;
  for (size_t d = 0; d < dimensions; ++d) {
    network.kinds.push_back(kKinds[d]);
    network.sizes.push_back(kSizes[d]);
    network.lines.push_back(static_cast<int>(d) + 1);
  }
  auto communicator = hfsim::ParseLibraCommunicatorText(text, "comm.yml", network);
  (void)communicator;
  return 0;
}
