#include "sim/cli/gnuplot-drawing.h"

#include <cstdlib>

#include <fmt/format.h>

namespace hfsim {

namespace {

// A word for sh: single-quoted, with each single quote closed, escaped and reopened.
std::string ShellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `text` as a literal in a sed basic regular expression.
std::string SedLiteral(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '.' || c == '*' || c == '[' || c == ']' || c == '^' || c == '$' || c == '\\' ||
        c == '/') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

}  // namespace

std::optional<std::string> DrawWithGnuplot(const std::string& directory, const std::string& script,
                                           const std::string& png) {
  const std::string temporary = png + ".tmp";
  const std::string command =
      fmt::format("cd {} && sed {} {} | gnuplot && mv -f {} {}", ShellQuoted(directory),
                  ShellQuoted(fmt::format("s/{}/{}/", SedLiteral(png), SedLiteral(temporary))),
                  ShellQuoted(script), ShellQuoted(temporary), ShellQuoted(png));
  if (std::system(command.c_str()) != 0) {
    return fmt::format("gnuplot failed to draw {}/{} (is gnuplot installed? scripts/setup "
                       "installs it)", directory, png);
  }
  return std::nullopt;
}

}  // namespace hfsim
