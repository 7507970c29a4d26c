// `hfsim sweep` end to end: bad input exits 2 naming the key; sweep.csv is the same bytes with
// any number of threads, across runs, under `mpirun -np 2` and after --resume from a scrambled,
// cut-off sweep.csv.part; a packet sweep's times are PacketEngine's.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "sim/packet/packet-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// A fresh directory for one test.
fs::path TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::temp_directory_path() / (std::string("hfsim-sweep-cli-") + info->test_suite_name() + "-" +
                                   info->name() + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs `prefix hfsim arguments`, capturing both streams.
Result Hfsim(const fs::path& dir, const std::string& arguments, const std::string& prefix = "") {
  Result result;
  const fs::path out = dir / "stdout.txt";
  const fs::path err = dir / "stderr.txt";
  const std::string command = prefix + HFSIM_BINARY + " " + arguments + " >" + out.string() +
                              " 2>" + err.string() + " </dev/null";
  const int status = std::system(command.c_str());
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out);
  result.err = ReadFile(err);
  return result;
}

/// mpirun as root (CI runs as root; Open MPI refuses without these), ranks oversubscribed.
/// In the sanitizer build the ranks skip LeakSanitizer: Open MPI leaks at exit from plugins it
/// has already unloaded, so those leaks cannot be attributed or suppressed by name. hfsim's own
/// sweep code is leak-checked by the single-process tests here; ASan's other checks stay on.
std::string Mpirun(int ranks) {
#ifdef HFSIM_SANITIZED
  const std::string sanitizer = "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ";
#else
  const std::string sanitizer;
#endif
  return sanitizer + "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + HFSIM_MPIRUN +
         " --oversubscribe -np " + std::to_string(ranks) + " ";
}

/// [Ring 4, Switch 2] all-reduce over a 30 x 30 grid and two sizes: 1800 points, 8 blocks.
json AnalyticalSweep() {
  return {
      {"name", "cli-sweep"},
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 4, 100, 20), test::Dim("Switch", 2, 50, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_MiB", 1}}}}},
      {"communication", {{"chunks", 2}}},
      {"cost", {{"dimensions", {{{"class", "node"}}, {{"class", "pod"}}}}}},
      {"sweep",
       {{"bandwidth_GBps",
         {{"grid",
           {{{"from", 5}, {"to", 150}, {"step", 5}}, {{"from", 2.5}, {"to", 75}, {"step", 2.5}}}}}},
        {"parameters", {{{"path", "workload.collective.size_MiB"}, {"values", {1, 16}}}}}}}};
}

fs::path WriteScenario(const fs::path& dir, const json& document,
                       const std::string& name = "s.json") {
  WriteFile(dir / name, document.dump(2));
  return dir / name;
}

/// Runs the sweep into dir/name and returns its sweep.csv.
std::string Sweep(const fs::path& dir, const fs::path& scenario, const std::string& name,
                  const std::string& options, const std::string& prefix = "") {
  const Result r = Hfsim(
      dir, "sweep " + scenario.string() + " -o " + (dir / name).string() + " --no-plot " + options,
      prefix);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / name / "sweep.csv.part"));
  return ReadFile(dir / name / "sweep.csv");
}

/// A sweep.csv.part of an interrupted run: the header, `kept` rows scrambled, and the first
/// half of one more row. Returns the number of whole rows.
uint64_t WriteInterruptedPart(const std::string& finished_csv, const fs::path& path) {
  std::vector<std::string> lines = Lines(finished_csv);
  std::vector<std::string> rows;
  std::string cut;
  for (size_t i = 1; i < lines.size(); ++i) {
    // Every third row, and all of block 2 (points 512..767).
    const uint64_t point = std::stoull(lines[i].substr(0, lines[i].find(',')));
    if (point % 3 == 0 || (point >= 512 && point < 768)) {
      rows.push_back(lines[i]);
    } else if (cut.empty() && point > 1000) {
      cut = lines[i].substr(0, lines[i].size() / 2);
    }
  }
  std::mt19937 random(5);
  std::shuffle(rows.begin(), rows.end(), random);
  std::string text = lines[0] + "\n";
  for (const std::string& row : rows) text += row + "\n";
  WriteFile(path, text + cut);
  return rows.size();
}

TEST(SweepCli, BadInputExitsTwoNamingTheKey) {
  const fs::path dir = TestDir();
  json no_sweep = AnalyticalSweep();
  no_sweep.erase("sweep");
  Result r =
      Hfsim(dir, "sweep " + WriteScenario(dir, no_sweep).string() + " -o " + (dir / "a").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sweep: missing"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "a" / "sweep.csv"));

  json backwards = AnalyticalSweep();
  backwards["sweep"]["bandwidth_GBps"]["grid"][0] = {{"from", 50}, {"to", 10}, {"step", 5}};
  r = Hfsim(dir, "sweep " + WriteScenario(dir, backwards).string() + " -o " + (dir / "b").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sweep.bandwidth_GBps.grid[0].to: got 10"), std::string::npos) << r.err;

  json bad_value = AnalyticalSweep();
  bad_value["sweep"]["parameters"][0]["values"] = {1, -16};
  r = Hfsim(dir, "sweep " + WriteScenario(dir, bad_value).string() + " -o " + (dir / "c").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sweep.parameters[0].values[1]: makes a bad scenario"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("workload.collective.size_MiB"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(SweepCli, SameBytesWithAnyThreadsAndAcrossRuns) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string one = Sweep(dir, scenario, "j1", "-j 1");
  const std::string two = Sweep(dir, scenario, "j2", "-j 2");
  const std::string again = Sweep(dir, scenario, "again", "-j 2");
  const std::vector<std::string> lines = Lines(one);
  ASSERT_EQ(lines.size(), 1801u);
  EXPECT_EQ(lines[0],
            "point,workload.collective.size_MiB,B0_GBps,B1_GBps,total_GBps,time_ns,"
            "cost_usd,time_x_cost_ns_usd");
  for (size_t i = 1; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].rfind(std::to_string(i - 1) + ",", 0), 0u) << lines[i];
  }
  EXPECT_EQ(two, one);
  EXPECT_EQ(again, one);
  EXPECT_EQ(ReadFile(dir / "j2" / "sweep.json"), ReadFile(dir / "j1" / "sweep.json"));
  EXPECT_EQ(ReadFile(dir / "again" / "sweep.json"), ReadFile(dir / "j1" / "sweep.json"));
  const json manifest = json::parse(ReadFile(dir / "j1" / "sweep.json"));
  EXPECT_EQ(manifest["points"], 1800);
  EXPECT_EQ(manifest["engine"], "analytical");
  EXPECT_EQ(manifest["scenario"]["sweep"], AnalyticalSweep()["sweep"]);
  EXPECT_EQ(manifest["summary"].size(), 2u);
  fs::remove_all(dir);
}

TEST(SweepCli, PicturesAreDrawn) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const Result r = Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* file : {"heatmap.gp", "frontier.gp"})
    EXPECT_TRUE(fs::exists(dir / "out" / file));
  for (const char* file : {"heatmap.png", "frontier.png"}) {
    ASSERT_TRUE(fs::exists(dir / "out" / file)) << file;
    EXPECT_GT(fs::file_size(dir / "out" / file), 1000u) << file;
  }
  EXPECT_NE(r.out.find("1800 points, analytical engine"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(SweepCli, PacketSweepTimesArePacketEngineTimes) {
  const fs::path dir = TestDir();
  const json document = {
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 16384}}}}},
      {"sweep",
       {{"bandwidth_GBps", {{"grid", {{25, 50, 100}, {10, 40}}}}},
        {"parameters",
         {{{"path", "workload.collective.size_bytes"}, {"values", {16384, 65536}}}}}}}};
  const fs::path scenario = WriteScenario(dir, document);
  const std::string two = Sweep(dir, scenario, "j2", "-e packet -j 2");
  const std::string one = Sweep(dir, scenario, "j1", "-e packet -j 1");
  EXPECT_EQ(two, one);
  EXPECT_EQ(json::parse(ReadFile(dir / "j2" / "sweep.json"))["engine"], "packet");
  const std::vector<std::string> lines = Lines(two);
  ASSERT_EQ(lines.size(), 13u);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells;
    std::istringstream row(lines[i]);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 8u) << lines[i];
    const uint64_t point = i - 1;
    ASSERT_EQ(cells[0], std::to_string(point));
    // Point p: size index p / 6; allocation p % 6 = (B0 index, B1 index) = (a / 2, a % 2).
    const uint64_t size = point / 6 == 0 ? 16384 : 65536;
    const double b0 = std::vector<double>{25, 50, 100}[point % 6 / 2];
    const double b1 = std::vector<double>{10, 40}[point % 2];
    EXPECT_EQ(cells[1], std::to_string(size));
    json variant = document;
    variant["workload"]["collective"]["size_bytes"] = size;
    variant["engine"] = "packet";
    Scenario s = test::ParseOrFail(variant);
    s.dimensions[0].bandwidth_Bpns = b0;
    s.dimensions[1].bandwidth_Bpns = b1;
    const double expected = PacketEngine().Run(s).iteration.total_ns;
    double got = 0;
    std::from_chars(cells[5].data(), cells[5].data() + cells[5].size(), got);
    EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(expected))
        << "point " << point << ": " << cells[5] << " vs " << expected;
  }
  fs::remove_all(dir);
}

TEST(SweepCli, ResumeFinishesAnInterruptedSweepToTheSameBytes) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string reference = Sweep(dir, scenario, "whole", "-j 2");

  fs::create_directories(dir / "cut");
  fs::copy_file(dir / "whole" / "sweep.json", dir / "cut" / "sweep.json");
  const uint64_t kept = WriteInterruptedPart(reference, dir / "cut" / "sweep.csv.part");
  ASSERT_GT(kept, 600u);
  const Result r = Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "cut").string() +
                                  " --no-plot -j 2 --resume");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.out.find(fmt::format("1800 points, analytical engine ({} from the earlier run)", kept)),
      std::string::npos)
      << r.out;
  EXPECT_EQ(ReadFile(dir / "cut" / "sweep.csv"), reference);
  EXPECT_EQ(ReadFile(dir / "cut" / "sweep.json"), ReadFile(dir / "whole" / "sweep.json"));
  EXPECT_FALSE(fs::exists(dir / "cut" / "sweep.csv.part"));

  // --resume on a finished sweep reuses every point.
  const Result all = Hfsim(
      dir, "sweep " + scenario.string() + " -o " + (dir / "cut").string() + " --no-plot --resume");
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_NE(all.out.find("(1800 from the earlier run)"), std::string::npos) << all.out;
  EXPECT_EQ(ReadFile(dir / "cut" / "sweep.csv"), reference);
  fs::remove_all(dir);
}

TEST(SweepCli, ResumeAcceptsAScenarioNumberOfSeventeenDigits) {
  // sweep.json writes 15 significant digits; a scenario value that needs 17 (100/3 as a
  // program writes it) used to make every --resume of that sweep refuse as "a different sweep".
  const fs::path dir = TestDir();
  json document = AnalyticalSweep();
  document["topology"]["dimensions"][0]["latency_ns"] = 100.0 / 3.0;
  const fs::path scenario = WriteScenario(dir, document);
  const std::string reference = Sweep(dir, scenario, "whole", "");
  const Result again = Hfsim(dir, "sweep " + scenario.string() + " -o " +
                                      (dir / "whole").string() + " --no-plot --resume");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("(1800 from the earlier run)"), std::string::npos) << again.out;
  EXPECT_EQ(ReadFile(dir / "whole" / "sweep.csv"), reference);
  fs::remove_all(dir);
}

TEST(SweepCli, ResumeAfterAKillBeforeTheFirstFlush) {
  // Killed outright before the header reached the disk: an empty or cut-off .part file.
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string reference = Sweep(dir, scenario, "whole", "");
  const std::string header = reference.substr(0, reference.find('\n') + 1);
  for (const std::string& part : {std::string(), header.substr(0, 20)}) {
    fs::remove_all(dir / "cut");
    fs::create_directories(dir / "cut");
    fs::copy_file(dir / "whole" / "sweep.json", dir / "cut" / "sweep.json");
    WriteFile(dir / "cut" / "sweep.csv.part", part);
    const Result r = Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "cut").string() +
                                    " --no-plot --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("earlier run"), std::string::npos) << r.out;
    EXPECT_EQ(ReadFile(dir / "cut" / "sweep.csv"), reference);
  }
  fs::remove_all(dir);
}

TEST(SweepCli, ResumeRefusesAChangedSweep) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string reference = Sweep(dir, scenario, "out", "");
  const std::string manifest = ReadFile(dir / "out" / "sweep.json");

  json changed = AnalyticalSweep();
  changed["topology"]["dimensions"][1]["latency_ns"] = 600;
  const fs::path other = WriteScenario(dir, changed, "changed.json");
  Result r = Hfsim(dir, "sweep " + other.string() + " -o " + (dir / "out").string() + " --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find((dir / "out" / "sweep.json").string()), std::string::npos) << r.err;
  EXPECT_NE(
      r.err.find("the scenario's topology.dimensions[1].latency_ns was 500.0 and is now 600.0"),
      std::string::npos)
      << r.err;

  json more = AnalyticalSweep();
  more["sweep"]["parameters"][0]["values"].push_back(64);
  r = Hfsim(dir, "sweep " + WriteScenario(dir, more, "more.json").string() + " -o " +
                     (dir / "out").string() + " --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("\"points\" was 1800 and is now 2700"), std::string::npos) << r.err;

  json renamed = AnalyticalSweep();
  renamed["workload"]["collective"] = {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}};
  renamed["sweep"]["parameters"][0]["path"] = "workload.collective.size_bytes";
  renamed["sweep"]["parameters"][0]["values"] = {1 << 20, 16 << 20};
  r = Hfsim(dir, "sweep " + WriteScenario(dir, renamed, "renamed.json").string() + " -o " +
                     (dir / "out").string() + " --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the scenario's sweep.parameters[0].path was "
                       "\"workload.collective.size_MiB\" and is now "
                       "\"workload.collective.size_bytes\""),
            std::string::npos)
      << r.err;

  r = Hfsim(dir,
            "sweep " + scenario.string() + " -o " + (dir / "out").string() + " --resume -e packet");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("\"engine\" was \"analytical\" and is now \"packet\""), std::string::npos)
      << r.err;
  // Nothing was touched.
  EXPECT_EQ(ReadFile(dir / "out" / "sweep.csv"), reference);
  EXPECT_EQ(ReadFile(dir / "out" / "sweep.json"), manifest);

  // Finished rows without the manifest that says what they are.
  fs::remove(dir / "out" / "sweep.json");
  r = Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "out").string() + " --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(SweepCli, WithoutResumeTheDirectoryIsStartedOver) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string reference = Sweep(dir, scenario, "reference", "");
  // Another sweep's results and a garbage .part file.
  json other = AnalyticalSweep();
  other["sweep"]["parameters"][0]["values"] = {2, 4, 8};
  Sweep(dir, WriteScenario(dir, other, "other.json"), "out", "");
  WriteFile(dir / "out" / "sweep.csv.part", "not a sweep\n1,2,3");
  const Result r =
      Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "out").string() + " --no-plot");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("earlier run"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(dir / "out" / "sweep.csv"), reference);
  EXPECT_EQ(ReadFile(dir / "out" / "sweep.json"), ReadFile(dir / "reference" / "sweep.json"));
  EXPECT_FALSE(fs::exists(dir / "out" / "sweep.csv.part"));
  fs::remove_all(dir);
}

TEST(SweepCli, SigtermStopsAFlowSweepAtOnce) {
  // Each point is a flow-engine run of GPT-3 over 64 micro-batches (about 15 s here). A SIGTERM
  // a second into the first point stops the sweep there: exit 130 at once, sweep.json and the
  // .part file left for --resume. The point used to run to its end first.
  const fs::path dir = TestDir();
  json document = json::parse(ReadFile(HFSIM_SOURCE_DIR "/configs/gpt3-pipeline-1f1b-64.json"));
  document["workload"]["training"]["parallelism"]["micro_batches"] = 64;
  document["workload"]["training"]["global_batch_samples"] = 256;
  document["sweep"] = {{"engine", "flow"},
                       {"bandwidth_GBps", {{"list", {{300, 50, 25}, {300, 50, 50}}}}}};
  const fs::path scenario = WriteScenario(dir, document);
  const fs::path out = dir / "out";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(HFSIM_BINARY, HFSIM_BINARY, "sweep", scenario.c_str(), "-q", "--no-plot", "-j", "1",
          "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 300 && !fs::exists(out / "sweep.csv.part"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  kill(child, SIGTERM);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 100 && done == 0; ++i) {  // 10 s at most
    done = waitpid(child, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the sweep was still running 10 s after SIGTERM";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(fs::exists(out / "sweep.json"));
  EXPECT_EQ(ReadFile(out / "sweep.csv.part").rfind("point,", 0), 0u);
  fs::remove_all(dir);
}

TEST(SweepCli, AResultsFileThatIsALinkIsNotWrittenThrough) {
  // sweep.csv.part is the sweep's own file; a link planted at that name was followed by fopen,
  // and what it pointed at truncated and filled with rows. Refused now, with exit 2, before
  // anything in the directory changes.
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  fs::create_directories(dir / "out");
  WriteFile(dir / "victim.txt", "mine\n");
  fs::create_symlink(dir / "victim.txt", dir / "out" / "sweep.csv.part");
  const Result r = Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "out").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("sweep.csv.part: is a symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(dir / "victim.txt"), "mine\n");
  EXPECT_FALSE(fs::exists(dir / "out" / "sweep.json"));
  fs::remove_all(dir);
}

TEST(SweepCli, MpiRanksWriteTheSameBytes) {
  const fs::path dir = TestDir();
  const fs::path scenario = WriteScenario(dir, AnalyticalSweep());
  const std::string reference = Sweep(dir, scenario, "single", "-j 1");
  const Result r =
      Hfsim(dir, "sweep " + scenario.string() + " -o " + (dir / "mpi").string() + " --no-plot -j 1",
            Mpirun(2));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("x 2 ranks"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(dir / "mpi" / "sweep.csv"), reference);
  EXPECT_EQ(ReadFile(dir / "mpi" / "sweep.json"), ReadFile(dir / "single" / "sweep.json"));

  // --resume under MPI from an interrupted single-process run.
  fs::create_directories(dir / "cut");
  fs::copy_file(dir / "single" / "sweep.json", dir / "cut" / "sweep.json");
  const uint64_t kept = WriteInterruptedPart(reference, dir / "cut" / "sweep.csv.part");
  const Result resumed = Hfsim(
      dir,
      "sweep " + scenario.string() + " -o " + (dir / "cut").string() + " --no-plot -j 1 --resume",
      Mpirun(2));
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find(fmt::format("({} from the earlier run)", kept)), std::string::npos)
      << resumed.out;
  EXPECT_EQ(ReadFile(dir / "cut" / "sweep.csv"), reference);
  EXPECT_FALSE(fs::exists(dir / "cut" / "sweep.csv.part"));

  // A packet sweep: each rank forks its own workers.
  const json packet = {
      {"topology",
       {{"dimensions",
         test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500))}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 16384}}}}},
      {"sweep",
       {{"engine", "packet"},
        {"bandwidth_GBps",
         {{"grid",
           {{{"from", 10}, {"to", 200}, {"step", 10}},
            {{"from", 5}, {"to", 75}, {"step", 5}}}}}}}}};
  const fs::path packet_scenario = WriteScenario(dir, packet, "packet.json");
  const std::string packet_reference = Sweep(dir, packet_scenario, "packet-single", "-j 2");
  ASSERT_EQ(Lines(packet_reference).size(), 301u);
  EXPECT_EQ(Sweep(dir, packet_scenario, "packet-mpi", "-j 1", Mpirun(2)), packet_reference);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hfsim
