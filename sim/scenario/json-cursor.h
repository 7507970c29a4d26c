// Strict, path-aware reading of a JSON document: every accessor knows the JSON path of the node
// it reads ("workload.training.parallelism.data"), so a bad value is reported where it is.
//
// Errors are thrown as JsonPathError *inside* the loader only; the loader's public functions
// catch them and return Expected<...> (base/expected.h). Nothing outside the loader sees a throw.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/name-table.h"

namespace hfsim {

class JsonPathError : public std::runtime_error {
 public:
  JsonPathError(std::string path, std::string message)
      : std::runtime_error(path + ": " + message), m_path(std::move(path)),
        m_message(std::move(message)) {}
  const std::string& Path() const { return m_path; }
  const std::string& Message() const { return m_message; }

 private:
  std::string m_path;
  std::string m_message;
};

class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& node, std::string path) : m_node(&node), m_path(std::move(path)) {}

  const std::string& Path() const { return m_path; }
  const nlohmann::json& Node() const { return *m_node; }
  /// Short rendering of the node for messages (long values are cut).
  std::string Shown() const;
  [[noreturn]] void Fail(const std::string& message) const;

  /// Requires an object whose keys are all in `accepted`; names the first unknown key and lists
  /// the accepted ones.
  void ExpectObject(std::initializer_list<std::string_view> accepted) const;
  void ExpectObject(std::span<const std::string_view> accepted) const;
  bool Has(std::string_view key) const;
  /// A required member; fails with "missing" and the accepted form when absent.
  JsonCursor At(std::string_view key, std::string_view what_is_expected) const;
  std::optional<JsonCursor> Find(std::string_view key) const;

  std::vector<JsonCursor> Elements(size_t min_count, size_t max_count) const;

  std::string String() const;
  bool Bool() const;
  /// An integer in [min, max] (JSON integer tokens only: 4.0 is refused).
  uint64_t Integer(uint64_t min, uint64_t max) const;
  /// A finite number in (min, max] when min_exclusive, else [min, max].
  double Number(double min, double max, bool min_exclusive) const;
  /// One of `choices` (a string); the message lists them.
  size_t Choice(const std::vector<std::string_view>& choices) const;
  /// One of the names of an enum's table (base/name-table.h), as its value; the message lists
  /// them in table order. `count`: only the table's first `count` values are accepted here.
  template <typename Enum, size_t N>
  Enum Choice(const NameTable<Enum, N>& table, size_t count = N) const {
    std::vector<std::string_view> names;
    names.reserve(count);
    for (size_t i = 0; i < count && i < N; ++i) names.push_back(table[i].name);
    return table[Choice(names)].value;
  }

  JsonCursor Child(std::string_view key) const;
  JsonCursor Element(size_t index) const;

 private:
  const nlohmann::json* m_node;
  std::string m_path;
};

}  // namespace hfsim
