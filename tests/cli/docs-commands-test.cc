// Every hfsim command that README.md and docs/ show, parsed by hfsim's own command line from the
// repository root: a documented command that the parser refuses (a missing -o, a renamed
// option, a config that moved) fails here. `hfsim p4 configs/p4-thc-tofino1.json`, shown in
// docs/reproductions.md without its required -o, is what this test was written for. Commands
// with placeholders (SCENARIO.json, DIR, N.yml, <…>) are shapes, not commands, and are skipped;
// scenario files the commands name are loaded in full.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "sim/cli/command-line.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

struct Documented {
  std::string file;
  std::string command;  ///< the arguments after "hfsim"
};

// "hfsim …" after an optional prompt, as the docs write it: scripts/hfsim, build/sim/hfsim or
// hfsim; the command ends at a shell comment.
std::optional<std::string> HfsimArguments(std::string text) {
  static const std::regex kCommand(R"(^\s*(?:\$\s+)?(?:scripts/|build/sim/)?hfsim\s+(.*)$)");
  std::smatch m;
  if (!std::regex_match(text, m, kCommand)) return std::nullopt;
  std::string arguments = m[1].str();
  const size_t comment = arguments.find(" #");
  if (comment != std::string::npos) arguments.resize(comment);
  while (!arguments.empty() && std::isspace(static_cast<unsigned char>(arguments.back()))) {
    arguments.pop_back();
  }
  return arguments;
}

std::vector<Documented> DocumentedCommands() {
  std::vector<fs::path> files = {fs::path(HFSIM_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(HFSIM_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Documented> commands;
  for (const fs::path& path : files) {
    std::ifstream in(path);
    std::string line;
    bool fenced = false;
    std::string continued;
    while (std::getline(in, line)) {
      if (line.rfind("```", 0) == 0) {
        fenced = !fenced;
        continue;
      }
      std::vector<std::string> candidates;
      if (fenced) {
        // A trailing backslash continues the command on the next line.
        if (!line.empty() && line.back() == '\\') {
          continued += line.substr(0, line.size() - 1) + " ";
          continue;
        }
        candidates.push_back(continued + line);
        continued.clear();
      } else {
        static const std::regex kInline("`([^`]*hfsim [^`]*)`");
        for (auto it = std::sregex_iterator(line.begin(), line.end(), kInline);
             it != std::sregex_iterator(); ++it) {
          candidates.push_back((*it)[1].str());
        }
      }
      for (const std::string& candidate : candidates) {
        if (auto arguments = HfsimArguments(candidate)) {
          commands.push_back({path.filename().string(), *arguments});
        }
      }
    }
  }
  return commands;
}

// Placeholders and shell syntax: a shape of a command, not one to parse.
bool IsShape(const std::string& arguments) {
  static const std::regex kPlaceholder(
      R"((^|[\s=/])([A-Z][A-Z0-9_]*)(\.(json|yml|yaml|txt|csv))?($|[\s,]))");
  return arguments.find_first_of("<>|$&;[]…") != std::string::npos ||
         arguments.find("...") != std::string::npos || arguments.find('*') != std::string::npos ||
         std::regex_search(arguments, kPlaceholder);
}

// Whether every input file the words name exists (what -o names is written, not read). A file
// outside configs/ may be one an earlier command of the same example writes; a missing file
// under configs/ is a documented command that broke, and the caller fails on it.
bool ReadsOnlyFilesThatExist(const std::vector<std::string>& words) {
  static const std::regex kFile(R"(.*\.(json|yml|yaml|txt)$)");
  for (size_t i = 0; i < words.size(); ++i) {
    const bool output = i > 0 && (words[i - 1] == "-o" || words[i - 1] == "--out");
    if (!output && std::regex_match(words[i], kFile) && !fs::exists(words[i]) &&
        words[i].rfind("configs/", 0) != 0) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> Split(const std::string& arguments) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (char c : arguments) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(word), word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// A documented command to check: where it is shown, and its words ("hfsim" first).
struct Checkable {
  std::string file;
  std::vector<std::string> words;
  std::string Where() const {
    std::string text = file + ":";
    for (const std::string& w : words) text += " " + w;
    return text;
  }
};

// The documented commands that are commands: not in docs/bad-input.md (whose commands must
// fail), not shapes, not a bare "`hfsim p4`" in a sentence, and not reading a file an earlier
// step of the same example writes (`hfsim convert … -o echo.json`, then `hfsim run echo.json`).
std::vector<Checkable> CheckableCommands() {
  std::vector<Checkable> out;
  for (const Documented& documented : DocumentedCommands()) {
    if (documented.file == "bad-input.md" || IsShape(documented.command)) continue;
    std::vector<std::string> words = Split(documented.command);
    if (words.size() < 2 || !ReadsOnlyFilesThatExist(words)) continue;
    words.insert(words.begin(), "hfsim");
    out.push_back({documented.file, std::move(words)});
  }
  return out;
}

bool IsConfigScenario(const std::string& word) {
  return word.rfind("configs/", 0) == 0 && fs::path(word).extension() == ".json";
}

TEST(DocsCommands, EveryDocumentedCommandParsesAndItsScenarioLoads) {
  ASSERT_EQ(chdir(HFSIM_SOURCE_DIR), 0);  // the docs' paths are the repository's
  size_t parsed = 0;
  for (const Checkable& command : CheckableCommands()) {
    std::vector<const char*> argv;
    for (const std::string& w : command.words) argv.push_back(w.c_str());
    CLI::App app("", "hfsim");
    Commands commands;
    DefineCommandLine(app, commands);
    testing::internal::CaptureStdout();
    const std::optional<int> code =
        ParseCommandLine(app, static_cast<int>(argv.size()), argv.data());
    testing::internal::GetCapturedStdout();  // --help text
    EXPECT_TRUE(!code || *code == 0) << command.Where();
    ++parsed;
    // The scenario a run, optimize, sweep or p4 command names loads in full (ASTRA-sim's
    // workload files are scenarios without a fabric).
    const bool astra = std::find_if(command.words.begin(), command.words.end(), [](auto& w) {
                         return w.rfind("--astra", 0) == 0;
                       }) != command.words.end();
    for (const std::string& w : command.words) {
      if (!IsConfigScenario(w) || astra) continue;
      const auto scenario = LoadScenarioFile(w);
      EXPECT_TRUE(scenario) << command.Where() << ": "
                            << (scenario ? std::string() : scenario.Error().ToString());
    }
  }
  // README's examples alone are ten; the docs hold more.
  EXPECT_GE(parsed, 30u);
}

// Whether the documented command is quick to run here: the analytical engine (no ns-3 run, no
// --verify), and not a sweep (seconds on every core).
bool QuickToRun(const std::vector<std::string>& words) {
  static const std::vector<std::string> kQuick = {"run", "topology", "p4", "convert", "optimize"};
  if (std::find(kQuick.begin(), kQuick.end(), words[1]) == kQuick.end()) return false;
  bool input = false;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--verify") return false;
    if ((words[i] == "--engine" || words[i] == "-e") && i + 1 < words.size() &&
        words[i + 1] == "packet") {
      return false;
    }
    input = input || fs::path(words[i]).extension() == ".json" ||
            words[i].rfind("--astra", 0) == 0 || words[i].rfind("--libra", 0) == 0;
  }
  // `hfsim run --engine analytical` in a sentence names an option; it is no command.
  if (!input || words[1] != "run") return input;
  for (const std::string& w : words) {
    if (!IsConfigScenario(w)) continue;
    const auto scenario = LoadScenarioFile(w);
    return scenario && scenario.Value().engine == EngineKind::kAnalytical;
  }
  return true;
}

TEST(DocsCommands, TheQuickOnesRunAndExitZero) {
  ASSERT_EQ(chdir(HFSIM_SOURCE_DIR), 0);
  const fs::path out =
      fs::temp_directory_path() / ("hfsim-docs-commands-" + std::to_string(getpid()));
  size_t ran = 0;
  for (const Checkable& documented : CheckableCommands()) {
    const std::vector<std::string>& words = documented.words;
    if (!QuickToRun(words)) continue;
    // What the docs write under out/ goes to a scratch directory instead.
    fs::remove_all(out);
    fs::create_directories(out);
    std::string command = HFSIM_BINARY;
    for (size_t i = 1; i < words.size(); ++i) {
      const bool output = words[i - 1] == "-o" || words[i - 1] == "--out";
      command += " '" + (output ? (out / fs::path(words[i]).filename()).string() : words[i]) + "'";
    }
    const int status = std::system((command + " > /dev/null 2>&1").c_str());
    EXPECT_EQ(status, 0) << documented.file << ": " << command;
    ++ran;
  }
  fs::remove_all(out);
  EXPECT_GE(ran, 15u);
}

}  // namespace
}  // namespace hfsim
