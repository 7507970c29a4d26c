// A value or the reason there is none: how errors travel from the edges (scenario loading,
// imports) back to the command line, which prints them and exits 2. Deep code never exits.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace hfsim {

/// A user-caused error: where (JSON path such as "topology.dimensions[1].size", or a file
/// name) and what (the value found and what is accepted).
struct UserError {
  std::string where;
  std::string message;

  /// "where: message", or just the message when there is no location.
  std::string ToString() const { return where.empty() ? message : where + ": " + message; }
};

// Two optionals rather than a std::variant: GCC 12's variant destructor trips UBSan's
// "unreachable" check in optimised sanitizer builds (a false positive that would hide real ones).
template <typename T>
class Expected {
 public:
  Expected(T value) : m_value(std::move(value)) {}         // NOLINT: implicit by design
  Expected(UserError error) : m_error(std::move(error)) {}  // NOLINT: implicit by design

  bool HasValue() const { return m_value.has_value(); }
  explicit operator bool() const { return HasValue(); }
  T& Value() & { return m_value.value(); }
  const T& Value() const& { return m_value.value(); }
  T&& Value() && { return std::move(m_value).value(); }
  const UserError& Error() const { return m_error.value(); }

 private:
  std::optional<T> m_value;
  std::optional<UserError> m_error;
};

}  // namespace hfsim
