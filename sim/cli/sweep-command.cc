#include "sim/cli/sweep-command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/gnuplot-drawing.h"
#include "sim/cli/option-checks.h"
#include "sim/cli/output-files.h"
#include "sim/report/number-text.h"
#include "sim/runs/progress-bar.h"
#include "sim/scenario/scenario-parser.h"
#include "sim/sweep/sweep-cluster.h"
#include "sim/sweep/sweep-plots.h"
#include "sim/sweep/sweep-summary.h"
#include "sim/sweep/sweep-table.h"
#include "sim/version.h"

namespace hfsim {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCsv = "sweep.csv";
constexpr const char* kPart = "sweep.csv.part";
constexpr const char* kManifest = "sweep.json";
constexpr const char* kLock = ".hfsim-sweep.lock";

// One sweep at a time per output directory: two would append to one sweep.csv.part. The lock
// is the kernel's (flock), so a sweep killed outright releases it. Held until the process ends.
std::optional<std::string> LockOutputDirectory(const std::filesystem::path& dir) {
  const std::string path = (dir / kLock).string();
  const int fd = LockFile(path, false);
  if (fd == -EWOULDBLOCK) {
    return fmt::format("{}: another hfsim sweep is writing to this directory; wait for it to "
                       "finish or give another --out", dir.string());
  }
  if (fd < 0) return fmt::format("{}: cannot lock it: {}", path, std::strerror(-fd));
  return std::nullopt;  // the descriptor stays open: the lock lasts as long as the process
}

std::atomic<bool> g_stop{false};
extern "C" void OnInterrupt(int) { g_stop.store(true); }

// The sweep's own files in DIR are read only when they are regular files: a FIFO planted at
// one of their names would block the read, a link lead outside DIR.
bool IsOwnFile(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::optional<std::string> ReadWhole(const fs::path& path) {
  if (!IsOwnFile(path)) return std::nullopt;
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Why the results' working file cannot be sweep.csv.part as it is: something other than a
/// regular file at that name (a link, which `fopen` used to follow and truncate what it pointed
/// at; a FIFO; a directory) is refused, never written through.
std::optional<std::string> PartRefusal(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return std::nullopt;
  const char* what = S_ISLNK(info.st_mode)    ? "a symbolic link"
                     : S_ISFIFO(info.st_mode) ? "a named pipe (FIFO)"
                     : S_ISDIR(info.st_mode)  ? "a directory"
                                              : "not a regular file";
  return fmt::format("{}: is {}, not the sweep's own file of results, which hfsim never writes "
                     "through; accepted: remove it, or give another --out", path.string(), what);
}

/// What identifies a sweep: a resumed sweep must have the same.
nlohmann::json Manifest(const Scenario& scenario, const SweepPlan& plan) {
  return {{"hfsim_version", kHfsimVersion},
          {"engine", ToString(plan.Engine())},
          {"points", plan.PointCount()},
          {"allocations", plan.AllocationCount()},
          {"combinations", plan.Combinations().size()},
          {"scenario", ScenarioToJson(scenario)}};
}

/// A JSON value for a message, cut when long.
std::string Shown(const nlohmann::json* value) {
  if (value == nullptr) return "absent";
  std::string text = value->dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

/// Where the earlier manifest differs from this one: the first differing key of the scenario
/// echo in the loader's form ("topology.dimensions[1].latency_ns"), with both values.
std::string WhatChanged(const nlohmann::json& earlier, const nlohmann::json& now) {
  if (!earlier.is_object()) return "the file is missing or is not a sweep's";
  for (const char* key : {"engine", "points"}) {
    if (!earlier.contains(key) || earlier[key] != now[key]) {
      return fmt::format("\"{}\" was {} and is now {}", key,
                         Shown(earlier.contains(key) ? &earlier[key] : nullptr), Shown(&now[key]));
    }
  }
  if (!earlier.contains("scenario") || !earlier["scenario"].is_object()) {
    return "the file holds no scenario";
  }
  const nlohmann::json& before = earlier["scenario"];
  const nlohmann::json& after = now["scenario"];
  const nlohmann::json patch = nlohmann::json::diff(before, after);
  if (patch.empty()) return "";
  // Walk the patch's JSON pointer through the earlier scenario to name arrays' entries [i].
  const std::string pointer = patch[0]["path"].get<std::string>();
  std::string path;
  const nlohmann::json* node = &before;
  for (size_t at = 1; at <= pointer.size();) {
    const size_t end = std::min(pointer.find('/', at), pointer.size());
    std::string token = pointer.substr(at, end - at);
    for (size_t i; (i = token.find("~1")) != std::string::npos;) token.replace(i, 2, "/");
    for (size_t i; (i = token.find("~0")) != std::string::npos;) token.replace(i, 2, "~");
    const bool array = node != nullptr && node->is_array();
    path += array ? "[" + token + "]" : (path.empty() ? "" : ".") + token;
    if (node != nullptr && array && token.find_first_not_of("0123456789") == std::string::npos &&
        std::stoull(token) < node->size()) {
      node = &(*node)[std::stoull(token)];
    } else if (node != nullptr && node->is_object() && node->contains(token)) {
      node = &(*node)[token];
    } else {
      node = nullptr;
    }
    at = end + 1;
  }
  const auto pointed = nlohmann::json::json_pointer(pointer);
  const nlohmann::json* now_value =
      pointer.ends_with("/-") || !after.contains(pointed) ? nullptr : &after.at(pointed);
  return fmt::format("the scenario's {} was {} and is now {}", path.empty() ? "(whole)" : path,
                     Shown(node), Shown(now_value));
}

/// Loads the finished rows of an earlier run of this sweep in `dir` into `table`. Returns the
/// bytes of sweep.csv.part that hold whole rows (0: start the file afresh).
Expected<uint64_t> LoadEarlierRun(const fs::path& dir, const nlohmann::json& manifest,
                                  SweepTable& table) {
  const auto part = ReadWhole(dir / kPart);
  const auto csv = part ? std::nullopt : ReadWhole(dir / kCsv);
  if (!part && !csv) return uint64_t{0};
  const auto stored = ReadWhole(dir / kManifest);
  nlohmann::json earlier;
  if (stored) earlier = nlohmann::json::parse(*stored, nullptr, false);
  // sweep.json holds numbers at 15 digits (JsonFileText): compare like with like.
  const nlohmann::json current = TidiedJson(manifest);
  for (const char* key : {"engine", "points", "scenario"}) {
    if (!earlier.is_object() || !earlier.contains(key) || earlier[key] != current[key]) {
      return UserError{(dir / kManifest).string(),
                       fmt::format("the earlier sweep in this directory differs from this one "
                                   "({}); --resume continues only the same scenario with the "
                                   "same engine; use another --out directory, or drop --resume "
                                   "to start over", WhatChanged(earlier, current))};
    }
  }
  SweepTable::Loaded loaded;
  const fs::path source = dir / (part ? kPart : kCsv);
  if (auto error = table.Load(part ? *part : *csv, source.string(), loaded)) {
    return UserError{"", *error};
  }
  return part ? loaded.valid_bytes : uint64_t{0};
}

uint32_t DefaultWorkers(const SweepCluster& cluster) {
  const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, cores / cluster.LocalSize());
}

}  // namespace

int SweepCommand::Execute() const {
  SweepCluster cluster;
  const bool root = cluster.Root();
  auto fail = [&](const std::string& message, int code) {
    if (root) std::cerr << "hfsim: error: " << message << "\n";
    return code;
  };
  auto document = LoadScenarioDocument(scenario_path);
  if (!document) return fail(document.Error().ToString(), 2);
  auto parsed = ParseScenario(document.Value());
  if (!parsed) return fail(scenario_path + ": " + parsed.Error().ToString(), 2);
  const Scenario scenario = std::move(parsed).Value();
  auto built = SweepPlan::Build(document.Value(), scenario);
  if (!built) return fail(scenario_path + ": " + built.Error().ToString(), 2);
  SweepPlan plan = std::move(built).Value();
  // --engine's value is one of the table's names (the command line checks it).
  if (!engine.empty()) plan.SetEngine(EngineNamed(engine).value());
  for (const auto& combination : plan.Combinations()) {
    if (auto refusal = EngineRefuses(plan.Engine(), combination.scenario)) {
      return fail(scenario_path + ": " + refusal->ToString(), 2);
    }
  }

  // Rank 0 finds what an earlier run finished and tells the others.
  SweepTable table(plan);
  const fs::path dir(out_dir);
  const nlohmann::json manifest = Manifest(scenario, plan);
  uint64_t keep_bytes = 0;
  int status = 0;
  std::string problem;
  if (root) {
    std::error_code error;
    if (auto refusal = CheckOutputDirectory(out_dir)) {
      problem = refusal->message;
      status = refusal->exit_code;
    } else if (fs::create_directories(dir, error); error) {
      problem = fmt::format("{}: cannot create the output directory: {}", out_dir, error.message());
      status = 1;
    } else if (auto locked = LockOutputDirectory(dir)) {
      problem = *locked;
      status = 1;
    } else if (auto refusal = PartRefusal(dir / kPart)) {
      problem = *refusal;
      status = 2;
    } else if (resume) {
      auto earlier = LoadEarlierRun(dir, manifest, table);
      if (!earlier) {
        problem = earlier.Error().ToString();
        status = 2;
      } else {
        keep_bytes = earlier.Value();
      }
    }
    if (status == 0) {
      OutputFiles files(out_dir);
      files.Add(kManifest, JsonFileText(manifest));
      if (auto e = files.Commit()) {
        problem = e->message;
        status = e->exit_code;
      }
    }
  }
  status = cluster.Broadcast(status);
  if (status != 0) return fail(problem, status);
  std::vector<uint8_t> done = table.DoneFlags();
  cluster.Broadcast(done);

  RunnerOptions options;
  options.workers = jobs > 0 ? jobs : DefaultWorkers(cluster);
  options.shard = {cluster.Rank(), cluster.Size()};
  // Ctrl-C, or a batch scheduler's SIGTERM: stop, keep what is finished, exit 130.
  const auto old_handler = std::signal(SIGINT, OnInterrupt);
  const auto old_term_handler = std::signal(SIGTERM, OnInterrupt);
  const auto started = std::chrono::steady_clock::now();

  if (!root) {
    // Results go to rank 0 in large messages a few times a second: each message costs rank 0
    // a wake-up, and small ones would make it spin.
    std::vector<PointResult> outbox;
    auto last_send = std::chrono::steady_clock::now();
    auto send = [&](bool now) {
      if (outbox.empty()) return;
      if (!now && outbox.size() < 65536 &&
          std::chrono::steady_clock::now() - last_send < std::chrono::milliseconds(200)) {
        return;
      }
      cluster.Send(outbox);
      outbox.clear();
      last_send = std::chrono::steady_clock::now();
    };
    auto error = RunSweepPoints(
        plan, done, options,
        [&](std::span<const PointResult> r) { outbox.insert(outbox.end(), r.begin(), r.end()); },
        [&] { send(false); }, g_stop);
    send(true);
    cluster.Finished();
    std::signal(SIGINT, old_handler);
    std::signal(SIGTERM, old_term_handler);
    return error ? 1 : 0;
  }

  // Rank 0 streams every result (its own and the other ranks') into the .part file.
  const fs::path part_path = dir / kPart;
  if (keep_bytes > 0) {
    fs::resize_file(part_path, keep_bytes);
  }
  // O_NOFOLLOW: a link put there since the check is not followed either.
  const int part_fd = ::open(part_path.c_str(),
                             O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                                 (keep_bytes > 0 ? O_APPEND : O_TRUNC),
                             0644);
  std::FILE* part = part_fd >= 0 ? ::fdopen(part_fd, keep_bytes > 0 ? "ab" : "wb") : nullptr;
  if (part == nullptr) {
    const int reason = errno;
    if (part_fd >= 0) ::close(part_fd);
    return fail(fmt::format("{}: cannot write the file: {}", part_path.string(),
                            std::strerror(reason)), 1);
  }
  std::string buffer;
  if (keep_bytes == 0) buffer = table.Csv();  // header, and the rows of a finished sweep.csv
  const uint64_t already = table.DoneCount();
  ProgressBar progress("sweep", plan.PointCount(), already, !quiet && isatty(STDERR_FILENO) != 0);
  bool write_failed = false;
  auto flush = [&] {
    if (buffer.empty()) return;
    write_failed = write_failed || std::fwrite(buffer.data(), 1, buffer.size(), part) != buffer.size() ||
                   std::fflush(part) != 0;
    buffer.clear();
  };
  const DeliverResults deliver = [&](std::span<const PointResult> results) {
    for (const PointResult& r : results) {
      if (table.Done(r.point)) continue;
      table.Record(r.point, r.time_ns);
      table.AppendRow(r.point, buffer);
    }
    if (buffer.size() > (1u << 20)) flush();
  };
  bool others_finished = !cluster.Distributed();
  const auto idle = [&] {
    if (!others_finished) others_finished = cluster.Receive(deliver);
    flush();
    progress.Update(table.DoneCount());
  };
  auto run_error = RunSweepPoints(plan, done, options, deliver, idle, g_stop);
  while (!others_finished) {
    idle();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  flush();
  std::fclose(part);
  progress.Finish();
  std::signal(SIGINT, old_handler);
  std::signal(SIGTERM, old_term_handler);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (write_failed) return fail(fmt::format("{}: cannot write the file", part_path.string()), 1);
  if (run_error) return fail(*run_error, 1);
  const uint64_t computed = table.DoneCount() - already;
  if (g_stop.load() || table.DoneCount() < plan.PointCount()) {
    std::cerr << fmt::format("hfsim: interrupted after {} of {} points; {} holds them; continue "
                             "with --resume\n", table.DoneCount(), plan.PointCount(),
                             part_path.string());
    return 130;
  }

  // Finished: the sorted CSV, the manifest with the summary, the pictures.
  const auto summary = SummariseSweep(plan, table);
  nlohmann::json final_manifest = manifest;
  final_manifest["summary"] = SweepSummaryJson(plan, table, summary);
  OutputFiles files(out_dir);
  files.Add(kCsv, table.Csv());
  files.Add(kManifest, JsonFileText(final_manifest));
  if (!no_plot) {
    const std::string title = fmt::format("{}: {} points ({} engine)", scenario.name,
                                          plan.PointCount(), ToString(plan.Engine()));
    AddPictures(files, SweepPlots(plan, table, summary, title), quiet);
  }
  if (auto error = files.Commit()) return fail(error->message, error->exit_code);
  std::error_code ignored;
  fs::remove(part_path, ignored);
  if (!quiet) {
    std::cout << fmt::format("{}: {} points, {} engine", scenario.name, plan.PointCount(),
                             ToString(plan.Engine()));
    if (already > 0) std::cout << fmt::format(" ({} from the earlier run)", already);
    std::cout << "\n" << SweepSummaryText(plan, table, summary);
    // Wall time goes to the terminal only, never into a file: the files stay reproducible.
    // Whole points a second (scripts/bench-sweep reads them), or seconds a point below one.
    const double rate = static_cast<double>(computed) / std::max(seconds, 1e-9);
    std::cout << fmt::format("  {:<18} {:.2f} s, {} on {} {}{}\n", "evaluated in", seconds,
                             rate >= 1 ? fmt::format("{:.0f} points/s", rate)
                                       : RateText(rate, "point"),
                             options.workers,
                             EngineOf(plan.Engine()).one_run_per_process ? "processes" : "threads",
                             cluster.Distributed() ? fmt::format(" x {} ranks", cluster.Size())
                                                   : std::string());
    std::cout << fmt::format("\nwrote {}\n", files.Describe());
  }
  return 0;
}

}  // namespace hfsim
