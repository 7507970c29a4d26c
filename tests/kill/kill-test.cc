// The kill test: every command that writes an output directory (run, sweep, optimize,
// convert --to chakra, p4) is killed outright (SIGKILL) at many points of its work over a
// directory that holds the complete set of an earlier command, and two writers run into one
// directory at once; after each, the directory must hold, by its manifest, the complete old set
// or the complete new set and nothing of the other beside it, never a mix. Two states in between
// are named and followed to their end:
//   - a sweep killed while it runs holds the new sweep.json alone (and sweep.csv.part): its
//     --resume must finish to the uninterrupted sweep's files;
//   - a kill between two renames of a publication leaves its journal: the new set must be whole
//     between the journal's staging directory and the output directory, and the next command
//     writing there must leave the new set.
// The kill points spread evenly over the command's own duration (measured first), half of them
// over its last part, where the files are published, jittered by a fixed seed. HFSIM_KILL_POINTS sets how many per command (ctest: 4); tests/kill/kill-test
// runs the long mode.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/kill/output-set-check.h"
#include "tests/scratch-directory.h"

namespace {

namespace fs = std::filesystem;
using hfsim::test::FileSet;
using Clock = std::chrono::steady_clock;
using Args = std::vector<std::string>;

const std::string kConfigs = HFSIM_SOURCE_DIR "/configs/";

int KillPoints() {
  const char* text = std::getenv("HFSIM_KILL_POINTS");
  const int points = text != nullptr ? std::atoi(text) : 4;
  return points > 0 ? points : 4;
}

// `args` with "{OUT}" replaced by `out`.
Args With(const Args& args, const fs::path& out) {
  Args result = args;
  for (std::string& arg : result) {
    if (arg == "{OUT}") arg = out.string();
  }
  return result;
}

// Starts hfsim with `args` (its output to /dev/null's descriptor: a dup, no path is touched).
pid_t Start(const Args& args) {
  const pid_t child = fork();
  if (child != 0) return child;
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, 1);
  ::dup2(null, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(HFSIM_BINARY));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(HFSIM_BINARY, argv.data());
  _exit(127);
}

// The exit code, or 128 + the signal.
int Wait(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunToEnd(const Args& args) { return Wait(Start(args)); }

void Copy(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

// A sweep's first publication: its sweep.json without the summary, for the sweep `whole`.
bool IsSweepStart(const FileSet& set, const FileSet& whole) {
  if (set.size() != 1 || !set.count("sweep.json") || !whole.count("sweep.json")) return false;
  const auto started = nlohmann::json::parse(set.at("sweep.json"), nullptr, false);
  const auto finished = nlohmann::json::parse(whole.at("sweep.json"), nullptr, false);
  return started.is_object() && !started.contains("summary") && started.contains("scenario") &&
         started["scenario"] == finished["scenario"];
}

enum class State { kOld, kNew, kSweepStarted, kCut, kMix };

const char* Name(State state) {
  switch (state) {
    case State::kOld:
      return "old set";
    case State::kNew:
      return "new set";
    case State::kSweepStarted:
      return "new sweep started (resumable)";
    case State::kCut:
      return "publication cut short (journal)";
    case State::kMix:
      break;
  }
  return "MIX";
}

// What `dir` holds against the complete sets `old_set` and `new_set`; `why` says what is wrong
// with a mix.
State Classify(const fs::path& dir, const FileSet& old_set, const FileSet& new_set,
               std::string& why) {
  if (const auto journalled = hfsim::test::JournalledSet(dir)) {
    if (*journalled == new_set || IsSweepStart(*journalled, new_set) || *journalled == old_set) {
      return State::kCut;
    }
    why = "the journal's set is neither set whole";
    return State::kMix;
  }
  const auto vouched = hfsim::test::VouchedSet(dir);
  if (!vouched) {
    why = "no manifest, or one that disagrees with the files";
    return State::kMix;
  }
  const FileSet present = hfsim::test::FilesIn(dir);
  if (present != *vouched) {
    why = "files beside the manifest's set:";
    for (const auto& [name, bytes] : present) {
      if (!vouched->count(name)) why += " " + name;
    }
    return State::kMix;
  }
  if (present == old_set) return State::kOld;
  if (present == new_set) return State::kNew;
  if (IsSweepStart(present, new_set)) return State::kSweepStarted;
  why = "a whole set, but neither the old nor the new one:";
  for (const auto& [name, bytes] : present) why += " " + name;
  return State::kMix;
}

struct Case {
  std::string name;
  Args old_args;      ///< writes the earlier set into {OUT}
  Args new_args;      ///< the command killed
  Args resume_args;   ///< for a sweep: finishes the killed one
};

class KillTest : public hfsim::test::ScratchDirectoryTest {
 protected:
  KillTest() : ScratchDirectoryTest("hfsim-kill-") {}

  fs::path Write(const std::string& name, const nlohmann::json& document) {
    std::ofstream(m_dir / name) << document.dump(2);
    return m_dir / name;
  }

  // The complete set `args` writes (into a scratch directory), and how long it took.
  FileSet Reference(const Args& args, const std::string& name, double* seconds = nullptr) {
    const fs::path out = m_dir / ("reference-" + name);
    fs::remove_all(out);
    const auto start = Clock::now();
    EXPECT_EQ(RunToEnd(With(args, out)), 0) << name;
    if (seconds != nullptr) *seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const auto set = hfsim::test::VouchedSet(out);
    EXPECT_TRUE(set.has_value()) << name;
    return set.value_or(FileSet{});
  }

  // Kills `c.new_args` at KillPoints() points over a directory holding `c.old_args`' set.
  void KillAtManyPoints(const Case& c) {
    double seconds = 0.0;
    const FileSet old_set = Reference(c.old_args, c.name + "-old");
    const FileSet new_set = Reference(c.new_args, c.name + "-new", &seconds);
    ASSERT_FALSE(old_set.empty());
    ASSERT_FALSE(new_set.empty());
    ASSERT_NE(old_set, new_set);
    const fs::path old_dir = m_dir / ("reference-" + c.name + "-old");
    const fs::path out = m_dir / (c.name + "-out");
    std::mt19937 random(7);
    std::uniform_real_distribution<double> jitter(0.85, 1.15);
    const int points = KillPoints();
    std::map<State, int> seen;
    // Half the points spread over the whole run, half over its end (85 % to 115 % of its
    // duration), where the publication is: its renames take microseconds.
    const int spread = (points + 1) / 2;
    for (int k = 0; k < points; ++k) {
      Copy(old_dir, out);
      const double at =
          seconds * jitter(random) *
          (k < spread ? (k + 0.5) / spread : 0.85 + 0.3 * (k - spread + 0.5) / (points - spread));
      const pid_t child = Start(With(c.new_args, out));
      std::this_thread::sleep_for(std::chrono::duration<double>(at));
      ::kill(child, SIGKILL);
      const int code = Wait(child);
      std::string why;
      const State state = Classify(out, old_set, new_set, why);
      ++seen[state];
      ASSERT_NE(state, State::kMix) << c.name << ", killed after " << at << " s: " << why;
      if (code == 0) {
        EXPECT_EQ(state, State::kNew) << c.name << ": finished, yet " << Name(state);
      }
      if (state == State::kSweepStarted) {
        ASSERT_FALSE(c.resume_args.empty()) << c.name;
        ASSERT_EQ(RunToEnd(With(c.resume_args, out)), 0) << c.name << ": --resume";
        EXPECT_EQ(Classify(out, old_set, new_set, why), State::kNew)
            << c.name << ": --resume after a kill at " << at << " s: " << why;
      }
      if (state == State::kCut) {
        ASSERT_EQ(RunToEnd(With(c.new_args, out)), 0) << c.name;
        EXPECT_EQ(Classify(out, old_set, new_set, why), State::kNew)
            << c.name << ": the command after a cut publication: " << why;
      }
    }
    std::string summary;
    for (const auto& [state, count] : seen) {
      summary += std::string(summary.empty() ? "" : ", ") + Name(state) + " " +
                 std::to_string(count);
    }
    std::cout << "[ kill test ] " << c.name << ": " << points << " kills over " << seconds
              << " s: " << summary << "\n";
  }
};

// Collectives of `npus` NPUs on one Switch: `convert --to chakra` writes one file per rank.
nlohmann::json AllReduce(int npus) {
  return {{"name", "all-reduce-" + std::to_string(npus)},
          {"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", npus}, {"bandwidth_GBps", 100}, {"latency_ns", 500}}}}}},
          {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}}}}}};
}

TEST_F(KillTest, Run) {
  KillAtManyPoints({"run",
                    {"run", kConfigs + "quickstart.json", "-q", "-f", "all", "-o", "{OUT}"},
                    {"run", kConfigs + "allreduce-4d-64MiB.json", "-q", "-o", "{OUT}"},
                    {}});
}

TEST_F(KillTest, Sweep) {
  // The old sweep has pictures, the new one none: a picture left beside the new sweep.json
  // is a mix.
  nlohmann::json small = {
      {"name", "kill-small"},
      {"topology",
       {{"dimensions",
         {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 20}},
          {{"kind", "Switch"}, {"size", 8}, {"bandwidth_GBps", 50}, {"latency_ns", 500}}}}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_MiB", 1}}}}},
      {"cost", {{"dimensions", {{{"class", "node"}}, {{"class", "pod"}}}}}},
      {"sweep",
       {{"bandwidth_GBps",
         {{"grid", {{{"from", 10}, {"to", 100}, {"step", 10}}, {{"from", 5}, {"to", 50}, {"step", 5}}}}}}}}};
  nlohmann::json large = nlohmann::json::parse(hfsim::test::Bytes(kConfigs + "sweep-allreduce-4d.json"));
  large["sweep"]["bandwidth_GBps"]["split"]["step_GBps"] = 8;  // 71,980 points
  const std::string old_scenario = Write("small.json", small).string();
  const std::string new_scenario = Write("large.json", large).string();
  KillAtManyPoints({"sweep",
                    {"sweep", old_scenario, "-q", "-o", "{OUT}"},
                    {"sweep", new_scenario, "-q", "--no-plot", "-j", "2", "-o", "{OUT}"},
                    {"sweep", new_scenario, "-q", "--no-plot", "-j", "2", "--resume", "-o", "{OUT}"}});
}

TEST_F(KillTest, Optimize) {
  KillAtManyPoints({"optimize",
                    {"optimize", kConfigs + "optimize-verify-2d.json", "-q", "-o", "{OUT}"},
                    {"optimize", kConfigs + "libra-gpt3-4d-optimize.json", "-q", "-o", "{OUT}"},
                    {}});
}

TEST_F(KillTest, ConvertToChakra) {
  // 64 ranks over 8: a kill must not leave some of the 64 beside the 8's groups.
  const std::string eight = Write("eight.json", AllReduce(8)).string();
  KillAtManyPoints({"convert --to chakra",
                    {"convert", eight, "--to", "chakra", "-o", "{OUT}"},
                    {"convert", kConfigs + "gpt3-pipeline-1f1b-64.json", "--to", "chakra", "-o",
                     "{OUT}"},
                    {}});
}

TEST_F(KillTest, P4) {
  KillAtManyPoints({"p4",
                    {"p4", kConfigs + "p4-switchml-tofino1.json", "-o", "{OUT}"},
                    {"p4", kConfigs + "p4-thc-tofino1.json", "-o", "{OUT}"},
                    {}});
}

TEST_F(KillTest, TwoWritersAtOnce) {
  // Two commands into one directory at once, one of them killed at a point of its work (or
  // none, every third round): the directory holds one of the two sets whole.
  const std::string eight = Write("eight.json", AllReduce(8)).string();
  const std::string sixty_four = Write("sixty-four.json", AllReduce(64)).string();
  const std::vector<std::pair<Args, Args>> pairs = {
      {{"run", kConfigs + "quickstart.json", "-q", "-f", "all", "-o", "{OUT}"},
       {"run", kConfigs + "allreduce-4d-64MiB.json", "-q", "-o", "{OUT}"}},
      {{"convert", sixty_four, "--to", "chakra", "-o", "{OUT}"},
       {"convert", eight, "--to", "chakra", "-o", "{OUT}"}},
      {{"optimize", kConfigs + "optimize-verify-2d.json", "-q", "-o", "{OUT}"},
       {"p4", kConfigs + "p4-switchml-tofino1.json", "-o", "{OUT}"}}};
  std::mt19937 random(11);
  const int rounds = std::max(3, KillPoints());
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto& [first, second] = pairs[p];
    double seconds = 0.0;
    const FileSet first_set = Reference(first, "first-" + std::to_string(p), &seconds);
    const FileSet second_set = Reference(second, "second-" + std::to_string(p));
    const fs::path out = m_dir / ("together-" + std::to_string(p));
    for (int round = 0; round < rounds; ++round) {
      fs::remove_all(out);
      const pid_t a = Start(With(first, out));
      const pid_t b = Start(With(second, out));
      const bool kill_one = round % 3 != 2;
      if (kill_one) {
        std::this_thread::sleep_for(std::chrono::duration<double>(
            seconds * std::uniform_real_distribution<double>(0.05, 1.1)(random)));
        ::kill(round % 2 == 0 ? a : b, SIGKILL);
      }
      const int code_a = Wait(a);
      const int code_b = Wait(b);
      if (!kill_one) {
        EXPECT_EQ(code_a, 0);
        EXPECT_EQ(code_b, 0);
      }
      std::string why;
      State state = Classify(out, first_set, second_set, why);
      ASSERT_NE(state, State::kMix) << "pair " << p << ", round " << round << ": " << why;
      if (state == State::kCut) {
        ASSERT_EQ(RunToEnd(With(second, out)), 0);
        state = Classify(out, first_set, second_set, why);
        EXPECT_EQ(state, State::kNew) << why;
      }
      EXPECT_TRUE(state == State::kOld || state == State::kNew) << Name(state);
    }
  }
}

}  // namespace
