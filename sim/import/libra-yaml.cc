// LIBRA's three YAML inputs: the network (Topology, NpusCount, CostDimension), the communicator
// (the dimensions each phase's collectives span) and the cost model ($ per GB/s per element).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "sim/import/libra-formats.h"
#include "sim/import/yaml-duplicates.h"
#include "sim/scenario/scenario-parser.h"
#include "sim/scenario/utf8.h"

namespace hfsim {

namespace {

// Thrown inside this file only; each public reader turns it into an Expected.
struct LibraError {
  UserError error;
};

[[noreturn]] void Fail(const std::string& path, const YAML::Node& node, const std::string& key,
                       const std::string& message) {
  const std::string line = node.Mark().is_null() ? "" : fmt::format(":{}", node.Mark().line + 1);
  throw LibraError{{fmt::format("{}{}: {}", path, line, key), message}};
}

// Text for a message: at most 60 characters, bytes that do not print as '?'.
std::string Printable(const std::string& text) {
  std::string shown = text.substr(0, 60);
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return text.size() > 60 ? shown + "..." : shown;
}

std::string Shown(const YAML::Node& node) {
  if (node.IsScalar()) return fmt::format("\"{}\"", Printable(node.Scalar()));
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

YAML::Node LoadYaml(const std::string& text, const std::string& path, const std::string& what) {
  // LIBRA's YAML files are a few lines; a large one is not one of them (and deep nesting costs
  // the parser stack).
  constexpr size_t kMaxYamlBytes = 1 << 20;
  if (text.size() > kMaxYamlBytes) {
    throw LibraError{{path, fmt::format("{} bytes; accepted: a YAML file of at most {} bytes with {}",
                                        text.size(), kMaxYamlBytes, what)}};
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw LibraError{{fmt::format("{}:{}", path, error.mark.line + 1),
                      fmt::format("not valid YAML ({}); accepted: {}", Printable(error.msg), what)}};
  }
  if (!root.IsMap()) {
    throw LibraError{{path, fmt::format("got {}; accepted: a YAML mapping with {}", Shown(root), what)}};
  }
  if (const auto duplicate = FindDuplicateYamlKey(root)) {
    throw LibraError{{fmt::format("{}:{}", path, duplicate->line),
                      fmt::format("the key '{}' appears twice; accepted: each key once",
                                  Printable(duplicate->key))}};
  }
  return root;
}

// Refuses keys other than `accepted` (LIBRA ignores them; here a typo should not pass silently).
void ExpectKeys(const std::string& path, const YAML::Node& root, const std::set<std::string>& accepted) {
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it->first.IsScalar() ? Printable(it->first.Scalar()) : "?";
    if (!accepted.contains(key)) {
      Fail(path, it->first, key, fmt::format("unknown key; accepted: {}", fmt::join(accepted, ", ")));
    }
  }
}

YAML::Node List(const std::string& path, const YAML::Node& root, const std::string& key,
                size_t count_min, size_t count_max, const std::string& what) {
  const YAML::Node node = root[key];
  if (!node) throw LibraError{{path + ": " + key, "missing; accepted: " + what}};
  if (!node.IsSequence() || node.size() < count_min || node.size() > count_max) {
    Fail(path, node, key, fmt::format("got {}{}; accepted: {}", Shown(node),
                                      node.IsSequence() ? fmt::format(" of {} entries", node.size()) : "",
                                      what));
  }
  return node;
}

int64_t Integer(const std::string& path, const YAML::Node& node, const std::string& key,
                int64_t min, int64_t max, const std::string& what) {
  int64_t value = 0;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && value >= min && value <= max) {
      return value;
    }
  }
  Fail(path, node, key, fmt::format("got {}; accepted: {}", Shown(node), what));
}

double Number(const std::string& path, const YAML::Node& node, const std::string& key,
              const std::string& what) {
  double value = 0.0;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && std::isfinite(value) &&
        value > 0.0 && value <= 1e9) {
      return value;
    }
  }
  Fail(path, node, key, fmt::format("got {}; accepted: {}", Shown(node), what));
}

template <typename T, typename F>
Expected<T> Catching(F&& read) {
  try {
    return read();
  } catch (const LibraError& error) {
    return error.error;
  } catch (const YAML::Exception& error) {
    return UserError{"", fmt::format("unexpected YAML structure: {}", error.what())};
  }
}

}  // namespace

Expected<LibraNetwork> ReadLibraNetwork(const std::string& path) {
  auto text = ReadLibraFile(path);
  if (!text) return text.Error();
  return ParseLibraNetworkText(text.Value(), path);
}

Expected<LibraCommunicator> ReadLibraCommunicator(const std::string& path,
                                                  const LibraNetwork& network) {
  auto text = ReadLibraFile(path);
  if (!text) return text.Error();
  return ParseLibraCommunicatorText(text.Value(), path, network);
}

Expected<LibraCostTable> ReadLibraCost(const std::string& path) {
  auto text = ReadLibraFile(path);
  if (!text) return text.Error();
  return ParseLibraCostText(text.Value(), path);
}

Expected<std::string> ReadLibraFile(const std::string& path) {
  std::error_code code;
  // Said as what it is: "not found (or not a regular file)" left a directory to be guessed.
  const auto status = std::filesystem::status(path, code);
  if (!std::filesystem::exists(status)) {
    return UserError{path, "no such file; accepted: a readable LIBRA input file"};
  }
  if (std::filesystem::is_directory(status)) {
    return UserError{path, "is a directory, not a file; accepted: a readable LIBRA input file"};
  }
  if (!std::filesystem::is_regular_file(status)) {
    return UserError{path, "is not a regular file (a FIFO, socket or device); accepted: a "
                           "readable LIBRA input file"};
  }
  const auto size = std::filesystem::file_size(path, code);
  if (code || size > kMaxLibraFileBytes) {
    return UserError{path, fmt::format("{} bytes; accepted: at most {} bytes", size, kMaxLibraFileBytes)};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return UserError{path, "could not be read"};
  // What is read ends up in a JSON scenario (layer names, the scenario's name), which must be
  // UTF-8: refused here rather than by the JSON writer after the work.
  if (const auto bad = FirstInvalidUtf8(path)) {
    return UserError{path, fmt::format("the file name has a byte that is not UTF-8 (byte {}); "
                                       "accepted: a UTF-8 file name", *bad)};
  }
  const std::string contents = text.str();
  if (const auto bad = FirstInvalidUtf8(contents)) {
    const size_t line = 1 + static_cast<size_t>(
        std::count(contents.begin(), contents.begin() + static_cast<std::ptrdiff_t>(*bad), '\n'));
    return UserError{path, fmt::format("line {}: byte {} is not UTF-8; accepted: UTF-8 text",
                                       line, *bad)};
  }
  if (const size_t nul = contents.find('\0'); nul != std::string::npos) {
    return UserError{path, fmt::format("byte {} is NUL; accepted: text with no NUL bytes", nul)};
  }
  return contents;
}

Expected<LibraNetwork> ParseLibraNetworkText(const std::string& text, const std::string& path) {
  return Catching<LibraNetwork>([&] {
    const std::string what = "Topology, NpusCount and CostDimension lists, one entry per dimension";
    const YAML::Node root = LoadYaml(text, path, what);
    ExpectKeys(path, root, {"Topology", "NpusCount", "CostDimension"});
    const size_t max_dims = ScenarioLimits::kMaxDimensions;
    const std::string list_what = fmt::format("a list of 1 to {} entries", max_dims);
    const YAML::Node topology = List(path, root, "Topology", 1, max_dims,
                                     list_what + " (Ring, FullyConnected, Switch)");
    LibraNetwork network;
    for (size_t d = 0; d < topology.size(); ++d) {
      const std::string key = fmt::format("Topology[{}]", d);
      const YAML::Node entry = topology[d];
      const std::string name = entry.IsScalar() ? entry.Scalar() : "";
      if (name != "Ring" && name != "FullyConnected" && name != "Switch") {
        Fail(path, entry, key, fmt::format("got {}; accepted: Ring, FullyConnected, Switch", Shown(entry)));
      }
      network.kinds.push_back(name);
    }
    const size_t k = topology.size();
    const std::string same = fmt::format("a list of {} entries, one per Topology entry", k);
    const YAML::Node sizes = List(path, root, "NpusCount", k, k, same + " (NPUs per group)");
    for (size_t d = 0; d < k; ++d) {
      const auto limit = network.kinds[d] == "FullyConnected" ? ScenarioLimits::kMaxFullyConnectedSize
                                                              : ScenarioLimits::kMaxDimensionSize;
      network.sizes.push_back(static_cast<uint64_t>(
          Integer(path, sizes[d], fmt::format("NpusCount[{}]", d), 2, static_cast<int64_t>(limit),
                  fmt::format("an integer from 2 to {} for a {}", limit, network.kinds[d]))));
      network.lines.push_back(sizes[d].Mark().line + 1);
    }
    if (root["CostDimension"]) {
      const YAML::Node classes = List(path, root, "CostDimension", k, k, same + " (cost-model names)");
      for (size_t d = 0; d < k; ++d) {
        if (!classes[d].IsScalar() || classes[d].Scalar().empty()) {
          Fail(path, classes[d], fmt::format("CostDimension[{}]", d),
               fmt::format("got {}; accepted: a name from the cost-model file", Shown(classes[d])));
        }
        network.cost_dimensions.push_back(classes[d].Scalar());
      }
    }
    return network;
  });
}

Expected<LibraCommunicator> ParseLibraCommunicatorText(const std::string& text, const std::string& path,
                                                       const LibraNetwork& network) {
  return Catching<LibraCommunicator>([&] {
    const YAML::Node root = LoadYaml(text, path, "Forward, InputGrad and WeightGrad lists");
    ExpectKeys(path, root, {"Forward", "InputGrad", "WeightGrad"});
    const size_t k = network.sizes.size();
    // Per dimension, the NPUs of the group along it: all of them, or part (a divisor of its
    // size: LIBRA's GPT-3 4-D puts 4 of a FullyConnected dimension's 8 in the tensor group).
    auto read = [&](const std::string& key, std::vector<uint32_t>& dims, std::vector<uint32_t>& npus) {
      const YAML::Node list = List(path, root, key, k, k,
                                   fmt::format("a list of {} entries, one per network dimension", k));
      for (size_t d = 0; d < k; ++d) {
        const auto n = static_cast<int64_t>(network.sizes[d]);
        const int64_t value = Integer(
            path, list[d], fmt::format("{}[{}]", key, d), -1, n,
            fmt::format("-1 (dimension not used) or a divisor of {} (the group's NPUs along it)", n));
        if (value == 0 || (value > 0 && n % value != 0)) {
          Fail(path, list[d], fmt::format("{}[{}]", key, d),
               fmt::format("got {}, which does not divide the dimension's {} NPUs; accepted: -1 "
                           "(not used) or a divisor of {}", value, n, n));
        }
        const auto count = static_cast<uint32_t>(value == -1 ? 1 : value);
        npus.push_back(count);
        if (count > 1) dims.push_back(static_cast<uint32_t>(d));
      }
    };
    LibraCommunicator communicator;
    read("Forward", communicator.forward, communicator.forward_npus);
    read("InputGrad", communicator.input_grad, communicator.input_grad_npus);
    read("WeightGrad", communicator.weight_grad, communicator.weight_grad_npus);
    return communicator;
  });
}

Expected<LibraCostTable> ParseLibraCostText(const std::string& text, const std::string& path) {
  return Catching<LibraCostTable>([&] {
    const YAML::Node root = LoadYaml(text, path, "cost dimensions, each a mapping of Link, Switch, Nic prices");
    LibraCostTable table;
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string raw = it->first.IsScalar() ? it->first.Scalar() : "?";
      const std::string name = Printable(raw);  // for messages
      if (!it->second.IsMap()) {
        Fail(path, it->second, name, fmt::format("got {}; accepted: a mapping of Link, Switch, Nic "
                                                 "to prices in $ per GB/s", Shown(it->second)));
      }
      ExpectKeys(path, it->second, {"Link", "Switch", "Nic"});
      LibraCostEntry entry;
      for (auto element = it->second.begin(); element != it->second.end(); ++element) {
        const std::string element_name = element->first.Scalar();
        const double price = Number(path, element->second, name + "." + element_name,
                                    "a price in $ per GB/s above 0 and at most 1e9");
        if (element_name == "Link") entry.link = price;
        if (element_name == "Switch") entry.switch_ = price;
        if (element_name == "Nic") entry.nic = price;
      }
      table[raw] = entry;
    }
    return table;
  });
}

}  // namespace hfsim
