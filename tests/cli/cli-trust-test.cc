// End-to-end: what an adversarial user can do to the hfsim binary, and what it must do then —
// refuse bad values with exit 2, fail with exit 1 naming the failure when the machine fails it
// (full disk, lost standard output), and never leave a mix of old and new output files.
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/scratch-directory.h"
#include "tests/address-sanitizer.h"

namespace {

namespace fs = std::filesystem;

using Result = hfsim::test::CliResult;
using hfsim::test::Slurp;

Result Hfsim(const std::string& arguments) {
  return hfsim::test::RunHfsim(HFSIM_BINARY, arguments);
}

const std::string kQuickstart = HFSIM_SOURCE_DIR "/configs/quickstart.json";
const std::string kAllReduce = HFSIM_SOURCE_DIR "/configs/allreduce-4d-64MiB.json";

class CliTrust : public hfsim::test::ScratchDirectoryTest {
 protected:
  CliTrust() : ScratchDirectoryTest("hfsim-trust-") {}
  void TearDown() override {
    if (m_mounted) umount2(m_mounted->c_str(), MNT_DETACH);
    ScratchDirectoryTest::TearDown();
  }
  // A tmpfs of `size` mounted at m_dir/name (the full-disk cases need root; CI runs as root).
  std::optional<fs::path> SmallDisk(const std::string& name, const std::string& size) {
    const fs::path point = m_dir / name;
    fs::create_directories(point);
    if (mount("tmpfs", point.c_str(), "tmpfs", 0, ("size=" + size).c_str()) != 0) return std::nullopt;
    m_mounted = point;
    return point;
  }
  std::optional<fs::path> m_mounted;
};

// Every file the manifest lists is there with its size, and every file there is listed.
void ExpectManifestMatches(const fs::path& dir) {
  ASSERT_TRUE(fs::exists(dir / ".hfsim-files.json")) << dir;
  const nlohmann::json manifest = nlohmann::json::parse(Slurp(dir / ".hfsim-files.json"));
  size_t listed = 0;
  for (const auto& entry : manifest["files"]) {
    const fs::path file = dir / entry["name"].get<std::string>();
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(fs::file_size(file), entry["bytes"].get<uint64_t>()) << file;
    ++listed;
  }
  size_t present = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.rfind(".hfsim-stage-", 0), std::string::npos) << "left behind: " << entry.path();
    const bool bookkeeping = name == ".hfsim-files.json" || name == ".hfsim-publish.lock";
    if (entry.is_regular_file() && !bookkeeping) ++present;
  }
  EXPECT_EQ(listed, present);
}

TEST_F(CliTrust, NegativeValuesForUnsignedOptionsAreRefused) {
  // CLI11 read "-1" into an unsigned option as 18446744073709551615.
  Result result = Hfsim("topology " + kQuickstart + " --route -1 5");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("got '-1'; accepted: a non-negative integer"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("18446744073709551615"), std::string::npos);
  result = Hfsim("p4 " HFSIM_SOURCE_DIR "/configs/p4-switchml-tofino1.json -o " +
                 (m_dir / "p4").string() + " --seed -1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_FALSE(fs::exists(m_dir / "p4"));
}

// An option that does nothing where it is given is refused (exit 2) naming why, instead of
// exiting 0 having ignored it; and a number beyond 64 bits is refused, not clamped.
TEST_F(CliTrust, OptionsThatDoNothingAreRefused) {
  const std::string optimize = HFSIM_SOURCE_DIR "/configs/optimize-verify-2d.json";
  const std::pair<std::string, std::string> cases[] = {
      // CLI11's strtoull clamped these to 2^64 - 1 (the route's message showed the clamp).
      {"p4 " HFSIM_SOURCE_DIR "/configs/p4-switchml-tofino1.json -o " + (m_dir / "p4").string() +
           " --seed 18446744073709551616",
       "accepted: a non-negative integer up to 2^64 - 1"},
      {"topology " + kQuickstart + " --route 0 99999999999999999999999",
       "accepted: a non-negative integer up to 2^64 - 1"},
      // LIBRA's problem options with a scenario file: "--objective time" passed unseen.
      {"optimize " + optimize + " --objective time -q -o " + (m_dir / "o1").string(),
       "--objective applies to LIBRA inputs only"},
      {"optimize " + optimize + " --total-mode equal --objective time_x_cost",
       "--objective and --total-mode apply to LIBRA inputs only"},
      {"convert " + kQuickstart + " --objective time_x_cost", "--objective applies to LIBRA"},
      {"convert " + kQuickstart + " --total 5", "--total applies to LIBRA inputs only"},
      {"optimize " + optimize + " --verify-engine flow -q -o " + (m_dir / "o2").string(),
       "--verify-engine flow chooses the engine --verify K re-simulates with"},
      {"optimize " + optimize + " --no-plot", "--no-plot needs --out DIR"},
      {"run " + kQuickstart + " --no-plot", "--no-plot needs --out DIR"},
      {"run " + kAllReduce + " --pricing astra_sim -e flow",
       "the flow engine runs messages and prices no collective"},
  };
  for (const auto& [command, what] : cases) {
    const Result result = Hfsim(command);
    EXPECT_EQ(result.exit_code, 2) << command << "\n" << result.output;
    EXPECT_NE(result.output.find(what), std::string::npos) << command << "\n" << result.output;
  }
  EXPECT_FALSE(fs::exists(m_dir / "p4"));
  EXPECT_FALSE(fs::exists(m_dir / "o1"));
  EXPECT_FALSE(fs::exists(m_dir / "o2"));
  // The largest 64-bit seed is still a seed.
  EXPECT_EQ(Hfsim("p4 " HFSIM_SOURCE_DIR "/configs/p4-switchml-tofino1.json -o " +
                  (m_dir / "p4").string() + " --seed 18446744073709551615")
                .exit_code,
            0);
}

TEST_F(CliTrust, EmptyOutputDirectoryIsRefused) {
  const std::vector<std::string> commands = {
      "run " + kQuickstart + " -o ''",
      "sweep " HFSIM_SOURCE_DIR "/configs/sweep-allreduce-4d.json -o ''",
      "optimize " HFSIM_SOURCE_DIR "/configs/optimize-verify-2d.json -o ''",
      "topology " + kQuickstart + " -o ''"};
  for (const std::string& command : commands) {
    const Result result = Hfsim(command);
    EXPECT_EQ(result.exit_code, 2) << command << "\n" << result.output;
    EXPECT_NE(result.output.find("got an empty string; accepted: a path"), std::string::npos)
        << result.output;
  }
}

TEST_F(CliTrust, UnreadableScenariosAreNamedWithTheReason) {
  fs::create_symlink(m_dir / "a.json", m_dir / "b.json");
  fs::create_symlink(m_dir / "b.json", m_dir / "a.json");
  Result result = Hfsim("run " + (m_dir / "a.json").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("Too many levels of symbolic links"), std::string::npos)
      << result.output;
  // /dev/zero is not a file: refused at once (it used to be read to the size limit), and as
  // standard input it is read up to the limit, not to the end of memory.
  result = Hfsim("run /dev/zero");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is a character device"), std::string::npos) << result.output;
  result = Hfsim("run /dev/stdin < /dev/zero");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("larger than"), std::string::npos) << result.output;
  // 100,000 levels of nesting: one line, no crash.
  result = Hfsim("run " + Write("deep.json", std::string(100000, '[') + std::string(100000, ']')));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("nested deeper than 64"), std::string::npos) << result.output;
  result = Hfsim("run " + Write("dup.json", R"({"name": "a", "name": "b"})"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("appears twice"), std::string::npos) << result.output;
}

TEST_F(CliTrust, LostStandardOutputExitsOne) {
  // A full disk behind standard output: /dev/full fails every write with ENOSPC.
  const int code = std::system((std::string(HFSIM_BINARY) + " run " + kQuickstart +
                                " > /dev/full 2> " + (m_dir / "err").string()).c_str());
  ASSERT_TRUE(WIFEXITED(code));
  EXPECT_EQ(WEXITSTATUS(code), 1);
  EXPECT_NE(Slurp(m_dir / "err").find("cannot write to standard output"), std::string::npos)
      << Slurp(m_dir / "err");
}

TEST_F(CliTrust, OutputsComeWithAManifestAndNoStagingLeft) {
  const Result result = Hfsim("run " + kQuickstart + " -q -f all --plot -o " + m_dir.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ExpectManifestMatches(m_dir);
  EXPECT_TRUE(fs::exists(m_dir / "breakdown.png"));
}

TEST_F(CliTrust, ConcurrentRunsIntoOneDirectoryNeverMix) {
  // Eight runs of two scenarios at once: whichever publishes last, its files form a whole set.
  std::string command;
  for (int i = 0; i < 8; ++i) {
    command += std::string(HFSIM_BINARY) + " run " + (i % 2 ? kQuickstart : kAllReduce) +
               " -q -f all -o " + m_dir.string() + " & ";
  }
  ASSERT_EQ(std::system((command + "wait").c_str()), 0);
  ExpectManifestMatches(m_dir);
  const nlohmann::json report = nlohmann::json::parse(Slurp(m_dir / "report.json"));
  const std::string summary = Slurp(m_dir / "summary.csv");
  EXPECT_NE(summary.find(report["scenario"]["name"].get<std::string>()), std::string::npos)
      << "report.json and summary.csv come from different runs";
}

TEST_F(CliTrust, AKilledRunLeavesTheEarlierFilesWhole) {
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -f all -o " + m_dir.string()).exit_code, 0);
  const std::string before = Slurp(m_dir / "report.json");
  // A packet run of the quickstart takes minutes: killed outright after half a second.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(HFSIM_BINARY, HFSIM_BINARY, "run", kQuickstart.c_str(), "-q", "-f", "all", "-e",
          "packet", "-o", m_dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  EXPECT_EQ(Slurp(m_dir / "report.json"), before);
  // A staging directory of the killed run may remain (hidden); the published set is whole.
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    if (entry.path().filename().string().rfind(".hfsim-stage-", 0) == 0) fs::remove_all(entry);
  }
  ExpectManifestMatches(m_dir);
}

// Fills `point` until `keep_bytes` are free (a file of zeros).
void FillDisk(const fs::path& point, uint64_t keep_bytes) {
  const uint64_t free = fs::space(point).available;
  if (free <= keep_bytes) return;
  std::ofstream filler(point / "filler", std::ios::binary);
  const std::string block(4096, '\0');
  for (uint64_t written = 0; written + 4096 <= free - keep_bytes; written += 4096) filler << block;
}

TEST_F(CliTrust, AFullDiskFailsWithExitOneAndKeepsTheEarlierFiles) {
  const auto disk = SmallDisk("small", "256k");
  if (!disk) GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  const fs::path out = *disk / "out";
  Result result = Hfsim("run " + kQuickstart + " -q -f all -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string before = Slurp(out / "report.json");
  const std::string convert =
      "convert --astra-network " HFSIM_SOURCE_DIR "/configs/astra-sim/ring-fc-switch.yml "
      "--astra-system " HFSIM_SOURCE_DIR "/configs/astra-sim/system.json --collective all_reduce "
      "--size ";
  const fs::path converted = *disk / "scenario.json";
  ASSERT_EQ(Hfsim(convert + "1MiB -o " + converted.string()).exit_code, 0);
  const std::string converted_before = Slurp(converted);
  FillDisk(*disk, 0);
  result = Hfsim("run " + kAllReduce + " -q -f all --plot -o " + out.string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("No space left on device"), std::string::npos) << result.output;
  EXPECT_EQ(Slurp(out / "report.json"), before);
  // convert -o FILE: the same, for its one file (it used to miss a failure at close).
  result = Hfsim(convert + "64MiB -o " + converted.string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("No space left on device"), std::string::npos) << result.output;
  EXPECT_EQ(Slurp(converted), converted_before);
  fs::remove(*disk / "filler");
  ExpectManifestMatches(out);
}

TEST_F(CliTrust, APictureCutShortByAFullDiskIsAFailure) {
  // Room for the small text files but not for the picture: gnuplot exits 0 all the same, so
  // the PNG itself is checked.
  const auto disk = SmallDisk("small", "512k");
  if (!disk) GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  const fs::path out = *disk / "out";
  fs::create_directories(out);
  FillDisk(*disk, 20 * 1024);  // five 4 KiB pages: the CSVs and the script, not the PNG
  const Result result = Hfsim("run " + kAllReduce + " -q -f csv --plot -o " + out.string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("breakdown.png"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(out / "breakdown.png"));
  EXPECT_FALSE(fs::exists(out / "summary.csv"));  // all or nothing
}

TEST_F(CliTrust, APacketRunPastTheClocksRangeFailsInsteadOfWrapping) {
  // Four layers of 3 x 1e15 ns compute: 1.2e16 ns, beyond ns-3's 2^63 ps (9.2e15 ns). This used
  // to report 2e15 ns with exit 0.
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "slow" + std::to_string(i)}, {"params", 1000},
                      {"output_elements_per_sample", 1000}, {"forward_ns", 1e15},
                      {"input_grad_ns", 1e15}, {"weight_grad_ns", 1e15}});
  }
  const nlohmann::json scenario = {
      {"name", "beyond-the-clock"},
      {"engine", "packet"},
      {"topology", {{"dimensions", {{{"kind", "Ring"}, {"size", 2}, {"bandwidth_GBps", 100},
                                     {"latency_ns", 10}}}}}},
      {"workload", {{"training", {{"model", {{"name", "slow"}, {"layers", layers}}},
                                  {"global_batch_samples", 2},
                                  {"parallelism", {{"data", 2}}}}}}}};
  const Result result = Hfsim("run " + Write("slow.json", scenario.dump()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("ns-3's clock"), std::string::npos) << result.output;
  // The analytical engine has no such limit.
  const Result analytical = Hfsim("run " + (m_dir / "slow.json").string() + " -e analytical");
  EXPECT_EQ(analytical.exit_code, 0) << analytical.output;
}

TEST_F(CliTrust, APacketRunThatCannotFitIsRefusedBeforeItStarts) {
  // GPT-3 on 4,096 NPUs at packet level: ~3.7e8 messages, about 48 GB by the estimate.
  const Result result = Hfsim("run " HFSIM_SOURCE_DIR "/configs/gpt3-4d-4096.json -e packet");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("the packet engine would need about"), std::string::npos)
      << result.output;
}

TEST_F(CliTrust, RunningOutOfMemoryIsNamedWithExitOne) {
  // A 4,096-NPU packet all-reduce (about 0.5 GB) under a 600 MB address-space limit: the
  // allocation fails partway through the run. It used to end in std::terminate; now main or the
  // command catches it.
  const std::string scenario = Write(
      "big.json",
      R"({"name": "big", "engine": "packet", "topology": {"dimensions": [{"kind": "Switch",
          "size": 4096, "bandwidth_GBps": 100, "latency_ns": 500}]},
          "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1048576}},
          "packet": {"max_memory_GiB": 100}})");
#if HFSIM_TEST_ADDRESS_SANITIZER
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v under it";
#endif
  const int code = std::system(("ulimit -v 600000; " + std::string(HFSIM_BINARY) + " run " +
                                scenario + " > " + (m_dir / "out").string() + " 2>&1").c_str());
  const std::string output = Slurp(m_dir / "out");
  ASSERT_TRUE(WIFEXITED(code)) << output;
  EXPECT_EQ(WEXITSTATUS(code), 1) << output;
  EXPECT_NE(output.find("hfsim: error: out of memory"), std::string::npos) << output;
}

TEST_F(CliTrust, SweepWorkersDieWithAParentKilledOutright) {
  // A packet sweep forks one worker per job; kill -9 of the parent used to leave them running.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    execl(HFSIM_BINARY, HFSIM_BINARY, "sweep", HFSIM_SOURCE_DIR "/configs/sweep-allreduce-4d.json",
          "-e", "packet", "-j", "2", "-q", "-o", m_dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the workers: children of the sweep process.
  auto workers = [&] {
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream stat(entry.path() / "stat");
      std::string pid, comm, state;
      pid_t ppid = 0;
      stat >> pid >> comm >> state >> ppid;
      if (ppid == child) found.push_back(std::stoi(pid));
    }
    return found;
  };
  std::vector<pid_t> seen;
  for (int i = 0; i < 200 && seen.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = workers();
  }
  ASSERT_FALSE(seen.empty()) << "the sweep started no worker";
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  // Gone, or a zombie waiting for whoever adopted it to reap it.
  auto alive = [](pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string id, comm, state;
    return static_cast<bool>(stat >> id >> comm >> state) && state != "Z";
  };
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = true;
    for (const pid_t pid : seen) gone = gone && !alive(pid);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const pid_t pid : seen) kill(pid, SIGKILL);  // do not leak them if the test fails
  EXPECT_TRUE(gone) << "sweep workers outlived their parent";
}

}  // namespace
