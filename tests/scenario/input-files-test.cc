// End-to-end: every input path (scenario, graph, groups, Chakra rank files, ASTRA-sim and LIBRA
// inputs) must be a regular file, or standard input (docs/bad-input.md, "Paths"). A scenario
// path that was a FIFO blocked `hfsim run` forever, waiting for a writer; each is refused at once
// now, with exit 2 and what the path is. Each command runs under `timeout`, so a regression
// fails the test instead of hanging it.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/hfsim-cli.h"
#include "tests/scratch-directory.h"

namespace {

namespace fs = std::filesystem;

using Result = hfsim::test::CliResult;
using hfsim::test::Slurp;

// hfsim under a 60 s timeout (exit 124 when it blocks), after `prefix` ("cat x | ").
Result Hfsim(const std::string& arguments, const std::string& prefix = "") {
  return hfsim::test::RunHfsim(prefix + "timeout 60 " HFSIM_BINARY, arguments);
}

const std::string kQuickstart = HFSIM_SOURCE_DIR "/configs/quickstart.json";
const std::string kAstraNetwork = HFSIM_SOURCE_DIR "/configs/astra-sim/ring-fc-switch.yml";
const std::string kAstraSystem = HFSIM_SOURCE_DIR "/configs/astra-sim/system.json";

class InputFiles : public hfsim::test::ScratchDirectoryTest {
 protected:
  InputFiles() : ScratchDirectoryTest("hfsim-input-files-") {}
  void SetUp() override {
    ScratchDirectoryTest::SetUp();
    ASSERT_EQ(::mkfifo(Fifo().c_str(), 0600), 0);
  }
  std::string Fifo() const { return (m_dir / "fifo").string(); }
};

void ExpectRefusedAsAFifo(const Result& result, const std::string& command) {
  EXPECT_EQ(result.exit_code, 2) << command << "\n" << result.output;
  EXPECT_NE(result.output.find("is a named pipe (FIFO)"), std::string::npos)
      << command << "\n" << result.output;
}

TEST_F(InputFiles, AFifoIsRefusedAtOnceWhateverItHolds) {
  const std::string fabric = Write("fabric.json", R"({"topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 100, "latency_ns": 500}]}})");
  for (const std::string& command :
       {"run " + Fifo(), "sweep " + Fifo() + " -o " + (m_dir / "s").string(),
        "optimize " + Fifo(), "topology " + Fifo(), "convert " + Fifo(),
        "run " + fabric + " --graph " + Fifo(),
        "run --astra-network " + Fifo() + " --astra-system " + kAstraSystem +
            " --collective all_reduce --size 1MiB",
        "run --astra-network " + kAstraNetwork + " --astra-system " + Fifo() +
            " --collective all_reduce --size 1MiB",
        "optimize --libra-network " + Fifo() + " --libra-workload " + Fifo() + " --libra-comm " +
            Fifo() + " --total 500"}) {
    ExpectRefusedAsAFifo(Hfsim(command), command);
  }
}

TEST_F(InputFiles, AChakraRankOrGroupsFileThatIsAFifoIsRefused) {
  const std::string scenario = Write("ar2.json", R"({"topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 100, "latency_ns": 500}]}, "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1024}}})");
  const fs::path traces = m_dir / "traces";
  ASSERT_EQ(Hfsim("convert " + scenario + " --to chakra -o " + traces.string()).exit_code, 0);
  Result result = Hfsim("run --chakra " + (traces / "trace").string() + " " + scenario +
                        " --chakra-groups " + Fifo());
  ExpectRefusedAsAFifo(result, "--chakra-groups");
  fs::remove(traces / "trace.1.et");
  ASSERT_EQ(::mkfifo((traces / "trace.1.et").c_str(), 0600), 0);
  result = Hfsim("run --chakra " + (traces / "trace").string() + " " + scenario);
  ExpectRefusedAsAFifo(result, "a rank file");
}

TEST_F(InputFiles, ADeviceIsRefusedAndStandardInputIsRead) {
  Result result = Hfsim("run /dev/zero");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is a character device"), std::string::npos) << result.output;
  // Standard input is read whatever it is: a redirected file, a pipe.
  result = Hfsim("run /dev/stdin < " + kQuickstart);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = Hfsim("run /dev/stdin", "cat " + kQuickstart + " | ");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  // ... up to the size limit, not to the end of memory.
  result = Hfsim("run /dev/stdin < /dev/zero");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("larger than"), std::string::npos) << result.output;
}

}  // namespace
