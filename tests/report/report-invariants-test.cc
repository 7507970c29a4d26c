// What docs/report.md promises of every report field, checked on every shipped config with the
// analytical engine: the iteration's time is its compute plus its exposed communication, exposed
// communication is part of all communication, and a dimension's busy time and utilisation agree.
// A parameter-server run used to report no compute and more exposed communication than
// communication (s5-thc-ps: 119.6 ms against 19.6 ms), and busy 0 ns beside a utilisation of 2%.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

TEST(ReportInvariants, HoldForEveryShippedConfigAndWorkloadKind) {
  size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(HFSIM_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".json") continue;
    auto scenario = LoadScenarioFile(entry.path().string());
    ASSERT_TRUE(scenario) << entry.path() << ": " << scenario.Error().ToString();
    scenario.Value().engine = EngineKind::kAnalytical;
    const Report report = AnalyticalEngine().Run(scenario.Value());
    const IterationTimeline& it = report.iteration;
    const std::string name = entry.path().filename().string();
    const double tolerance = 1e-9 * it.total_ns;
    EXPECT_GT(it.total_ns, 0.0) << name;
    EXPECT_NEAR(it.ComputeNs() + it.ExposedCommNs(), it.total_ns, tolerance) << name;
    EXPECT_GE(it.ExposedCommNs(), -tolerance) << name;
    // When ranks run different programs, a rank also waits for others (a pipeline's bubble), and
    // that time is not compute either (docs/graph.md section 3).
    const bool ranks_differ = report.graph && report.graph->programs > 1;
    if (!ranks_differ) {
      EXPECT_LE(it.ExposedCommNs(), report.communication_ns + tolerance)
          << name << ": exposed " << it.ExposedCommNs() << " ns of " << report.communication_ns;
    }
    for (const DimensionReport& d : report.dimensions) {
      EXPECT_GE(d.utilisation, 0.0) << name;
      EXPECT_LE(d.utilisation, 1.0 + 1e-12) << name << " dimension " << d.index;
      // Bytes at the link's rate take utilisation x time; latency and waiting add to it.
      EXPECT_GE(d.busy_ns, d.utilisation * it.total_ns * (1.0 - 1e-9))
          << name << " dimension " << d.index << ": busy " << d.busy_ns << " ns at utilisation "
          << d.utilisation;
      EXPECT_EQ(d.busy_ns > 0.0, d.utilisation > 0.0) << name << " dimension " << d.index;
    }
    ++checked;
  }
  EXPECT_GE(checked, 25u);
}

}  // namespace
}  // namespace hfsim
