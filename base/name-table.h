// The names users write for an enum's values, kept in one table next to the enum.
//
// Each user-facing enum (a dimension kind, a collective algorithm, a congestion control...) has
// one NameTable listing every value with its spelling, in the order messages list them. Its
// ToString and Parse come from the table, the scenario parser reads a choice through it
// (JsonCursor::Choice) and the command line lists its accepted values from it (NamesOf), so a
// value added to the enum and its table is spelled, parsed and offered everywhere at once.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hfsim {

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

template <typename Enum, size_t N>
using NameTable = std::array<EnumName<Enum>, N>;

/// The name of `value`, or "?" for a value the table does not list (an enum cast from a bad
/// integer).
template <typename Enum, size_t N>
constexpr std::string_view NameIn(const NameTable<Enum, N>& table, Enum value) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

/// The value spelled `text`, or nullopt.
template <typename Enum, size_t N>
constexpr std::optional<Enum> ParseIn(const NameTable<Enum, N>& table, std::string_view text) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.name == text) return entry.value;
  }
  return std::nullopt;
}

/// The names quoted and separated by ", " ("a", "b", "c"), the last one by `last_separator`
/// (", " again by default; " or " for QuotedAlternatives).
template <typename Enum, size_t N>
std::string QuotedList(const NameTable<Enum, N>& table, std::string_view last_separator = ", ") {
  std::string text;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) text += i + 1 == N ? last_separator : std::string_view(", ");
    text += "\"";
    text += table[i].name;
    text += "\"";
  }
  return text;
}

/// The names quoted, as a message offers them: "a", "b" or "c".
template <typename Enum, size_t N>
std::string QuotedAlternatives(const NameTable<Enum, N>& table) {
  return QuotedList(table, " or ");
}

/// Every name, in table order.
template <typename Enum, size_t N>
std::vector<std::string> NamesOf(const NameTable<Enum, N>& table) {
  std::vector<std::string> names;
  names.reserve(N);
  for (const EnumName<Enum>& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace hfsim
