#include "sim/scenario/json-cursor.h"

#include <cmath>

#include <fmt/format.h>

namespace hfsim {

namespace {

std::string TypeName(const nlohmann::json& node) {
  if (node.is_number_integer()) return "an integer";
  if (node.is_number()) return "a number";
  if (node.is_string()) return "a string";
  if (node.is_boolean()) return "a boolean";
  if (node.is_null()) return "null";
  if (node.is_array()) return "an array";
  return "an object";
}

std::string JoinQuoted(auto&& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += fmt::format("\"{}\"", item);
  }
  return out;
}

}  // namespace

std::string JsonCursor::Shown() const {
  std::string text = m_node->dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

void JsonCursor::Fail(const std::string& message) const { throw JsonPathError(m_path, message); }

void JsonCursor::ExpectObject(std::initializer_list<std::string_view> accepted) const {
  ExpectObject(std::span<const std::string_view>(accepted.begin(), accepted.size()));
}

void JsonCursor::ExpectObject(std::span<const std::string_view> accepted) const {
  if (!m_node->is_object()) Fail(fmt::format("expected an object, got {} {}", TypeName(*m_node), Shown()));
  for (const auto& [key, value] : m_node->items()) {
    bool known = false;
    for (std::string_view name : accepted) known = known || name == key;
    if (!known) {
      Child(key).Fail(fmt::format("unknown key \"{}\"; accepted keys here: {}", key, JoinQuoted(accepted)));
    }
  }
}

bool JsonCursor::Has(std::string_view key) const {
  return m_node->is_object() && m_node->contains(key);
}

JsonCursor JsonCursor::Child(std::string_view key) const {
  const std::string path = m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
  return JsonCursor((*m_node)[std::string(key)], path);
}

JsonCursor JsonCursor::Element(size_t index) const {
  return JsonCursor((*m_node)[index], fmt::format("{}[{}]", m_path, index));
}

JsonCursor JsonCursor::At(std::string_view key, std::string_view what_is_expected) const {
  if (!m_node->is_object()) Fail(fmt::format("expected an object, got {} {}", TypeName(*m_node), Shown()));
  if (!Has(key)) {
    const std::string path = m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
    throw JsonPathError(path, fmt::format("missing; expected {}", what_is_expected));
  }
  return Child(key);
}

std::optional<JsonCursor> JsonCursor::Find(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return Child(key);
}

std::vector<JsonCursor> JsonCursor::Elements(size_t min_count, size_t max_count) const {
  if (!m_node->is_array()) Fail(fmt::format("expected an array, got {} {}", TypeName(*m_node), Shown()));
  if (m_node->size() < min_count || m_node->size() > max_count) {
    Fail(fmt::format("array has {} entries; accepted: {} to {}", m_node->size(), min_count, max_count));
  }
  std::vector<JsonCursor> elements;
  elements.reserve(m_node->size());
  for (size_t i = 0; i < m_node->size(); ++i) elements.push_back(Element(i));
  return elements;
}

std::string JsonCursor::String() const {
  if (!m_node->is_string()) Fail(fmt::format("expected a string, got {} {}", TypeName(*m_node), Shown()));
  return m_node->get<std::string>();
}

bool JsonCursor::Bool() const {
  if (!m_node->is_boolean()) Fail(fmt::format("expected true or false, got {} {}", TypeName(*m_node), Shown()));
  return m_node->get<bool>();
}

uint64_t JsonCursor::Integer(uint64_t min, uint64_t max) const {
  const std::string accepted = fmt::format("accepted: an integer from {} to {}", min, max);
  if (!m_node->is_number_integer()) {
    Fail(fmt::format("got {} {}; {}", TypeName(*m_node), Shown(), accepted));
  }
  if (m_node->is_number_unsigned()) {
    const uint64_t value = m_node->get<uint64_t>();
    if (value < min || value > max) Fail(fmt::format("got {}; {}", value, accepted));
    return value;
  }
  const int64_t value = m_node->get<int64_t>();
  if (value < 0 || static_cast<uint64_t>(value) < min || static_cast<uint64_t>(value) > max) {
    Fail(fmt::format("got {}; {}", value, accepted));
  }
  return static_cast<uint64_t>(value);
}

double JsonCursor::Number(double min, double max, bool min_exclusive) const {
  const std::string accepted =
      fmt::format("accepted: a number {} {} and at most {}", min_exclusive ? "above" : "from", min, max);
  if (!m_node->is_number()) Fail(fmt::format("got {} {}; {}", TypeName(*m_node), Shown(), accepted));
  const double value = m_node->get<double>();
  const bool below = min_exclusive ? !(value > min) : !(value >= min);
  if (!std::isfinite(value) || below || value > max) Fail(fmt::format("got {}; {}", Shown(), accepted));
  return value;
}

size_t JsonCursor::Choice(const std::vector<std::string_view>& choices) const {
  const std::string accepted = fmt::format("accepted: {}", JoinQuoted(choices));
  if (!m_node->is_string()) Fail(fmt::format("got {} {}; {}", TypeName(*m_node), Shown(), accepted));
  const std::string value = m_node->get<std::string>();
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == value) return i;
  }
  Fail(fmt::format("got \"{}\"; {}", value, accepted));
}

}  // namespace hfsim
