// A value or the reason there is none: how errors travel from the edges (scenario loading,
// imports) back to the command line, which prints them and exits 2. Deep code never exits.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace hfsim {

/// A user-caused error: where (JSON path such as "topology.dimensions[1].size", or a file
/// name) and what (the value found and what is accepted).
struct UserError {
  std::string where;
  std::string message;

  /// "where: message", or just the message when there is no location.
  std::string ToString() const { return where.empty() ? message : where + ": " + message; }
};

template <typename T>
class Expected {
 public:
  Expected(T value) : m_state(std::move(value)) {}         // NOLINT: implicit by design
  Expected(UserError error) : m_state(std::move(error)) {}  // NOLINT: implicit by design

  bool HasValue() const { return std::holds_alternative<T>(m_state); }
  explicit operator bool() const { return HasValue(); }
  T& Value() & { return std::get<T>(m_state); }
  const T& Value() const& { return std::get<T>(m_state); }
  T&& Value() && { return std::get<T>(std::move(m_state)); }
  const UserError& Error() const { return std::get<UserError>(m_state); }

 private:
  std::variant<T, UserError> m_state;
};

}  // namespace hfsim
