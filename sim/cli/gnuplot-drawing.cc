#include "sim/cli/gnuplot-drawing.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

namespace hfsim {

namespace {

// A word for sh: single-quoted, with each single quote closed, escaped and reopened.
std::string ShellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void AddPictures(OutputFiles& files, const PlotSet& pictures, bool quiet) {
  for (const PlotScript& p : pictures.plots) {
    files.Add(p.script_name, p.script);
    files.AddPicture(p.script_name, p.png_name);
  }
  // A picture that would say nothing is not drawn; the terminal says so instead.
  for (const std::string& note : pictures.notes) {
    if (!quiet) std::cerr << "hfsim: note: " << note << "\n";
  }
}

bool IsCompletePng(const std::string& bytes) {
  constexpr std::string_view kSignature("\x89PNG\r\n\x1a\n", 8);
  // The last chunk: length 0, type IEND, and the CRC of "IEND".
  constexpr std::string_view kEnd("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  return bytes.size() >= kSignature.size() + kEnd.size() && bytes.starts_with(kSignature) &&
         bytes.ends_with(kEnd);
}

std::optional<std::string> DrawWithGnuplot(const std::string& directory, const std::string& script,
                                           const std::string& png, std::string& picture) {
  const std::filesystem::path path = std::filesystem::path(directory) / png;
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  // gnuplot's own messages go to stderr as they come; its exit code and the picture decide.
  const std::string command =
      fmt::format("cd {} && gnuplot {}", ShellQuoted(directory), ShellQuoted(script));
  if (std::system(command.c_str()) != 0) {
    return fmt::format("gnuplot failed to draw {} (is gnuplot installed? scripts/setup "
                       "installs it)", png);
  }
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  picture = bytes.str();
  if (!IsCompletePng(picture)) {
    return fmt::format("gnuplot did not write the whole picture {} (is the disk full?)", png);
  }
  return std::nullopt;
}

}  // namespace hfsim
