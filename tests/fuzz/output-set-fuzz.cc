// libFuzzer target: OutputFiles (sim/cli/output-files.h), the publisher of every output
// directory, over directories as a user, a kill or an attacker may have left them: an earlier
// manifest whose names may climb out of the directory ("../sentinel", a subdirectory that is a
// link to the parent) with the right checksums, files the user added or changed, a journal of a
// publication cut short (its names as hostile as the manifest's), a staging directory of a dead
// writer. The input is lines: "o NAME" an earlier manifest entry (its file made with bytes NAME
// when NAME stays inside), "c NAME" the same but the file changed since, "u NAME" a user's file,
// "n NAME" a file of the new set, "j NAME" / "r NAME" a journal's file to publish / remove;
// the first byte's bits add a journal, a dead writer's stage, the link to the parent.
// Beyond "no crash": the new set is published whole (the manifest vouches for exactly its
// files, with their bytes), every earlier-manifest file that still had its listed bytes and is
// not in the new set is gone, every user's or changed file is as it was, nothing outside the
// directory is touched, and no journal or stage is left.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/output-files.h"

namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void Check(bool condition, const std::string& what) {
  if (condition) return;
  std::fprintf(stderr, "output-set invariant broken: %s\n", what.c_str());
  std::abort();
}

// A name the test can make a file under: letters, digits, '-', '_', '.', and '/' between parts,
// at most three parts, never ".", ".." or hfsim's ".hfsim-" prefix.
std::string Tame(const std::string& raw) {
  std::string name;
  int parts = 1;
  for (const char c : raw) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
      name += c;
    } else if (c == '.' && !name.empty() && name.back() != '/') {
      name += c;  // never a part's first character: no ".", ".." or ".hfsim-" part
    } else if (c == '/' && !name.empty() && name.back() != '/' && parts < 3) {
      name += c;
      ++parts;
    }
  }
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (name.empty()) name = "f";
  return name.substr(0, 40);
}

nlohmann::json Entry(const std::string& name, const std::string& bytes) {
  return {{"name", name}, {"bytes", bytes.size()}, {"fnv1a64", fmt::format("{:016x}", hfsim::Fnv1a64(bytes))}};
}

bool Exists(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const fs::path root = fs::temp_directory_path() / ("hfsim-fuzz-output-set-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path dir = root / "out";
  fs::create_directories(dir);
  // Outside the directory: what no manifest or journal may make hfsim touch.
  const std::string sentinel = "sentinel\n";
  std::ofstream(root / "sentinel", std::ios::binary) << sentinel;
  if (flags & 4) fs::create_directory_symlink("..", dir / "up");

  nlohmann::json manifest = {{"files", nlohmann::json::array({Entry("../sentinel", sentinel),
                                                              Entry("up/sentinel", sentinel)})}};
  nlohmann::json journal = {{"stage", ".hfsim-stage-AbC123"},
                            {"publish", nlohmann::json::array({"../sentinel"})},
                            {"remove", nlohmann::json::array({Entry("../sentinel", sentinel),
                                                              Entry("up/sentinel", sentinel)})}};
  // A file the case made is named once; its bytes say what it is: an earlier set's file holds
  // its own name (as its manifest entry lists it), a changed or a user's file holds a space,
  // which no listed bytes (a name without one) can equal.
  std::map<std::string, std::string> kept;       // must be as they were after the commit
  std::set<std::string> gone;                    // earlier files that must be removed
  std::map<std::string, std::string> published;  // the new set
  auto make = [&](const std::string& name, const std::string& bytes) {
    if (published.count(name) || kept.count(name) || gone.count(name)) return false;
    if ((flags & 4) && name.starts_with("up")) return false;
    std::error_code error;
    fs::create_directories((dir / name).parent_path(), error);
    if (Exists(dir / name)) return false;
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return Exists(dir / name) && !fs::is_directory(dir / name);
  };
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 3 || line[1] != ' ') continue;
    const std::string raw = line.substr(2, 200);
    const std::string name = Tame(raw);
    switch (line[0]) {
      case 'o':
        if (raw != name) {
          manifest["files"].push_back(Entry(raw, raw));  // a hostile name, nothing made
        } else if (make(name, name)) {
          manifest["files"].push_back(Entry(raw, raw));
          gone.insert(name);
        }
        break;
      case 'c':
        if (make(name, "changed " + name)) {
          manifest["files"].push_back(Entry(name, name));
          kept[name] = "changed " + name;
        }
        break;
      case 'u':
        if (make(name, "user " + name)) kept[name] = "user " + name;
        break;
      case 'n':
        if (!((flags & 4) && name.starts_with("up"))) published[name] = raw;
        break;
      case 'j':
        journal["publish"].push_back(raw);
        break;
      case 'r':
        journal["remove"].push_back(Entry(raw, raw));
        break;
      default:
        break;
    }
  }
  if (published.empty()) published["report.json"] = "{}";
  // A name of the new set replaces an earlier file of that name: it is neither kept nor gone.
  // And a new file cannot sit where an earlier one is a folder, or under an earlier file.
  for (const auto& [name, bytes] : published) {
    for (fs::path at = fs::path(name); !at.empty(); at = at.parent_path()) {
      kept.erase(at.string());
      gone.erase(at.string());
    }
    for (auto it = kept.begin(); it != kept.end();) {
      it = it->first.starts_with(name + "/") ? kept.erase(it) : std::next(it);
    }
    for (auto it = gone.begin(); it != gone.end();) {
      it = it->starts_with(name + "/") ? gone.erase(it) : std::next(it);
    }
  }
  // Hostile names may be any bytes: what is not UTF-8 is written as U+FFFD, as JSON must be.
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
  std::ofstream(dir / ".hfsim-files.json", std::ios::binary) << manifest.dump(2, ' ', false, kReplace);
  if (flags & 1) {
    fs::create_directories(dir / ".hfsim-stage-AbC123");
    std::ofstream(dir / ".hfsim-publish.json", std::ios::binary) << journal.dump(-1, ' ', false, kReplace);
  }
  if (flags & 2) fs::create_directories(dir / ".hfsim-stage-dead01" / "sub");

  // The writer keeps its (emptied) stage, locked, until it is destroyed: the checks come after.
  std::optional<hfsim::WriteFailure> failure;
  {
    hfsim::OutputFiles files(dir.string());
    for (const auto& [name, bytes] : published) files.Add(name, bytes);
    failure = files.Commit();
  }
  // A new file under a path an earlier file or the user's folder holds cannot be published: a
  // failure (exit 1), with nothing outside touched. Otherwise the set is whole.
  Check(Read(root / "sentinel") == sentinel, "nothing outside the directory is touched");
  if (failure) {
    Check(failure->exit_code == 1, "only the machine fails a commit here: " + failure->message);
    return 0;
  }
  const nlohmann::json written = nlohmann::json::parse(Read(dir / ".hfsim-files.json"), nullptr, false);
  Check(written.is_object() && written["files"].size() == published.size(), "the manifest lists the new set");
  for (const nlohmann::json& entry : written["files"]) {
    const std::string name = entry["name"].get<std::string>();
    Check(published.count(name) && Read(dir / name) == published[name], "a published file has its bytes");
  }
  for (const std::string& name : gone) {
    Check(!Exists(dir / name), "an earlier set's file that the new one lacks is removed: " + name);
  }
  for (const auto& [name, bytes] : kept) {
    Check(Read(dir / name) == bytes, "a user's or changed file stays: " + name);
  }
  Check(!Exists(dir / ".hfsim-publish.json"), "no journal is left");
  for (const auto& entry : fs::directory_iterator(dir)) {
    Check(!entry.path().filename().string().starts_with(".hfsim-stage-"), "no stage is left");
  }
  return 0;
}
