// libFuzzer target for the command line: the input is split into arguments at NUL bytes and
// newlines, and parsed by hfsim's own command-line definition (sim/cli/command-line.h). Nothing
// is run: the target checks that no argument list makes the parser or a value check crash,
// hang or throw anything but a usage error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cli/command-line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> arguments{"hfsim"};
  std::string current;
  for (size_t i = 0; i < size && arguments.size() < 64; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      arguments.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) arguments.push_back(current);
  std::vector<const char*> argv;
  for (const std::string& a : arguments) argv.push_back(a.c_str());
  CLI::App app("", "hfsim");
  hfsim::Commands commands;
  hfsim::DefineCommandLine(app, commands);
  // --help and usage errors print to stdout/stderr; the exit code is all that matters here.
  hfsim::ParseCommandLine(app, static_cast<int>(argv.size()), argv.data());
  return 0;
}
