#include "sim/import/astra-network.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/import/yaml-duplicates.h"
#include "sim/scenario/input-file.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

constexpr const char* kKeys = "\"topology\", \"npus_count\", \"bandwidth\", \"latency\"";

// A problem at one YAML node: "file: key[i] (line L): message".
struct NodeError {
  std::string where;
  std::string message;
};

std::string Where(const std::string& key, size_t index, const YAML::Node& node) {
  const std::string entry = index == SIZE_MAX ? key : fmt::format("{}[{}]", key, index);
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? fmt::format("{} (line {})", entry, mark.line + 1) : entry;
}

std::string Shown(const YAML::Node& node) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
  }
  return node.IsSequence() ? "a list" : node.IsMap() ? "a mapping" : "nothing";
}

double ReadNumber(const YAML::Node& node, const std::string& where, double min, double max,
                  bool min_exclusive, const std::string& accepted) {
  const auto fail = [&] { throw NodeError{where, fmt::format("got {}; accepted: {}", Shown(node), accepted)}; };
  if (!node.IsScalar() || node.Scalar().empty()) fail();
  const char* text = node.Scalar().c_str();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || errno != 0 || !std::isfinite(value)) fail();
  if (value > max || value < min || (min_exclusive && value == min)) fail();
  return value;
}

uint64_t ReadInteger(const YAML::Node& node, const std::string& where, uint64_t min, uint64_t max,
                     const std::string& accepted) {
  const auto fail = [&] { throw NodeError{where, fmt::format("got {}; accepted: {}", Shown(node), accepted)}; };
  if (!node.IsScalar()) fail();
  const std::string& text = node.Scalar();
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  // Overflow (10^30 NPUs) and non-integers (4.0, -2, 1e12) are refused without allocating.
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) fail();
  if (value < min || value > max) fail();
  return value;
}

AstraNetwork Read(const YAML::Node& root) {
  if (!root.IsMap()) {
    throw NodeError{"(top level)", fmt::format("got {}; accepted: a mapping with keys {}", Shown(root), kKeys)};
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key != "topology" && key != "npus_count" && key != "bandwidth" && key != "latency") {
      throw NodeError{Where(key, SIZE_MAX, entry.first),
                      fmt::format("unknown key \"{}\"; accepted keys: {}", key, kKeys)};
    }
  }
  size_t count = 0;
  for (const char* key : {"topology", "npus_count", "bandwidth", "latency"}) {
    const YAML::Node list = root[key];
    if (!list) throw NodeError{key, fmt::format("missing; accepted: a list with one entry per dimension, 1 to {}", ScenarioLimits::kMaxDimensions)};
    if (!list.IsSequence() || list.size() < 1 || list.size() > ScenarioLimits::kMaxDimensions) {
      throw NodeError{Where(key, SIZE_MAX, list),
                      fmt::format("got {}{}; accepted: a list of 1 to {} entries (one per dimension)",
                                  Shown(list), list.IsSequence() ? fmt::format(" of {} entries", list.size()) : "",
                                  ScenarioLimits::kMaxDimensions)};
    }
    if (count == 0) count = list.size();
    if (list.size() != count) {
      throw NodeError{Where(key, SIZE_MAX, list),
                      fmt::format("has {} entries but topology has {}; accepted: one entry per dimension",
                                  list.size(), count)};
    }
  }
  AstraNetwork network;
  nlohmann::json dimensions = nlohmann::json::array();
  uint64_t npus = 1;
  for (size_t d = 0; d < count; ++d) {
    const YAML::Node kind_node = root["topology"][d];
    const std::string kind = kind_node.IsScalar() ? kind_node.Scalar() : "";
    if (kind != "Ring" && kind != "FullyConnected" && kind != "Switch") {
      throw NodeError{Where("topology", d, kind_node),
                      fmt::format("got {}; accepted: Ring, FullyConnected, Switch", Shown(kind_node))};
    }
    const uint64_t max_size = kind == "FullyConnected" ? ScenarioLimits::kMaxFullyConnectedSize
                                                       : ScenarioLimits::kMaxDimensionSize;
    const YAML::Node size_node = root["npus_count"][d];
    const std::string size_where = Where("npus_count", d, size_node);
    const uint64_t size = ReadInteger(size_node, size_where, 2, max_size,
                                      fmt::format("an integer from 2 to {} for {}", max_size, kind));
    if (npus * size > ScenarioLimits::kMaxNpus) {
      throw NodeError{size_where, fmt::format("the fabric would have more than {} NPUs ({} x {}); "
                                              "accepted: a product of npus_count of at most {}",
                                              ScenarioLimits::kMaxNpus, npus, size, ScenarioLimits::kMaxNpus)};
    }
    npus *= size;
    const YAML::Node bw_node = root["bandwidth"][d];
    const std::string bw_where = Where("bandwidth", d, bw_node);
    const double link = ReadNumber(bw_node, bw_where, 0.0, 1e9, true,
                                   "a number above 0 (GB/s per one-way link, 1 GB = 2^30 B)");
    const double per_npu = AstraLinkToNpuGBps(kind, static_cast<uint32_t>(size), link);
    if (per_npu > ScenarioLimits::kMaxBandwidthGBps) {
      throw NodeError{bw_where, fmt::format("got {} per link, which is {} GB/s (10^9 B) per NPU; accepted: "
                                            "at most {} per NPU", Shown(bw_node), per_npu,
                                            ScenarioLimits::kMaxBandwidthGBps)};
    }
    const YAML::Node lat_node = root["latency"][d];
    const double latency = ReadNumber(lat_node, Where("latency", d, lat_node), 0.0,
                                      ScenarioLimits::kMaxLatencyNs, false,
                                      fmt::format("a number of ns from 0 to {}", ScenarioLimits::kMaxLatencyNs));
    dimensions.push_back({{"kind", kind}, {"size", size}, {"bandwidth_GBps", per_npu}, {"latency_ns", latency}});
    network.sizes.push_back(static_cast<uint32_t>(size));
  }
  network.topology = {{"dimensions", dimensions}};
  return network;
}

}  // namespace

double AstraLinkToNpuGBps(const std::string& kind, uint32_t size, double link_GiBps) {
  const double links = kind == "Ring" ? (size == 2 ? 1.0 : 2.0)
                       : kind == "FullyConnected" ? size - 1.0 : 1.0;
  return link_GiBps * links * 1.073741824;
}

Expected<AstraNetwork> ReadAstraNetwork(const std::string& path) {
  auto text = ReadInputFile(path, "the ASTRA-sim network file", kMaxAstraInputBytes);
  if (!text) return text.Error();
  return ParseAstraNetworkText(text.Value(), path);
}

Expected<AstraNetwork> ParseAstraNetworkText(const std::string& text, const std::string& source_name) {
  if (text.size() > kMaxAstraInputBytes) {
    return UserError{source_name, fmt::format("file has {} bytes; accepted: at most {}", text.size(), kMaxAstraInputBytes)};
  }
  try {
    const YAML::Node root = YAML::Load(text);
    if (const auto duplicate = FindDuplicateYamlKey(root)) {
      return UserError{fmt::format("{}: line {}", source_name, duplicate->line),
                       fmt::format("the key '{}' appears twice; accepted: each key once",
                                   duplicate->key)};
    }
    return Read(root);
  } catch (const NodeError& problem) {
    return UserError{source_name + ": " + problem.where, problem.message};
  } catch (const YAML::Exception& problem) {
    return UserError{source_name, fmt::format("not valid YAML (line {}): {}", problem.mark.line + 1, problem.msg)};
  }
}

}  // namespace hfsim
