// ASTRA-sim's communicator-group JSON (its --comm-group-configuration): {"1": [0, 1, 2, 3],
// "2": [4, 5, 6, 7]}, each key a group id that a collective's pg_name names. Groups are
// sorted into families of disjoint groups, each of which becomes one hfsim communicator, so
// that ranks in like groups (every tensor group, say) keep equal programs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"

namespace hfsim {

struct EtGroups {
  std::map<int64_t, std::vector<uint32_t>> members;  ///< by group id; ranks ascending
  /// Group ids, ascending, in families of pairwise disjoint groups: each group joins the first
  /// family (in order of ids) none of whose groups it overlaps.
  std::vector<std::vector<int64_t>> families;
  std::map<int64_t, size_t> family_of;

  /// The id of the group a collective's pg_name names, when it is a key of the file (never for
  /// "" or "0", the default group of all NPUs).
  std::optional<int64_t> Named(const std::optional<std::string>& pg_name) const;
};

/// Reads the file for a fabric of `ranks` NPUs. Errors name the file, the key and the value:
/// a key that is not a positive integer ("0" is ASTRA-sim's reserved default group), a rank
/// outside the fabric, a rank listed twice, an empty group.
Expected<EtGroups> ReadEtGroups(const std::string& path, uint64_t ranks);

}  // namespace hfsim
