#include "sim/cli/chakra-options.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "sim/cli/option-checks.h"
#include "sim/cli/output-set.h"
#include "sim/import/chakra/astra-trace-settings.h"
#include "sim/import/chakra/chakra-import.h"

namespace hfsim {

namespace {

// The fabric's dimension sizes from the document's topology, read only as far as needed to
// find the rank files; the loader checks the topology properly afterwards. nullopt when the
// topology is not there or not well formed (the loader then says what is wrong).
std::optional<std::vector<uint32_t>> DimensionSizes(const nlohmann::json& document) {
  if (!document.is_object() || !document.contains("topology")) return std::nullopt;
  const nlohmann::json& topology = document["topology"];
  if (!topology.is_object() || !topology.contains("dimensions") ||
      !topology["dimensions"].is_array()) {
    return std::nullopt;
  }
  const nlohmann::json& dimensions = topology["dimensions"];
  if (dimensions.empty() || dimensions.size() > 8) return std::nullopt;
  std::vector<uint32_t> sizes;
  uint64_t ranks = 1;
  for (const nlohmann::json& dim : dimensions) {
    if (!dim.is_object() || !dim.contains("size") || !dim["size"].is_number_unsigned())
      return std::nullopt;
    const uint64_t size = dim["size"].get<uint64_t>();
    if (size < 2 || size > 65536) return std::nullopt;
    ranks *= size;
    if (ranks > (uint64_t{1} << 20)) return std::nullopt;
    sizes.push_back(static_cast<uint32_t>(size));
  }
  return sizes;
}

}  // namespace

void ChakraOptions::Register(CLI::App& command) {
  command
      .add_option("--chakra", prefix,
                  "A Chakra execution trace to run as the workload: PREFIX.0.et ... "
                  "PREFIX.(N-1).et, one per NPU of the fabric (docs/chakra.md)")
      ->check(NonEmptyPath());
  command
      .add_option("--chakra-groups", groups_path,
                  "With --chakra: ASTRA-sim's communicator-group JSON, {\"1\": [ranks...], "
                  "...}, naming the groups of the nodes' pg_name")
      ->check(ReadableFile());
  command.add_flag("--chakra-legacy", legacy,
                   "With --chakra: follow data_deps only and replay host-side collective calls "
                   "by their duration, as Chakra's first feeder did (traces converted from "
                   "PyTorch by Chakra's first converter)");
  command.add_flag("--chakra-replicate", replicate,
                   "With --chakra: every NPU runs PREFIX.0.et (a trace recorded on one rank of a "
                   "data-parallel job, run on a whole fabric)");
}

std::optional<UserError> ChakraOptions::CheckAlone(const std::string& command) const {
  if (Given()) return std::nullopt;
  if (!groups_path.empty()) return UserError{command, "--chakra-groups needs --chakra"};
  if (legacy) return UserError{command, "--chakra-legacy needs --chakra"};
  if (replicate) return UserError{command, "--chakra-replicate needs --chakra"};
  return std::nullopt;
}

std::optional<UserError> ChakraOptions::Apply(nlohmann::json& document,
                                              const std::string& astra_system) const {
  const auto sizes = DimensionSizes(document);
  if (!sizes) {
    // Let the loader name what is wrong with the topology: any workload will do for that.
    document["workload"] = {{"graph", {{"programs", nlohmann::json::array()}}}};
    return std::nullopt;
  }
  // A directory whose publication a kill cut short holds a mix of two exports until an hfsim
  // command writing there finishes it: refused rather than run (output-set.h).
  const std::filesystem::path folder = std::filesystem::path(prefix).parent_path();
  if (auto cut = InterruptedPublication(folder.empty() ? std::filesystem::path(".") : folder)) {
    return UserError{prefix, *cut};
  }
  ChakraInputs inputs;
  inputs.prefix = prefix;
  inputs.groups_path = groups_path;
  inputs.legacy = legacy;
  inputs.replicate = replicate;
  if (!astra_system.empty()) {
    auto settings = ReadAstraTraceSettings(astra_system);
    if (!settings) return settings.Error();
    inputs.roofline = settings.Value().roofline;
    inputs.custom = std::move(settings.Value().custom);
  }
  auto imported = ImportChakra(inputs, *sizes);
  if (!imported) return imported.Error();
  std::cerr << imported.Value().counts.Summary();
  for (const auto& [kind, implementation] : inputs.custom) {
    std::cerr << "chakra: every " << kind << " runs as the custom implementation " << implementation
              << ".POSITION.et (from " << astra_system << ")\n";
  }
  document["workload"] = {{"graph", std::move(imported.Value().graph)}};
  // ASTRA-sim's inputs name no job (the import's name is a placeholder's): the trace does.
  if (!astra_system.empty()) document["name"] = "chakra " + prefix;
  return std::nullopt;
}

}  // namespace hfsim
