// Reading JSON text strictly, before anything else looks at it. nlohmann's parser accepts what
// a scenario must not be: duplicate keys (it keeps the last silently), nesting deep enough to
// exhaust the stack of whatever walks the document later, NUL bytes; and reading a file has to
// stop at a size limit rather than after gigabytes (/dev/zero). Every refusal names the source,
// the JSON path and what is accepted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/expected.h"

namespace hfsim {

struct JsonTextLimits {
  /// Largest input in bytes (scenarios are hand-written or generated; docs/bad-input.md).
  uint64_t max_bytes = uint64_t{64} << 20;
  /// Deepest nesting of objects and arrays (a scenario needs about 6).
  uint32_t max_depth = 64;
};

/// Parses `text` as one JSON document; refuses (naming `source`) NUL bytes, ill-formed UTF-8,
/// duplicate keys, nesting beyond `limits.max_depth`, numbers beyond double and texts over
/// `limits.max_bytes`.
Expected<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source,
                                       const JsonTextLimits& limits = {});

/// Reads the file at `path` (at most `limits.max_bytes` + 1 bytes are read) and parses it as
/// ParseJsonText does; `what` names the file's role in errors ("the scenario file").
Expected<nlohmann::json> LoadJsonFile(const std::string& path, std::string_view what,
                                      const JsonTextLimits& limits = {});

/// Reads at most `max_bytes` + 1 bytes of `path` into `text`; an error naming the file when it
/// cannot be opened or read, or is larger than `max_bytes`.
Expected<std::string> ReadTextFile(const std::string& path, std::string_view what,
                                   uint64_t max_bytes);

}  // namespace hfsim
