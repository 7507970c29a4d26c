#include "sim/scenario/json-text.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "sim/scenario/input-file.h"

namespace hfsim {

namespace {

using Json = nlohmann::json;

// Builds the document with nlohmann's own DOM builder while watching the structure: depth,
// duplicate keys and the JSON path of each value. nlohmann's SAX parser keeps its state on the
// heap, so even a document nested a million deep is refused here without deep recursion.
class StrictSax {
 public:
  StrictSax(Json& result, const JsonTextLimits& limits, std::string_view text)
      : m_dom(result), m_limits(limits), m_text(text) {}

  bool null() { return Value() && m_dom.null(); }
  bool boolean(bool value) { return Value() && m_dom.boolean(value); }
  bool number_integer(Json::number_integer_t value) {
    return Value() && m_dom.number_integer(value);
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    return Value() && m_dom.number_unsigned(value);
  }
  bool number_float(Json::number_float_t value, const Json::string_t& text) {
    return Value() && m_dom.number_float(value, text);
  }
  bool string(Json::string_t& value) { return Value() && m_dom.string(value); }
  bool binary(Json::binary_t& value) { return Value() && m_dom.binary(value); }
  bool start_object(std::size_t size) {
    if (!Value() || !Open()) return false;
    m_frames.push_back({true, {}, 0, {}});
    return m_dom.start_object(size);
  }
  bool key(Json::string_t& name) {
    Frame& frame = m_frames.back();
    if (!frame.keys.insert(name).second) {
      return Fail(Path(false), fmt::format("the key \"{}\" appears twice; accepted: each key once "
                                      "(JSON readers disagree on which one counts)", name));
    }
    frame.key = name;
    return m_dom.key(name);
  }
  bool end_object() {
    m_frames.pop_back();
    return m_dom.end_object();
  }
  bool start_array(std::size_t size) {
    if (!Value() || !Open()) return false;
    m_frames.push_back({false, {}, 0, {}});
    return m_dom.start_array(size);
  }
  bool end_array() {
    m_frames.pop_back();
    return m_dom.end_array();
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& problem) {
    if (m_error) return false;  // our own refusal came first
    if (problem.id == 406) {  // a number beyond double, e.g. 1e400: named where it stands
      return Fail(NextValuePath(),
                  fmt::format("got {} ({}), beyond a double; accepted: numbers within +-1.8e308",
                              last_token, LineAndColumn(position)));
    }
    return Fail("", fmt::format("not valid JSON (at byte {}, {}): {}", position,
                                LineAndColumn(position), problem.what()));
  }

  const std::optional<UserError>& Error() const { return m_error; }

 private:
  struct Frame {
    bool object;
    std::string key;
    uint64_t index;
    std::set<std::string> keys;
  };

  // Called at every value: arrays count their elements so paths can name them.
  bool Value() {
    if (!m_frames.empty() && !m_frames.back().object) ++m_frames.back().index;
    return true;
  }
  bool Open() {
    if (m_frames.size() + 1 > m_limits.max_depth) {
      return Fail(Path(), fmt::format("nested deeper than {} objects and arrays; accepted: at most "
                                      "{} levels", m_limits.max_depth, m_limits.max_depth));
    }
    return true;
  }
  // The JSON path of the value being read ("topology.dimensions[1]"), or of the object whose
  // key is being read (without the last frame's key).
  std::string Path(bool with_last = true) const {
    std::string path;
    for (size_t i = 0; i < m_frames.size(); ++i) {
      const Frame& frame = m_frames[i];
      if (i + 1 == m_frames.size() && !with_last) break;
      if (frame.object) {
        path += path.empty() ? frame.key : "." + frame.key;
      } else {
        path += fmt::format("[{}]", frame.index - 1);
      }
    }
    return path;
  }
  // The path of the value the parser is reading but has not handed over (it failed on it): in
  // an array, the element after the last one counted.
  std::string NextValuePath() const {
    if (m_frames.empty() || m_frames.back().object) return Path();
    std::string path = m_frames.size() == 1 ? std::string() : Path(false);
    return path + fmt::format("[{}]", m_frames.back().index);
  }
  // "line L, column C" of byte `position` (nlohmann counts the bytes read, the offending one
  // included), both from 1.
  std::string LineAndColumn(std::size_t position) const {
    const size_t end = std::min(position, m_text.size());
    size_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < end; ++i) {
      if (m_text[i] == '\n') ++line, line_start = i + 1;
    }
    return fmt::format("line {}, column {}", line, end > line_start ? end - line_start : 1);
  }
  bool Fail(std::string where, std::string message) {
    if (!m_error) m_error = UserError{std::move(where), std::move(message)};
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<Json> m_dom;
  const JsonTextLimits& m_limits;
  std::string_view m_text;
  std::vector<Frame> m_frames;
  std::optional<UserError> m_error;
};

}  // namespace

Expected<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source,
                                       const JsonTextLimits& limits) {
  const std::string name(source);
  if (text.size() > limits.max_bytes) {
    return UserError{name, fmt::format("{} bytes; accepted: at most {}", text.size(),
                                       limits.max_bytes)};
  }
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return UserError{name, fmt::format("byte {} is NUL; accepted: JSON text (UTF-8) with no NUL "
                                       "bytes", nul)};
  }
  Json document;
  StrictSax sax(document, limits, text);
  const bool parsed = Json::sax_parse(text, &sax, nlohmann::detail::input_format_t::json, true);
  if (const auto& error = sax.Error()) {
    return UserError{error->where.empty() ? name : name + ": " + error->where, error->message};
  }
  if (!parsed) return UserError{name, "not valid JSON"};
  return document;
}

Expected<std::string> ReadTextFile(const std::string& path, std::string_view what,
                                   uint64_t max_bytes) {
  return ReadInputFile(path, what, max_bytes);
}

Expected<nlohmann::json> LoadJsonFile(const std::string& path, std::string_view what,
                                      const JsonTextLimits& limits) {
  auto text = ReadTextFile(path, what, limits.max_bytes);
  if (!text) return text.Error();
  return ParseJsonText(text.Value(), path, limits);
}

}  // namespace hfsim
