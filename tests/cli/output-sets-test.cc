// End-to-end: a command's output directory holds one set whole (docs/report.md, "Output
// files"). A finished run used to keep the earlier run's files it did not write (summary.csv,
// gantt.png of another scenario beside the new report.json), and `convert --to chakra` had no
// staging or manifest: 8 ranks written over 64 kept ranks 8 to 63, after which `run --chakra`
// refused the directory. A publication cut short by a kill (its journal and stage left) is
// finished by the next writer, and dead writers' stages are cleaned up.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/cli/output-set.h"
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

// The names of the regular files under `dir`, hfsim's bookkeeping (.hfsim-*) left out.
std::set<std::string> Files(const fs::path& dir) {
  std::set<std::string> names;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string top = fs::relative(it->path(), dir).begin()->string();
    if (top.rfind(".hfsim-", 0) == 0) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) names.insert(fs::relative(it->path(), dir).string());
  }
  return names;
}

// The names the manifest lists.
std::set<std::string> Listed(const fs::path& dir) {
  std::set<std::string> names;
  const auto manifest = nlohmann::json::parse(Slurp(dir / ".hfsim-files.json"), nullptr, false);
  if (!manifest.is_object()) return names;
  for (const auto& entry : manifest["files"]) names.insert(entry["name"].get<std::string>());
  return names;
}

std::string Collective(int npus) {
  return nlohmann::json{{"name", "all-reduce-" + std::to_string(npus)},
                        {"topology",
                         {{"dimensions",
                           {{{"kind", "Switch"}, {"size", npus}, {"bandwidth_GBps", 100},
                             {"latency_ns", 500}}}}}},
                        {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1 << 20}}}}}}
      .dump();
}

class OutputSets : public hfsim::test::ScratchDirectoryTest {
 protected:
  OutputSets() : ScratchDirectoryTest("hfsim-output-sets-") {}
};

TEST_F(OutputSets, AFinishedRunKeepsNoFileOfTheEarlierRun) {
  const fs::path out = m_dir / "out";
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -f all -o " + out.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "summary.csv"));
  ASSERT_TRUE(fs::exists(out / "gantt.png"));
  // The user's own file, and a file of the set the user changed since: both theirs now.
  std::ofstream(out / "notes.txt") << "mine\n";
  std::ofstream(out / "collectives.csv", std::ios::app) << "my row\n";
  const std::string changed = Slurp(out / "collectives.csv");
  const Result result = Hfsim("run " + kAllReduce + " -q -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Listed(out), (std::set<std::string>{"report.json", "breakdown.gp", "breakdown.png",
                                                "gantt.gp", "gantt.png"}));
  std::set<std::string> expected = Listed(out);
  expected.insert({"notes.txt", "collectives.csv"});
  EXPECT_EQ(Files(out), expected) << "summary.csv and dimensions.csv of the earlier run stayed";
  EXPECT_EQ(Slurp(out / "notes.txt"), "mine\n");
  EXPECT_EQ(Slurp(out / "collectives.csv"), changed);
  const auto report = nlohmann::json::parse(Slurp(out / "report.json"));
  EXPECT_EQ(report["scenario"]["name"], "allreduce-4d-64MiB");
}

TEST_F(OutputSets, ChakraRanksWrittenOverMoreRanksLeaveNoneBehind) {
  const fs::path out = m_dir / "traces";
  const std::string sixty_four = Write("ar64.json", Collective(64));
  const std::string eight = Write("ar8.json", Collective(8));
  ASSERT_EQ(Hfsim("convert " + sixty_four + " --to chakra -o " + out.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "trace.63.et"));
  Result result = Hfsim("convert " + eight + " --to chakra -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::set<std::string> expected = {"trace.groups.json"};
  for (int rank = 0; rank < 8; ++rank) expected.insert("trace." + std::to_string(rank) + ".et");
  EXPECT_EQ(Files(out), expected);
  EXPECT_EQ(Listed(out), expected);
  // And they run: the directory used to be refused for its rank 8.
  result = Hfsim("run --chakra " + (out / "trace").string() + " " + eight);
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

// The state a kill between two renames leaves in `out`: set A published (quickstart's
// report.json and pictures); set B's publication begun (allreduce's report.json and CSVs): its
// journal written, A's manifest removed, B's report.json renamed in, its CSVs and manifest still
// in its stage.
void CutPublication(const fs::path& out, const fs::path& b) {
  ASSERT_EQ(Hfsim("run " + kQuickstart + " -q -o " + out.string()).exit_code, 0);
  ASSERT_EQ(Hfsim("run " + kAllReduce + " -q -f all --no-plot -o " + b.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "breakdown.png"));
  const auto a_manifest = nlohmann::json::parse(Slurp(out / ".hfsim-files.json"));
  const fs::path stage = out / ".hfsim-stage-Cut123";
  fs::create_directories(stage);
  const nlohmann::json journal = {
      {"stage", ".hfsim-stage-Cut123"},
      {"publish", {"report.json", "summary.csv", "dimensions.csv", "collectives.csv"}},
      {"remove", a_manifest["files"]}};
  std::ofstream(out / ".hfsim-publish.json") << journal.dump();
  fs::remove(out / ".hfsim-files.json");
  fs::rename(b / "report.json", out / "report.json");
  for (const std::string name :
       {"summary.csv", "dimensions.csv", "collectives.csv", ".hfsim-files.json"}) {
    fs::rename(b / name, stage / name);
  }
}

TEST_F(OutputSets, APublicationCutShortIsFinishedWhole) {
  const fs::path out = m_dir / "out";
  CutPublication(out, m_dir / "b");
  hfsim::RecoverOutputDirectory(out, "");
  const std::set<std::string> b = {"report.json", "summary.csv", "dimensions.csv",
                                   "collectives.csv"};
  EXPECT_EQ(Files(out), b) << "A's pictures stayed, or B's CSVs were lost with the stage";
  EXPECT_EQ(Listed(out), b);
  EXPECT_FALSE(fs::exists(out / ".hfsim-publish.json"));
  EXPECT_FALSE(fs::exists(out / ".hfsim-stage-Cut123"));
}

TEST_F(OutputSets, TheNextWriterFinishesACutPublicationFirst) {
  // Had B not been finished, A's pictures would stay, listed by no manifest, beside the new set.
  const fs::path out = m_dir / "out";
  CutPublication(out, m_dir / "b");
  const Result result = Hfsim("topology " + kQuickstart + " -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Files(out), (std::set<std::string>{"links.csv"}));
  EXPECT_FALSE(fs::exists(out / ".hfsim-publish.json"));
  EXPECT_FALSE(fs::exists(out / ".hfsim-stage-Cut123"));
}

TEST_F(OutputSets, AChakraDirectoryCutShortIsRefusedByItsReader) {
  const fs::path out = m_dir / "traces";
  const std::string eight = Write("ar8.json", Collective(8));
  ASSERT_EQ(Hfsim("convert " + eight + " --to chakra -o " + out.string()).exit_code, 0);
  std::ofstream(out / ".hfsim-publish.json") << R"({"stage": ".hfsim-stage-Cut123", "publish": [], "remove": []})";
  Result result = Hfsim("run --chakra " + (out / "trace").string() + " " + eight);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("holds a publication that a kill cut short"), std::string::npos)
      << result.output;
  // A convert into it finishes what was cut, then publishes; the traces run again.
  ASSERT_EQ(Hfsim("convert " + eight + " --to chakra -o " + out.string()).exit_code, 0);
  result = Hfsim("run --chakra " + (out / "trace").string() + " " + eight);
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

TEST_F(OutputSets, ADeadWritersStageIsRemoved) {
  const fs::path out = m_dir / "out";
  fs::create_directories(out / ".hfsim-stage-Dead00" / "sub");
  std::ofstream(out / ".hfsim-stage-Dead00" / "sub" / "report.json") << "half a report";
  const Result result = Hfsim("run " + kQuickstart + " -q -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_FALSE(fs::exists(out / ".hfsim-stage-Dead00"));
  EXPECT_EQ(Files(out), Listed(out));
}

TEST_F(OutputSets, AStartedSweepLeavesNothingOfTheEarlierSweep) {
  // A sweep that starts over an earlier complete one and stops before it ends (here it cannot
  // start its 1000 threads under a 2 GB address-space limit) holds its own sweep.json and the
  // resumable sweep.csv.part; the earlier sweep.csv and pictures used to stay beside them.
#if HFSIM_TEST_ADDRESS_SANITIZER
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v under it";
#endif
  const fs::path out = m_dir / "sweep";
  ASSERT_EQ(Hfsim("sweep " HFSIM_SOURCE_DIR "/configs/sweep-allreduce-4d.json -q -o " + out.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "heatmap.png"));
  nlohmann::json other = nlohmann::json::parse(Slurp(HFSIM_SOURCE_DIR "/configs/sweep-allreduce-4d.json"));
  other["sweep"]["bandwidth_GBps"]["split"]["step_GBps"] = 10;
  const std::string scenario = Write("other.json", other.dump());
  const std::string command = "ulimit -v 2000000; " + std::string(HFSIM_BINARY) + " sweep " +
                              scenario + " -q -j 1000 -o " + out.string() + " > " +
                              (m_dir / "log").string() + " 2>&1";
  const int code = std::system(("bash -c '" + command + "'").c_str());
  const std::string log = Slurp(m_dir / "log");
  ASSERT_TRUE(WIFEXITED(code)) << log;
  EXPECT_EQ(WEXITSTATUS(code), 1) << log;
  EXPECT_NE(log.find("cannot start sweep worker thread"), std::string::npos) << log;
  EXPECT_EQ(log.find("terminate called"), std::string::npos) << log;
  EXPECT_EQ(Files(out), (std::set<std::string>{"sweep.json", "sweep.csv.part"}));
  // And it resumes to what an uninterrupted sweep writes.
  Result result = Hfsim("sweep " + scenario + " -q -j 2 --resume -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = Hfsim("sweep " + scenario + " -q -j 2 -o " + (m_dir / "whole").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Slurp(out / "sweep.csv"), Slurp(m_dir / "whole" / "sweep.csv"));
  EXPECT_EQ(Slurp(out / "sweep.json"), Slurp(m_dir / "whole" / "sweep.json"));
}

}  // namespace
