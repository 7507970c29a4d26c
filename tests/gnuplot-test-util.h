// Reading and running hfsim's gnuplot scripts in tests: the rows of an inline data block, the
// ticks of an axis, and what gnuplot prints when it draws the script (warnings, errors).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace hfsim::test {

/// The rows of `$name << EOD ... EOD` in `script`, split into words (a double-quoted label is one
/// word, without its quotes); empty when the block is missing.
inline std::vector<std::vector<std::string>> DataRows(const std::string& script,
                                                      const std::string& name) {
  std::vector<std::vector<std::string>> rows;
  const std::string start = "$" + name + " << EOD\n";
  size_t at = script.find(start);
  if (at == std::string::npos) return rows;
  at += start.size();
  for (size_t end = script.find('\n', at); end != std::string::npos;
       at = end + 1, end = script.find('\n', at)) {
    const std::string line = script.substr(at, end - at);
    if (line == "EOD") break;
    std::vector<std::string> words;
    for (size_t i = 0; i < line.size();) {
      if (line[i] == ' ') {
        ++i;
      } else if (line[i] == '"') {
        const size_t close = line.find('"', i + 1);
        words.push_back(line.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        const size_t space = std::min(line.find(' ', i), line.size());
        words.push_back(line.substr(i, space - i));
        i = space;
      }
    }
    rows.push_back(words);
  }
  return rows;
}

/// The numbers of column `column` of a data block.
inline std::vector<double> Column(const std::vector<std::vector<std::string>>& rows,
                                  size_t column) {
  std::vector<double> values;
  for (const auto& row : rows) values.push_back(std::stod(row.at(column)));
  return values;
}

/// The tick positions of `set <axis>tics ('label' position, ...)` in `script` (the last such
/// line: later settings win); empty when there is none.
inline std::vector<double> TickPositions(const std::string& script, const std::string& axis) {
  const std::string key = "set " + axis + "tics (";
  const size_t at = script.rfind(key);
  std::vector<double> positions;
  if (at == std::string::npos) return positions;
  std::istringstream list(script.substr(at + key.size(),
                                        script.find(")\n", at) - at - key.size()));
  for (std::string entry; std::getline(list, entry, ',');) {
    positions.push_back(std::stod(entry.substr(entry.rfind(' ') + 1)));
  }
  return positions;
}

/// Draws `script` with gnuplot in a fresh directory, as the command line does, and returns what
/// gnuplot printed (empty: drawn cleanly), or a sentence when the picture `png` is missing.
inline std::string GnuplotMessages(const std::string& script, const std::string& png) {
  static int serial = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hfsim-plot-test-" + std::to_string(getpid()) + "-" + std::to_string(++serial));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "script.gp") << script;
  const int status =
      std::system(("cd '" + dir.string() + "' && gnuplot script.gp 2> messages.txt").c_str());
  std::stringstream messages;
  messages << std::ifstream(dir / "messages.txt").rdbuf();
  std::string out = messages.str();
  if (status != 0 || !std::filesystem::exists(dir / png)) out += "no picture " + png;
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace hfsim::test
