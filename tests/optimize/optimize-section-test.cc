// The "cost" and "optimize" sections: defaults, echo, and every class of bad input with the
// JSON path of the value at fault.
#include <functional>

#include <gtest/gtest.h>

#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

nlohmann::json WithOptimize(nlohmann::json optimize) {
  nlohmann::json d = test::BaseTrainingScenario();  // [Ring 4, Switch 8]
  d["optimize"] = std::move(optimize);
  return d;
}

TEST(OptimizeSection, DefaultsAndEcho) {
  const Scenario s = test::ParseOrDie(WithOptimize({{"total_bandwidth_GBps_per_npu", 300}}));
  EXPECT_TRUE(s.optimize.given);
  EXPECT_EQ(s.optimize.objective, OptimizeObjective::kTime);
  EXPECT_EQ(s.optimize.total, TotalRelation::kEqual);
  EXPECT_EQ(s.optimize.tolerance, 1e-6);
  // Default classes from the outside: the Switch is pod (57.4), the Ring node (4).
  ASSERT_EQ(s.optimize.cost.unit_usd_per_GBps.size(), 2u);
  EXPECT_DOUBLE_EQ(s.optimize.cost.unit_usd_per_GBps[0], 4.0);
  EXPECT_DOUBLE_EQ(s.optimize.cost.unit_usd_per_GBps[1], 57.4);
  const nlohmann::json echo = ScenarioToJson(s);
  EXPECT_EQ(echo["optimize"]["total"], "equal");
  EXPECT_FALSE(echo.contains("cost"));
  // frontier_points only where the loader accepts it back: with time_x_cost.
  EXPECT_FALSE(echo["optimize"].contains("frontier_points"));
  const Scenario again = test::ParseOrDie(echo);
  EXPECT_EQ(ScenarioToJson(again), echo);
}

TEST(OptimizeSection, FrontierPointsEchoedWithTimeXCostOnly) {
  const Scenario s = test::ParseOrDie(WithOptimize({{"objective", "time_x_cost"},
                                                    {"total_bandwidth_GBps_per_npu", 300},
                                                    {"frontier_points", 5}}));
  EXPECT_EQ(s.optimize.frontier_points, 5u);
  const nlohmann::json echo = ScenarioToJson(s);
  EXPECT_EQ(echo["optimize"]["frontier_points"], 5);
  EXPECT_EQ(ScenarioToJson(test::ParseOrDie(echo)), echo);
}

TEST(OptimizeSection, ToleranceDownToTheDocumentedMinimum) {
  const Scenario s = test::ParseOrDie(WithOptimize(
      {{"total_bandwidth_GBps_per_npu", 300}, {"tolerance", OptimizeSpec::kMinTolerance}}));
  EXPECT_EQ(s.optimize.tolerance, 1e-8);
}

TEST(OptimizeSection, NotEchoedWhenAbsent) {
  const Scenario s = test::ParseOrDie(test::BaseTrainingScenario());
  EXPECT_FALSE(ScenarioToJson(s).contains("optimize"));
  EXPECT_FALSE(ScenarioToJson(s).contains("cost"));
}

TEST(OptimizeSection, ExplicitCostRoundTrips) {
  nlohmann::json d = WithOptimize({{"total_bandwidth_GBps_per_npu", 300}});
  d["cost"] = {{"dimensions", {{{"class", "package"}},
                               {{"link_usd_per_GBps", 1}, {"switch_usd_per_GBps", 2},
                                {"nic_usd_per_GBps", 3}}}}};
  const Scenario s = test::ParseOrDie(d);
  EXPECT_DOUBLE_EQ(s.optimize.cost.unit_usd_per_GBps[0], 4.0);
  EXPECT_DOUBLE_EQ(s.optimize.cost.unit_usd_per_GBps[1], 6.0);
  EXPECT_EQ(ScenarioToJson(test::ParseOrDie(ScenarioToJson(s))), ScenarioToJson(s));
}

struct BadInput {
  std::string name;
  std::function<void(nlohmann::json&)> mutate;
  std::string where;
  std::string says;
};

// ctest lists a parameterised test with its printed parameter: print the case's name, not its bytes.
void PrintTo(const BadInput& input, std::ostream* out) { *out << input.name; }

class OptimizeBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(OptimizeBadInput, NamesPathAndAccepted) {
  nlohmann::json d = WithOptimize({{"total_bandwidth_GBps_per_npu", 300}});
  GetParam().mutate(d);
  const auto result = ParseScenario(d);
  ASSERT_FALSE(result) << GetParam().name;
  EXPECT_EQ(result.Error().where, GetParam().where) << result.Error().ToString();
  EXPECT_NE(result.Error().message.find(GetParam().says), std::string::npos)
      << result.Error().ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Classes, OptimizeBadInput,
    ::testing::Values(
        BadInput{"UnknownKey", [](auto& d) { d["optimize"]["budget"] = 1; }, "optimize.budget",
                 "accepted keys here"},
        BadInput{"Objective", [](auto& d) { d["optimize"]["objective"] = "cost"; },
                 "optimize.objective", "\"time_x_cost\""},
        BadInput{"BudgetMissing",
                 [](auto& d) { d["optimize"]["objective"] = "time_under_budget"; }, "optimize",
                 "budget_usd"},
        BadInput{"BudgetWithoutBudgetObjective", [](auto& d) { d["optimize"]["budget_usd"] = 5; },
                 "optimize.budget_usd", "time_under_budget"},
        BadInput{"TotalZero", [](auto& d) { d["optimize"]["total_bandwidth_GBps_per_npu"] = 0; },
                 "optimize.total_bandwidth_GBps_per_npu", "from 0.001"},
        BadInput{"TotalRelation", [](auto& d) { d["optimize"]["total"] = "less"; },
                 "optimize.total", "\"at_most\""},
        BadInput{"TotalRelationWithoutTotal",
                 [](auto& d) {
                   d["optimize"].erase("total_bandwidth_GBps_per_npu");
                   d["optimize"]["total"] = "equal";
                 },
                 "optimize.total", "total_bandwidth_GBps_per_npu"},
        BadInput{"BoundDimension",
                 [](auto& d) { d["optimize"]["bounds"] = {{{"dimension", 2}, {"min_GBps", 1}}}; },
                 "optimize.bounds[0].dimension", "from 0 to 1"},
        BadInput{"BoundEmpty", [](auto& d) { d["optimize"]["bounds"] = {{{"dimension", 0}}}; },
                 "optimize.bounds[0]", "min_GBps"},
        BadInput{"BoundMaxBelowMin",
                 [](auto& d) {
                   d["optimize"]["bounds"] = {{{"dimension", 0}, {"min_GBps", 50}, {"max_GBps", 20}}};
                 },
                 "optimize.bounds[0].max_GBps", "below min_GBps 50"},
        BadInput{"BoundTwice",
                 [](auto& d) {
                   d["optimize"]["bounds"] = {{{"dimension", 0}, {"min_GBps", 1}},
                                              {{"dimension", 0}, {"max_GBps", 9}}};
                 },
                 "optimize.bounds[1].dimension", "already has bounds"},
        BadInput{"FixedNegative",
                 [](auto& d) {
                   d["optimize"]["fixed"] = {{{"dimension", 1}, {"bandwidth_GBps", -3}}};
                 },
                 "optimize.fixed[0].bandwidth_GBps", "from 0.001"},
        BadInput{"LinearLength",
                 [](auto& d) {
                   d["optimize"]["linear"] = {{{"coefficients", {1}}, {"relation", "<="},
                                               {"value_GBps", 5}}};
                 },
                 "optimize.linear[0].coefficients", "1 entries"},
        BadInput{"LinearAllZero",
                 [](auto& d) {
                   d["optimize"]["linear"] = {{{"coefficients", {0, 0}}, {"relation", "<="},
                                               {"value_GBps", 5}}};
                 },
                 "optimize.linear[0].coefficients", "non-zero"},
        BadInput{"LinearRelation",
                 [](auto& d) {
                   d["optimize"]["linear"] = {{{"coefficients", {1, -1}}, {"relation", "<"},
                                               {"value_GBps", 5}}};
                 },
                 "optimize.linear[0].relation", "\"<=\""},
        BadInput{"FrontierPoints",
                 [](auto& d) {
                   d["optimize"]["objective"] = "time_x_cost";
                   d["optimize"]["frontier_points"] = 1;
                 },
                 "optimize.frontier_points", "from 2 to 1000"},
        BadInput{"Tolerance", [](auto& d) { d["optimize"]["tolerance"] = 0.5; },
                 "optimize.tolerance", "at most 0.1"},
        // The solver cannot certify gaps that small (docs/optimize.md section 8).
        BadInput{"ToleranceBelowMinimum", [](auto& d) { d["optimize"]["tolerance"] = 1e-9; },
                 "optimize.tolerance",
                 "got 1e-09, below 1e-08, the smallest gap the solver certifies reliably"},
        BadInput{"ToleranceZero", [](auto& d) { d["optimize"]["tolerance"] = 0; },
                 "optimize.tolerance", "above 0"},
        // frontier_points only means something to the time_x_cost sweep.
        BadInput{"FrontierPointsWithTime", [](auto& d) { d["optimize"]["frontier_points"] = 16; },
                 "optimize.frontier_points",
                 "got 16 with \"objective\": \"time\", which does not use it"},
        BadInput{"FrontierPointsWithTimeUnderBudget",
                 [](auto& d) {
                   d["optimize"]["objective"] = "time_under_budget";
                   d["optimize"]["budget_usd"] = 1e6;
                   d["optimize"]["frontier_points"] = 8;
                 },
                 "optimize.frontier_points",
                 "accepted only with \"objective\": \"time_x_cost\""},
        BadInput{"CostLength", [](auto& d) { d["cost"] = {{"dimensions", {{{"class", "pod"}}}}}; },
                 "cost.dimensions", "1 entries"},
        BadInput{"CostClass",
                 [](auto& d) {
                   d["cost"] = {{"dimensions", {{{"class", "rack"}}, {{"class", "pod"}}}}};
                 },
                 "cost.dimensions[0].class", "\"chiplet\""},
        BadInput{"CostClassAndPrices",
                 [](auto& d) {
                   d["cost"] = {{"dimensions", {{{"class", "node"}, {"link_usd_per_GBps", 1}},
                                                {{"class", "pod"}}}}};
                 },
                 "cost.dimensions[0]", "not both"},
        BadInput{"SwitchInChiplet",
                 [](auto& d) {
                   d["cost"] = {{"dimensions", {{{"class", "node"}}, {{"class", "chiplet"}}}}};
                 },
                 "cost.dimensions[1]", "no switch price"},
        BadInput{"NegativePrice",
                 [](auto& d) {
                   d["cost"] = {{"dimensions", {{{"link_usd_per_GBps", -1}}, {{"class", "pod"}}}}};
                 },
                 "cost.dimensions[0].link_usd_per_GBps", "accepted"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace hfsim
