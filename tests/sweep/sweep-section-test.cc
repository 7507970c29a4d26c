// The "sweep" section: every way to get it wrong names the JSON path, the value and what is
// accepted; a parameter value that makes a bad scenario is blamed on that value; the section is
// echoed back so that the echo reloads to the same sweep.
#include "sim/scenario/sweep-section.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario-parser.h"
#include "sim/sweep/sweep-plan.h"
#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

using nlohmann::json;
using test::CollectiveSweep;
using test::RingDims;

/// A 2-D collective scenario with a "communication" section (so its keys can be swept).
json Document(const json& sweep) {
  json document = CollectiveSweep(RingDims(2), sweep);
  document["communication"] = {{"chunks", 1}};
  return document;
}

json Parameter(const std::string& path, const json& values) {
  return {{"path", path}, {"values", values}};
}

/// The loader refuses `document` at `where` with a message holding every one of `parts`.
void ExpectLoadError(const json& document, const std::string& where,
                     const std::vector<std::string>& parts) {
  auto parsed = ParseScenario(document);
  ASSERT_FALSE(parsed) << "accepted: " << document["sweep"].dump();
  EXPECT_EQ(parsed.Error().where, where) << parsed.Error().ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(parsed.Error().message.find(part), std::string::npos)
        << "\"" << part << "\" not in: " << parsed.Error().ToString();
  }
}

/// The loader accepts `document` but SweepPlan::Build refuses it at `where`.
void ExpectPlanError(const json& document, const std::string& where,
                     const std::vector<std::string>& parts) {
  auto parsed = ParseScenario(document);
  ASSERT_TRUE(parsed) << parsed.Error().ToString();
  auto built = SweepPlan::Build(document, parsed.Value());
  ASSERT_FALSE(built) << "built a plan of " << built.Value().PointCount() << " points";
  EXPECT_EQ(built.Error().where, where) << built.Error().ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(built.Error().message.find(part), std::string::npos)
        << "\"" << part << "\" not in: " << built.Error().ToString();
  }
}

TEST(SweepSection, NothingToSweep) {
  ExpectLoadError(Document(json::object()), "sweep",
                  {"nothing to sweep", "\"bandwidth_GBps\"", "\"parameters\""});
  ExpectLoadError(Document({{"engine", "packet"}}), "sweep", {"nothing to sweep"});
}

TEST(SweepSection, UnknownKeyAndEngine) {
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {{1}, {2}}}}}, {"points", 3}}),
                  "sweep.points",
                  {"unknown key \"points\"", "\"engine\"", "\"bandwidth_GBps\"", "\"parameters\""});
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {{1}, {2}}}}}, {"engine", "ns3"}}),
                  "sweep.engine", {"got \"ns3\"", "\"analytical\"", "\"packet\""});
}

TEST(SweepSection, ExactlyOneKindOfAllocations) {
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {{1}, {2}}}, {"list", {{1, 2}}}}}}),
                  "sweep.bandwidth_GBps", {"exactly one of", "\"grid\"", "\"split\"", "\"list\""});
  ExpectLoadError(Document({{"bandwidth_GBps", json::object()}}), "sweep.bandwidth_GBps",
                  {"exactly one of"});
}

TEST(SweepSection, GridNeedsOneAxisPerDimension) {
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {{1}, {2}, {3}}}}}}),
                  "sweep.bandwidth_GBps.grid", {"3 entries", "accepted: 2 to 2"});
  ExpectLoadError(Document({{"bandwidth_GBps", {{"list", {{1, 2}, {1, 2, 3}}}}}}),
                  "sweep.bandwidth_GBps.list[1]", {"3 entries", "accepted: 2 to 2"});
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {{1}, "fast"}}}}}),
                  "sweep.bandwidth_GBps.grid[1]", {"\"fast\"", "accepted: an array of bandwidths"});
}

TEST(SweepSection, AxisToBelowFrom) {
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"grid", {{{"from", 50}, {"to", 10}, {"step", 5}}, {1}}}}}}),
      "sweep.bandwidth_GBps.grid[0].to", {"got 10", "below \"from\" 50", "accepted: at least 50"});
}

TEST(SweepSection, BadStep) {
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"grid", {{1}, {{"from", 10}, {"to", 20}, {"step", 0}}}}}}}),
      "sweep.bandwidth_GBps.grid[1].step", {"got 0", "accepted: a number above 0"});
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"grid", {{1}, {{"from", 10}, {"to", 20}, {"step", -1}}}}}}}),
      "sweep.bandwidth_GBps.grid[1].step", {"got -1", "above 0"});
  // 10^9 values on one axis.
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"grid", {{{"from", 1}, {"to", 1e6}, {"step", 1e-3}}, {1}}}}}}),
      "sweep.bandwidth_GBps.grid[0].step",
      {"gives", "values from 1 to 1000000", "accepted: at most 1000000 per axis"});
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"split", {{"total_GBps", 100}, {"step_GBps", 0}}}}}}),
      "sweep.bandwidth_GBps.split.step_GBps", {"got 0", "above 0"});
  // 10, 13, 16, 19: "to" 20 would be left out silently.
  ExpectLoadError(
      Document({{"bandwidth_GBps", {{"grid", {{1}, {{"from", 10}, {"to", 20}, {"step", 3}}}}}}}),
      "sweep.bandwidth_GBps.grid[1].step",
      {"got 3", "does not divide the range from 10 to 20", "stop at 19"});
}

TEST(SweepSection, SplitNeedsRoomForEveryMinimum) {
  ExpectLoadError(
      Document({{"bandwidth_GBps",
                 {{"split", {{"total_GBps", 100}, {"step_GBps", 10}, {"min_GBps", 60}}}}}}),
      "sweep.bandwidth_GBps.split", {"2 dimensions", "min_GBps 60", "total_GBps 100", "accepted"});
  ExpectLoadError(Document({{"bandwidth_GBps", {{"split", {{"step_GBps", 10}}}}}}),
                  "sweep.bandwidth_GBps.split.total_GBps", {"missing"});
  json one_dimension = CollectiveSweep(
      RingDims(1), {{"bandwidth_GBps", {{"split", {{"total_GBps", 100}, {"step_GBps", 10}}}}}});
  ExpectLoadError(one_dimension, "sweep.bandwidth_GBps.split", {"at least 2 dimensions"});
}

TEST(SweepSection, TooManyPoints) {
  // 20000 x 20000 grid points; kMaxPoints is 2^27.
  const json axis = {{"from", 1}, {"to", 20000}, {"step", 1}};
  ExpectLoadError(Document({{"bandwidth_GBps", {{"grid", {axis, axis}}}}}),
                  "sweep.bandwidth_GBps.grid",
                  {"400000000 points", fmt::format("at most {}", SweepSpec::kMaxPoints)});
  // Every split of 10^6 in steps of 1 over 4 dimensions: C(999999, 3) points.
  json four = CollectiveSweep(
      RingDims(4), {{"bandwidth_GBps", {{"split", {{"total_GBps", 1e6}, {"step_GBps", 1}}}}}});
  ExpectLoadError(four, "sweep.bandwidth_GBps.split",
                  {fmt::format("at most {}", SweepSpec::kMaxPoints), "larger step_GBps"});
  // Just at the limit is fine: 2^27 = 8192 x 16384.
  const json a = {{"from", 1}, {"to", 8192}, {"step", 1}};
  const json b = {{"from", 1}, {"to", 16384}, {"step", 1}};
  EXPECT_TRUE(ParseScenario(Document({{"bandwidth_GBps", {{"grid", {a, b}}}}})));
}

TEST(SweepSection, TooManyPointsWithParameters) {
  // 2000 x 2000 combinations x 99999 splits.
  json values = json::array();
  for (int i = 1; i <= 2000; ++i) values.push_back(i);
  ExpectPlanError(
      Document({{"bandwidth_GBps", {{"split", {{"total_GBps", 1e5}, {"step_GBps", 1}}}}},
                {"parameters",
                 {Parameter("workload.collective.size_bytes", values),
                  Parameter("topology.dimensions[0].latency_ns", values)}}}),
      "sweep",
      {"4000000 parameter combinations", "99999 allocations",
       fmt::format("exceed {}", SweepSpec::kMaxPoints)});
}

TEST(SweepSection, TooManyCombinationsDoNotWrapAround) {
  // 8 parameters of 256 values: 2^64 combinations, which a 64-bit count wraps to 0.
  json values = json::array();
  for (int i = 1; i <= 256; ++i) values.push_back(i);
  json parameters = json::array();
  for (const char* path : {"seed", "workload.collective.size_bytes", "communication.chunks",
                           "topology.dimensions[0].latency_ns", "topology.dimensions[1].latency_ns",
                           "topology.dimensions[0].size", "topology.dimensions[1].size",
                           "communication.endpoint_delay_ns"}) {
    parameters.push_back(Parameter(path, values));
  }
  ExpectPlanError(Document({{"parameters", parameters}}), "sweep",
                  {"parameter combinations", fmt::format("exceed {}", SweepSpec::kMaxPoints)});
}

TEST(SweepSection, BadParameterPath) {
  for (const char* bad : {"workload..collective", "workload.collective.", ".name", "[0].size",
                          "topology.dimensions[x].size", "topology.dimensions[].size",
                          "topology.dimensions[0]size", "a/b", ""}) {
    ExpectLoadError(Document({{"parameters", {Parameter(bad, {1})}}}), "sweep.parameters[0].path",
                    {fmt::format("got \"{}\"", bad), "accepted: keys joined by '.'"});
  }
  ExpectLoadError(Document({{"parameters", {Parameter("seed", json::array())}}}),
                  "sweep.parameters[0].values", {"0 entries", "accepted: 1 to"});
  ExpectLoadError(Document({{"parameters", {{{"path", "seed"}}}}}), "sweep.parameters[0].values",
                  {"missing"});
}

TEST(SweepSection, PathIntoTheSweepItself) {
  ExpectLoadError(Document({{"parameters", {Parameter("sweep.engine", {"packet"})}}}),
                  "sweep.parameters[0].path", {"\"sweep.engine\"", "its own section", "accepted"});
  ExpectLoadError(Document({{"parameters", {Parameter("sweep", {1})}}}), "sweep.parameters[0].path",
                  {"its own section"});
}

TEST(SweepSection, TopologyBandwidthsTogetherWithAllocations) {
  const json grid = {{"grid", {{1, 2}, {3}}}};
  ExpectLoadError(
      Document({{"bandwidth_GBps", grid},
                {"parameters",
                 {Parameter("seed", {1, 2}),
                  Parameter("topology.dimensions[1].bandwidth_GBps", {5, 6})}}}),
      "sweep.parameters[1].path",
      {"\"topology.dimensions[1].bandwidth_GBps\"", "already swept by \"bandwidth_GBps\""});
  // Without "bandwidth_GBps" the topology's bandwidths are an ordinary parameter.
  EXPECT_TRUE(ParseScenario(
      Document({{"parameters", {Parameter("topology.dimensions[1].bandwidth_GBps", {5, 6})}}})));
}

TEST(SweepSection, DuplicatePath) {
  ExpectLoadError(Document({{"parameters",
                             {Parameter("seed", {1}), Parameter("communication.chunks", {1}),
                              Parameter("seed", {2})}}}),
                  "sweep.parameters[2].path", {"\"seed\" is swept twice", "accepted"});
}

TEST(SweepSection, ValueThatMakesABadScenarioIsNamed) {
  // The third combination (-5, 1) is the first bad one: parameter 0's value 1.
  ExpectPlanError(Document({{"parameters",
                             {Parameter("workload.collective.size_bytes", {1024, -5}),
                              Parameter("communication.chunks", {1, 2})}}}),
                  "sweep.parameters[0].values[1]",
                  {"makes a bad scenario", "workload.collective.size_bytes", "got -5"});
  ExpectPlanError(
      Document({{"parameters",
                 {Parameter("seed", {1, 2}), Parameter("communication.chunks", {1, 2, 0})}}}),
      "sweep.parameters[1].values[2]", {"makes a bad scenario", "communication.chunks", "got 0"});
  ExpectPlanError(Document({{"parameters", {Parameter("topology.dimensions[0].kind", {"Torus"})}}}),
                  "sweep.parameters[0].values[0]", {"makes a bad scenario", "\"Torus\""});
}

TEST(SweepSection, ValueThatBreaksAnotherKeyIsNamed) {
  // A 4 x 8 fabric with data 8 x tensor 4: a Switch of 3 breaks the parallelism, which the loader
  // reports at workload.training.parallelism, not at the swept key.
  const json document = {{"topology",
                          {{"dimensions", test::Dims(test::Dim("Ring", 4, 100, 50),
                                                     test::Dim("Switch", 8, 25, 500))}}},
                         {"workload",
                          {{"training",
                            {{"model", "gpt2_small"},
                             {"global_batch_samples", 64},
                             {"parallelism", {{"data", 8}, {"tensor", 4}}}}}}},
                         {"communication", {{"chunks", 1}}},
                         {"sweep",
                          {{"parameters",
                            {Parameter("topology.dimensions[1].size", {8, 3}),
                             Parameter("communication.chunks", {1, 2})}}}}};
  ExpectPlanError(document, "sweep.parameters[0].values[1]",
                  {"makes a bad scenario", "workload.training.parallelism"});
}

TEST(SweepSection, PathNotInTheScenario) {
  ExpectPlanError(Document({{"parameters", {Parameter("topology.dimensions[5].size", {2})}}}),
                  "sweep.parameters[0].path",
                  {"\"topology.dimensions[5].size\" is not in the scenario", "accepted"});
  ExpectPlanError(Document({{"parameters", {Parameter("npu.peak_TFLOPS", {100})}}}),
                  "sweep.parameters[0].path", {"\"npu.peak_TFLOPS\" is not in the scenario"});
  ExpectPlanError(Document({{"parameters", {Parameter("name.first", {"x"})}}}),
                  "sweep.parameters[0].path", {"is not in the scenario"});
  // A new key of an existing object is written in (and checked by the loader).
  json document = Document({{"parameters", {Parameter("communication.scheme", {"naive"})}}});
  auto parsed = ParseScenario(document);
  ASSERT_TRUE(parsed);
  auto built = SweepPlan::Build(document, parsed.Value());
  ASSERT_TRUE(built) << built.Error().ToString();
  EXPECT_EQ(built.Value().Combinations()[0].scenario.communication.scheme, MultiDimScheme::kNaive);
}

TEST(SweepSection, PlanNeedsASweepSection) {
  json document = Document({{"parameters", {Parameter("seed", {1})}}});
  document.erase("sweep");
  auto parsed = ParseScenario(document);
  ASSERT_TRUE(parsed);
  auto built = SweepPlan::Build(document, parsed.Value());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.Error().where, "sweep");
  EXPECT_NE(built.Error().message.find("missing"), std::string::npos);
}

TEST(SweepSection, PathToPointer) {
  const std::vector<std::pair<std::string, std::string>> good = {
      {"name", "/name"},
      {"workload.collective.size_bytes", "/workload/collective/size_bytes"},
      {"topology.dimensions[0].size", "/topology/dimensions/0/size"},
      {"a[1][22]", "/a/1/22"},
      {"a[3].b[4]", "/a/3/b/4"},
      {"size_MiB", "/size_MiB"}};
  for (const auto& [path, pointer] : good) {
    const auto got = PathToPointer(path);
    ASSERT_TRUE(got.has_value()) << path;
    EXPECT_EQ(got->to_string(), pointer) << path;
  }
  for (const char* bad : {"", ".", ".a", "a.", "a..b", "[0]", "a[]", "a[x]", "a[-1]", "a[0",
                          "a[0]b", "a]", "a/b", "a~b", "a[1234567890]", "a.[0]"}) {
    EXPECT_FALSE(PathToPointer(bad).has_value()) << bad;
  }
}

TEST(SweepSection, EchoReloadsToTheSameSweep) {
  const json sweep = {
      {"engine", "packet"},
      {"bandwidth_GBps", {{"grid", {{{"from", 0.1}, {"to", 0.5}, {"step", 0.2}}, {25, 50, 100}}}}},
      {"parameters",
       {Parameter("workload.collective.size_bytes", {1024, 4096}),
        Parameter("communication.scheme", {"naive", "hierarchical"})}}};
  const Scenario scenario = test::ParseOrFail(Document(sweep));
  const json echo = ScenarioToJson(scenario);
  EXPECT_EQ(echo["sweep"], sweep);  // as written: axes stay from/to/step
  const Scenario again = test::ParseOrFail(echo);
  EXPECT_TRUE(again.sweep.given);
  EXPECT_EQ(again.sweep.engine, EngineKind::kPacket);
  EXPECT_EQ(again.sweep.allocations, AllocationSetKind::kGrid);
  EXPECT_EQ(again.sweep.grid, (std::vector<std::vector<double>>{{0.1, 0.3, 0.5}, {25, 50, 100}}));
  ASSERT_EQ(again.sweep.parameters.size(), 2u);
  EXPECT_EQ(again.sweep.parameters[1].path, "communication.scheme");
  EXPECT_EQ(again.sweep.parameters[1].values, (std::vector<json>{"naive", "hierarchical"}));
  EXPECT_EQ(ScenarioToJson(again), echo);

  // A split and a list round-trip too; a scenario without the section echoes none.
  for (const json& allocations :
       {json{{"split", {{"total_GBps", 90}, {"step_GBps", 7.5}, {"min_GBps", 15}}}},
        json{{"list", {{1, 2}, {3, 4.5}}}}}) {
    const Scenario s = test::ParseOrFail(Document({{"bandwidth_GBps", allocations}}));
    const Scenario r = test::ParseOrFail(ScenarioToJson(s));
    EXPECT_EQ(ScenarioToJson(r)["sweep"], (json{{"bandwidth_GBps", allocations}}));
    EXPECT_EQ(r.sweep.allocations, s.sweep.allocations);
    EXPECT_EQ(r.sweep.list, s.sweep.list);
    EXPECT_EQ(r.sweep.split.total_GBps, s.sweep.split.total_GBps);
    EXPECT_EQ(r.sweep.split.min_GBps, s.sweep.split.min_GBps);
  }
  json plain = Document({{"parameters", {Parameter("seed", {1})}}});
  plain.erase("sweep");
  EXPECT_FALSE(ScenarioToJson(test::ParseOrFail(plain)).contains("sweep"));
}

TEST(SweepSection, EngineIsNotAParameter) {
  ExpectLoadError(Document({{"parameters", json::array({Parameter("engine", {"analytical", "packet"})})}}),
                  "sweep.parameters[0].path", {"\"engine\"", "sweep.engine", "--engine"});
}

TEST(SweepSection, ValueWithALineBreakIsRefused) {
  // One CSV cell per value: a line break would split the row and break --resume.
  ExpectLoadError(Document({{"parameters", json::array({Parameter("name", {"a", "b\nc"})})}}),
                  "sweep.parameters[0].values[1]", {"line break"});
}

}  // namespace
}  // namespace hfsim
