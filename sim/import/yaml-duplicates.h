// Duplicate keys in a YAML mapping. yaml-cpp keeps both entries and a lookup returns the first,
// while LIBRA's and ASTRA-sim's own readers (PyYAML and yaml-cpp maps) would take the last: a
// duplicated key would silently mean different things to hfsim and to the tool the file is for.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace hfsim {

struct YamlDuplicateKey {
  std::string key;
  int line = 0;  ///< 1-based line of the second occurrence
};

/// The first key that appears twice in one mapping, anywhere in `root` (walked without
/// recursion), or nullopt. Each collection is visited once: aliases share their anchor's node
/// (and its position in the text), and nested aliases would otherwise make the walk exponential.
inline std::optional<YamlDuplicateKey> FindDuplicateYamlKey(const YAML::Node& root) {
  std::vector<YAML::Node> pending{root};
  std::set<int> visited;  // text positions of the collections walked
  while (!pending.empty()) {
    const YAML::Node node = pending.back();
    pending.pop_back();
    if ((node.IsMap() || node.IsSequence()) && !visited.insert(node.Mark().pos).second) continue;
    if (node.IsMap()) {
      std::set<std::string> seen;
      for (const auto& entry : node) {
        const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
        if (entry.first.IsScalar() && !seen.insert(key).second) {
          return YamlDuplicateKey{key, entry.first.Mark().line + 1};
        }
        pending.push_back(entry.second);
      }
    } else if (node.IsSequence()) {
      for (const auto& element : node) pending.push_back(element);
    }
  }
  return std::nullopt;
}

}  // namespace hfsim
