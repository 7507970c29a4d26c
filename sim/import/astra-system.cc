#include "sim/import/astra-system.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/import/astra-network.h"
#include "sim/scenario/input-file.h"
#include "sim/scenario/json-cursor.h"
#include "sim/scenario/json-text.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

// ASTRA-sim key -> hfsim collective kind.
constexpr std::pair<const char*, const char*> kImplementations[] = {
    {"all-reduce-implementation", "all_reduce"},
    {"reduce-scatter-implementation", "reduce_scatter"},
    {"all-gather-implementation", "all_gather"},
    {"all-to-all-implementation", "all_to_all"}};

// ASTRA-sim's spellings of the algorithms it shares with hfsim (its system file's
// *-implementation entries).
constexpr NameTable<CollectiveAlgorithm, 3> kAstraAlgorithmNames = {{
    {CollectiveAlgorithm::kRing, "ring"},
    {CollectiveAlgorithm::kDirect, "direct"},
    {CollectiveAlgorithm::kHalvingDoubling, "halvingDoubling"},
}};

nlohmann::json ReadImplementation(const JsonCursor& list, const std::vector<uint32_t>& sizes) {
  nlohmann::json out = nlohmann::json::array();
  const auto entries = list.Elements(sizes.size(), sizes.size());
  for (size_t d = 0; d < entries.size(); ++d) {
    const CollectiveAlgorithm algorithm = entries[d].Choice(kAstraAlgorithmNames);
    // halvingDoubling for all-to-all is refused by the loader only if the workload uses it.
    if (algorithm == CollectiveAlgorithm::kHalvingDoubling) {
      if ((sizes[d] & (sizes[d] - 1)) != 0) {
        entries[d].Fail(fmt::format("halvingDoubling needs a power-of-two npus_count, dimension {} has {}; "
                                    "accepted: \"ring\", \"direct\"", d, sizes[d]));
      }
    }
    out.push_back(std::string(ToString(algorithm)));
  }
  return out;
}

nlohmann::json Read(const JsonCursor& root, const std::vector<uint32_t>& sizes, bool chakra) {
  root.ExpectObject({"scheduling-policy", "endpoint-delay", "active-chunks-per-dimension",
                     "preferred-dataset-splits", "all-reduce-implementation",
                     "reduce-scatter-implementation", "all-gather-implementation",
                     "all-to-all-implementation", "collective-optimization", "local-mem-bw",
                     "intra-dimension-scheduling", "inter-dimension-scheduling", "boost-mode",
                     "roofline-enabled", "peak-perf", "trace-enabled", "track-local-mem",
                     "all-reduce-implementation-custom", "reduce-scatter-implementation-custom",
                     "all-gather-implementation-custom", "all-to-all-implementation-custom",
                     "per-node-custom-implementation"});
  // A custom implementation is a Chakra trace of its own: the trace importer runs it in place
  // of the collectives of a trace (docs/chakra.md). Nothing else could use it.
  for (const char* key : {"all-reduce-implementation-custom", "reduce-scatter-implementation-custom",
                          "all-gather-implementation-custom", "all-to-all-implementation-custom"}) {
    if (root.Has(key) && !chakra) {
      root.Child(key).Fail("a custom collective implementation (a Chakra trace) runs only in "
                           "place of a Chakra trace's collectives; accepted here with --chakra, "
                           "otherwise remove the key");
    }
  }
  if (root.Has("per-node-custom-implementation")) {
    root.Child("per-node-custom-implementation")
        .Fail("per-node custom implementations are not read; accepted: the per-collective "
              "\"*-implementation-custom\" keys");
  }
  // Only the defaults of the keys that would change collective times are accepted.
  if (auto intra = root.Find("intra-dimension-scheduling")) intra->Choice({"FIFO"});
  if (auto inter = root.Find("inter-dimension-scheduling")) inter->Choice({"baseline"});
  if (auto boost = root.Find("boost-mode")) boost->Integer(0, 0);
  // Keys ASTRA-sim gives a default take it (Sys::Sys in astra-sim/system/Sys.cc sets them before
  // Sys::initialize_sys reads the file); keys it leaves undefined or would divide by stay
  // required, and the message says why (docs/astra-sim.md §3).
  root.At("scheduling-policy",
          "\"LIFO\" or \"FIFO\" (ASTRA-sim sets no default: Sys::Sys leaves it undefined)")
      .Choice({"LIFO", "FIFO"});
  nlohmann::json out;
  out["pricing"] = "astra_sim";
  out["endpoint_delay_ns"] =
      root.Has("endpoint-delay")
          ? root.Child("endpoint-delay").Number(0.0, ScenarioLimits::kMaxLatencyNs, false)
          : kAstraDefaultEndpointDelay;
  out["active_chunks_per_dimension"] =
      root.Has("active-chunks-per-dimension")
          ? root.Child("active-chunks-per-dimension").Integer(1, ScenarioLimits::kMaxChunks)
          : uint64_t{1};
  out["chunks"] = root.At("preferred-dataset-splits",
                          "an integer, at least 1 (ASTRA-sim's default is 0, by which "
                          "Sys::determine_chunk_size divides)")
                      .Integer(1, ScenarioLimits::kMaxChunks);
  if (auto optimization = root.Find("collective-optimization")) {
    const size_t scheme = optimization->Choice({"localBWAware", "baseline"});
    out["scheme"] = scheme == 0 ? "hierarchical" : "naive";
  } else if (sizes.size() > 1 && !root.Has("all-reduce-implementation-custom")) {
    // It orders a multi-dimensional all-reduce's phases (Sys::generate_collective), and
    // ASTRA-sim leaves it undefined when absent (Sys::Sys sets no default).
    root.At("collective-optimization",
            "\"localBWAware\" or \"baseline\": on a network of more than one dimension it orders "
            "a native all-reduce's phases, and ASTRA-sim sets no default (Sys::Sys leaves it "
            "undefined); it may be left out on one dimension or with a custom all-reduce "
            "implementation, where it cannot matter");
  }
  out["reduction_memory_bandwidth_GBps"] =
      root.Has("local-mem-bw") ? root.Child("local-mem-bw").Number(ScenarioLimits::kMinBandwidthGBps, ScenarioLimits::kMaxBandwidthGBps, false) : 0.0;
  // A kind without a list has no native implementation in ASTRA-sim, which stops only if one
  // runs (CollectiveImplLookup::get_collective_impl): hfsim checks that once the workload is
  // known (AstraImplementationRefusal).
  nlohmann::json algorithms = nlohmann::json::object();
  for (const auto& [key, kind] : kImplementations) {
    if (auto list = root.Find(key)) algorithms[kind] = ReadImplementation(*list, sizes);
  }
  out["algorithms"] = algorithms;
  return out;
}

}  // namespace

Expected<nlohmann::json> ReadAstraSystem(const std::string& path, const std::vector<uint32_t>& sizes,
                                         bool chakra) {
  auto text = ReadInputFile(path, "the ASTRA-sim system file", kMaxAstraInputBytes);
  if (!text) return text.Error();
  return ParseAstraSystemText(text.Value(), path, sizes, chakra);
}

Expected<nlohmann::json> ParseAstraSystemText(const std::string& text, const std::string& source_name,
                                              const std::vector<uint32_t>& sizes, bool chakra) {
  if (text.size() > kMaxAstraInputBytes) {
    return UserError{source_name, fmt::format("file has {} bytes; accepted: at most {}", text.size(), kMaxAstraInputBytes)};
  }
  auto parsed = ParseJsonText(text, source_name, {kMaxAstraInputBytes, 64});
  if (!parsed) return parsed.Error();
  const nlohmann::json& document = parsed.Value();
  try {
    return Read(JsonCursor(document, ""), sizes, chakra);
  } catch (const JsonPathError& problem) {
    return UserError{source_name + ": " + (problem.Path().empty() ? "(top level)" : problem.Path()), problem.Message()};
  }
}

}  // namespace hfsim
