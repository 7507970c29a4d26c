#include "sim/import/chakra/et-groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/scenario/json-text.h"

namespace hfsim {

namespace {
constexpr std::streamoff kMaxFileBytes = std::streamoff{64} << 20;
}

Expected<EtGroups> ReadEtGroups(const std::string& path, uint64_t ranks) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return UserError{path, "cannot open the communicator-group file"};
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxFileBytes) {
    return UserError{path, fmt::format("the file has {} bytes; accepted: at most 64 MiB", size)};
  }
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), size)) return UserError{path, "cannot read the file"};
  auto parsed = ParseJsonText(text, path, {static_cast<uint64_t>(kMaxFileBytes), 8});
  if (!parsed) return parsed.Error();
  const nlohmann::json& root = parsed.Value();
  if (!root.is_object()) {
    return UserError{path,
                     "expected an object whose keys are group ids and whose values are "
                     "lists of ranks, e.g. {\"1\": [0, 1], \"2\": [2, 3]}"};
  }
  EtGroups groups;
  for (const auto& [key, value] : root.items()) {
    int64_t id = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (ec != std::errc() || end != key.data() + key.size() || id < 1) {
      return UserError{fmt::format("{}: \"{}\"", path, key),
                       "accepted: a group id, an integer from 1 (\"0\" is the default group of "
                       "all NPUs, which needs no entry)"};
    }
    if (!value.is_array() || value.empty()) {
      return UserError{fmt::format("{}: \"{}\"", path, key), "accepted: a non-empty list of ranks"};
    }
    std::vector<uint32_t> members;
    for (size_t i = 0; i < value.size(); ++i) {
      const nlohmann::json& rank = value[i];
      const std::string where = fmt::format("{}: \"{}\"[{}]", path, key, i);
      if (!rank.is_number_integer() || rank.get<int64_t>() < 0) {
        return UserError{where,
                         fmt::format("got {}; accepted: a rank, an integer from 0", rank.dump())};
      }
      const uint64_t r = rank.get<uint64_t>();
      if (r >= ranks) {
        return UserError{where, fmt::format("rank {} does not exist: the fabric has {} NPUs (ranks "
                                            "0 to {})",
                                            r, ranks, ranks - 1)};
      }
      members.push_back(static_cast<uint32_t>(r));
    }
    std::sort(members.begin(), members.end());
    if (const auto twice = std::adjacent_find(members.begin(), members.end());
        twice != members.end()) {
      return UserError{fmt::format("{}: \"{}\"", path, key),
                       fmt::format("rank {} is listed twice", *twice)};
    }
    groups.members.emplace(id, std::move(members));
  }
  // Families of disjoint groups, in order of ids (deterministic whatever the file's order).
  std::vector<std::vector<bool>> taken;
  for (const auto& [id, members] : groups.members) {
    size_t family = 0;
    for (; family < groups.families.size(); ++family) {
      if (std::none_of(members.begin(), members.end(),
                       [&](uint32_t r) { return static_cast<bool>(taken[family][r]); })) {
        break;
      }
    }
    if (family == groups.families.size()) {
      groups.families.emplace_back();
      taken.emplace_back(ranks, false);
    }
    groups.families[family].push_back(id);
    for (const uint32_t r : members) taken[family][r] = true;
    groups.family_of.emplace(id, family);
  }
  return groups;
}

}  // namespace hfsim
