// End-to-end: single-file outputs (`run --trace FILE`, `convert -o FILE`) never destroy what the
// path points at (docs/bad-input.md, "Output paths"). These used to be written to a temporary
// file renamed over the path whatever it was: `--trace /dev/null` made the machine's /dev/null a
// regular file, `convert -o /dev/full` exited 0, a FIFO or a link to /proc/self/fd/1 was
// replaced by a file, and `--trace` naming the scenario overwrote it.
//
// CI runs as root. The device cases write to private nodes made with mknod (1, 3 is /dev/null's
// driver, 1, 7 /dev/full's) in the test's own directory; the one case on the machine's
// /dev/null puts it back with mknod if the code under test broke it.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/hfsim-cli.h"
#include "tests/scratch-directory.h"

namespace {

namespace fs = std::filesystem;

using Result = hfsim::test::CliResult;
using hfsim::test::Slurp;

Result Hfsim(const std::string& arguments) {
  return hfsim::test::RunHfsim(HFSIM_BINARY, arguments);
}

const std::string kQuickstart = HFSIM_SOURCE_DIR "/configs/quickstart.json";
const std::string kAstra = "--astra-network " HFSIM_SOURCE_DIR
                           "/configs/astra-sim/ring-fc-switch.yml --astra-system " HFSIM_SOURCE_DIR
                           "/configs/astra-sim/system.json --collective all_reduce --size 1MiB";

mode_t KindOf(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 ? (info.st_mode & S_IFMT) : 0;
}

class OutputPaths : public hfsim::test::ScratchDirectoryTest {
 protected:
  OutputPaths() : ScratchDirectoryTest("hfsim-output-paths-") {}
  // A private character device with /dev/null's (minor 3) or /dev/full's (minor 7) driver.
  std::optional<fs::path> Device(const std::string& name, unsigned minor) const {
    const fs::path path = m_dir / name;
    if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) return std::nullopt;
    return path;
  }
};

TEST_F(OutputPaths, ATraceToACharacterDeviceLeavesItADevice) {
  const auto null = Device("null", 3);
  if (!null) GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << ")";
  Result result = Hfsim("run " + kQuickstart + " --trace " + null->string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(KindOf(*null), S_IFCHR) << "the device became a regular file";
  result = Hfsim("convert " + kAstra + " -o " + null->string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(KindOf(*null), S_IFCHR);
}

// The machine's own /dev/null, as the issue reported it: put back if the code broke it.
TEST_F(OutputPaths, TheMachinesDevNullStaysADevice) {
  struct Restore {
    ~Restore() {
      if (KindOf("/dev/null") == S_IFCHR) return;
      ::unlink("/dev/null");
      ::mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3));
      ::chmod("/dev/null", 0666);
    }
  } restore;
  if (KindOf("/dev/null") != S_IFCHR) GTEST_SKIP() << "/dev/null is not a device here";
  const Result result = Hfsim("run " + kQuickstart + " --trace /dev/null");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(KindOf("/dev/null"), S_IFCHR) << "/dev/null became a regular file";
}

TEST_F(OutputPaths, AFullDeviceFailsWithExitOne) {
  const auto full = Device("full", 7);
  if (!full) GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << ")";
  Result result = Hfsim("convert " + kAstra + " -o " + full->string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(full->string() + ": cannot write: No space left on device"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(KindOf(*full), S_IFCHR);
  result = Hfsim("run " + kQuickstart + " --trace " + full->string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("No space left on device"), std::string::npos) << result.output;
  EXPECT_EQ(KindOf(*full), S_IFCHR);
}

TEST_F(OutputPaths, AFifoIsWrittenThroughToItsReader) {
  const fs::path fifo = m_dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader: what comes through the FIFO until its writer closes it.
  auto read = std::async(std::launch::async, [&] { return Slurp(fifo); });
  const Result result = Hfsim("run " + kQuickstart + " --trace " + fifo.string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const std::string trace = read.get();
  EXPECT_EQ(KindOf(fifo), S_IFIFO) << "the FIFO became a regular file";
  const auto parsed = nlohmann::json::parse(trace, nullptr, false);
  ASSERT_TRUE(parsed.is_object()) << trace.substr(0, 200);
  EXPECT_TRUE(parsed.contains("traceEvents"));
}

TEST_F(OutputPaths, ALinkToStandardOutputWritesToStandardOutput) {
  const fs::path link = m_dir / "stdout-link";
  fs::create_symlink("/proc/self/fd/1", link);
  for (const std::string& path : {link.string(), std::string("/dev/stdout")}) {
    const fs::path log = m_dir / "log.txt";
    const int code = std::system((std::string(HFSIM_BINARY) + " run " + kQuickstart + " --trace " +
                                  path + " > " + log.string() + " 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(code));
    const std::string output = Slurp(log);
    EXPECT_EQ(WEXITSTATUS(code), 0) << output;
    // The summary first, then the trace, both in the redirected file (not the file replaced).
    const size_t summary = output.find("iteration");
    const size_t trace = output.find("\"traceEvents\"");
    EXPECT_NE(summary, std::string::npos) << output.substr(0, 300);
    EXPECT_NE(trace, std::string::npos) << path;
    EXPECT_LT(summary, trace);
  }
  EXPECT_EQ(KindOf(link), S_IFLNK) << "the link became a regular file";
}

TEST_F(OutputPaths, ALinkIsFollowedAndStaysALink) {
  const fs::path target = m_dir / "target.json";
  Write("target.json", "earlier\n");
  fs::create_symlink("target.json", m_dir / "link.json");
  fs::create_symlink("made.json", m_dir / "dangling.json");
  for (const std::string name : {"link.json", "dangling.json"}) {
    const Result result = Hfsim("convert " + kAstra + " -o " + (m_dir / name).string());
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(KindOf(m_dir / name), S_IFLNK) << name;
  }
  EXPECT_TRUE(nlohmann::json::parse(Slurp(target), nullptr, false).is_object());
  EXPECT_TRUE(nlohmann::json::parse(Slurp(m_dir / "made.json"), nullptr, false).is_object());
}

TEST_F(OutputPaths, AnOutputThatNamesAnInputIsRefused) {
  const std::string scenario = Write("scenario.json", Slurp(kQuickstart));
  fs::create_symlink("scenario.json", m_dir / "link.json");
  fs::create_hard_link(scenario, m_dir / "hard.json");
  for (const std::string& path : {scenario, (m_dir / "link.json").string(),
                                  (m_dir / "hard.json").string()}) {
    Result result = Hfsim("run " + scenario + " --trace " + path);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("is the scenario file, " + scenario +
                                 ", an input of this command"),
              std::string::npos)
        << result.output;
    EXPECT_EQ(result.output.find("iteration"), std::string::npos) << "refused after the run";
    result = Hfsim("convert " + scenario + " -o " + path);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_EQ(Slurp(scenario), Slurp(kQuickstart)) << "the scenario was overwritten";
  }
  // ASTRA-sim's inputs, and a graph file.
  const std::string system = Write("system.json", Slurp(HFSIM_SOURCE_DIR "/configs/astra-sim/system.json"));
  const std::string network = Write("net.yml", Slurp(HFSIM_SOURCE_DIR "/configs/astra-sim/ring-fc-switch.yml"));
  Result result = Hfsim("convert --astra-network " + network + " --astra-system " + system +
                        " --collective all_reduce --size 1MiB -o " + system);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("an input of this command"), std::string::npos) << result.output;
  nlohmann::json job = nlohmann::json::parse(Slurp(HFSIM_SOURCE_DIR "/configs/graph-pipeline-tensor-data.json"));
  const std::string graph = Write("graph.json", job["workload"]["graph"].dump());
  job.erase("workload");
  const std::string fabric = Write("fabric.json", job.dump());
  result = Hfsim("run " + fabric + " --graph " + graph + " --trace " + graph);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is the graph file"), std::string::npos) << result.output;
}

TEST_F(OutputPaths, AnOutputSetThatWouldRemoveItsInputIsRefused) {
  // The traces `convert --to chakra` wrote are the earlier set in that directory: a run of them
  // with -o there would remove them (and replace nothing it reads). Refused, files kept.
  const fs::path traces = m_dir / "traces";
  const std::string scenario = Write("ar8.json", R"({"topology": {"dimensions": [{"kind": "Switch", "size": 8, "bandwidth_GBps": 100, "latency_ns": 500}]}, "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1048576}}})");
  ASSERT_EQ(Hfsim("convert " + scenario + " --to chakra -o " + traces.string()).exit_code, 0);
  const std::string rank = Slurp(traces / "trace.3.et");
  const Result result = Hfsim("run --chakra " + (traces / "trace").string() + " " + scenario +
                              " -o " + traces.string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("an input of this command, which this output set would remove"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(Slurp(traces / "trace.3.et"), rank);
  EXPECT_FALSE(fs::exists(traces / "report.json"));
}

TEST_F(OutputPaths, WhatCannotBeWrittenOverIsRefusedWithExitTwo) {
  fs::create_directories(m_dir / "folder");
  Result result = Hfsim("run " + kQuickstart + " --trace " + (m_dir / "folder").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is a directory"), std::string::npos) << result.output;
  EXPECT_EQ(KindOf(m_dir / "folder"), S_IFDIR);
  // An output directory that is a file.
  const std::string file = Write("file", "mine\n");
  result = Hfsim("run " + kQuickstart + " -o " + file);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is a file, not a directory"), std::string::npos) << result.output;
  EXPECT_EQ(Slurp(file), "mine\n");
}

}  // namespace
