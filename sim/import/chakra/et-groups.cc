#include "sim/import/chakra/et-groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/scenario/json-text.h"
#include "sim/scenario/input-file.h"

namespace hfsim {

namespace {
constexpr uint64_t kMaxFileBytes = uint64_t{64} << 20;
// An hfsim graph has at most 1,024 communicators; each family becomes one.
constexpr size_t kMaxFamilies = 1024;
// Ranks listed in all groups together: bounds the memory and time of classing them.
constexpr uint64_t kMaxListedRanks = uint64_t{1} << 22;
}  // namespace

std::optional<int64_t> EtGroups::Named(const std::optional<std::string>& pg_name) const {
  if (!pg_name) return std::nullopt;
  int64_t id = 0;
  const char* end = pg_name->data() + pg_name->size();
  const auto [stop, ec] = std::from_chars(pg_name->data(), end, id);
  if (ec != std::errc() || stop != end || !members.count(id)) return std::nullopt;
  return id;
}

Expected<EtGroups> ReadEtGroups(const std::string& path, uint64_t ranks) {
  auto read = ReadInputFile(path, "the communicator-group file", kMaxFileBytes);
  if (!read) return read.Error();
  const std::string& text = read.Value();
  auto parsed = ParseJsonText(text, path, {static_cast<uint64_t>(kMaxFileBytes), 8});
  if (!parsed) return parsed.Error();
  const nlohmann::json& root = parsed.Value();
  if (!root.is_object()) {
    return UserError{path,
                     "expected an object whose keys are group ids and whose values are "
                     "lists of ranks, e.g. {\"1\": [0, 1], \"2\": [2, 3]}"};
  }
  EtGroups groups;
  std::map<int64_t, std::string> keys;  // each id's key as written
  uint64_t listed = 0;
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
    listed += value.size();
    if (listed > kMaxListedRanks) {
      return UserError{
          fmt::format("{}: \"{}\"", path, key),
          fmt::format("the groups list more than {} ranks in all; accepted: at most {}",
                      kMaxListedRanks, kMaxListedRanks)};
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
    // ASTRA-sim reads a key with std::stoi (Workload::initialize_comm_groups), so "1" and
    // "01" are one group there, the later in the file's order replacing the earlier.
    if (const auto [kept, added] = keys.emplace(id, key); !added) {
      return UserError{fmt::format("{}: \"{}\"", path, key),
                       fmt::format("group {} is also key \"{}\"; accepted: each group id once "
                                   "(ASTRA-sim reads both as group {} and keeps only one)",
                                   id, kept->second, id)};
    }
    groups.members.emplace(id, std::move(members));
  }
  // Families of disjoint groups, in order of ids (deterministic whatever the file's order):
  // each group joins the first family none of its ranks is in yet. Each rank keeps the
  // families it is in, so the work is per listed rank, not per rank of the fabric.
  std::vector<std::vector<uint32_t>> families_of_rank(ranks);
  std::vector<uint32_t> used;
  for (const auto& [id, members] : groups.members) {
    used.clear();
    for (const uint32_t r : members) {
      used.insert(used.end(), families_of_rank[r].begin(), families_of_rank[r].end());
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    uint32_t family = 0;
    while (family < used.size() && used[family] == family) ++family;  // the first gap
    if (family == groups.families.size()) {
      if (groups.families.size() == kMaxFamilies) {
        return UserError{fmt::format("{}: \"{}\"", path, id),
                         fmt::format("the groups fall into more than {} families of disjoint "
                                     "groups (a rank in more than {} groups); accepted: at most "
                                     "{}, one per communicator",
                                     kMaxFamilies, kMaxFamilies, kMaxFamilies)};
      }
      groups.families.emplace_back();
    }
    groups.families[family].push_back(id);
    for (const uint32_t r : members) families_of_rank[r].push_back(family);
    groups.family_of.emplace(id, family);
  }
  return groups;
}

}  // namespace hfsim
