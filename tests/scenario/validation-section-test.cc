// The scenario's "validation" block (sim/scenario/validation-section.h): read in the quantities'
// order, echoed so that the echo loads back, and refused at its JSON path with what is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/validation-scenarios.h"

namespace hfsim {
namespace {

using test::Collective;
using test::Training;

UserError Refusal(const nlohmann::json& document) {
  auto scenario = ParseScenario(document);
  EXPECT_FALSE(scenario);
  return scenario ? UserError{} : scenario.Error();
}

TEST(ValidationSection, ReadAndEchoed) {
  auto scenario = ParseScenario(Training());
  ASSERT_TRUE(scenario) << scenario.Error().ToString();
  ASSERT_TRUE(scenario.Value().validation.has_value());
  const ValidationSpec& spec = *scenario.Value().validation;
  // In the quantities' order, whatever the document's.
  ASSERT_EQ(spec.measured.size(), 3u);
  EXPECT_EQ(spec.measured[0].first, ValidationQuantity::kIterationS);
  EXPECT_EQ(spec.measured[0].second, 1.5);
  EXPECT_EQ(spec.measured[1].first, ValidationQuantity::kTokensPerSPerGpu);
  EXPECT_EQ(spec.measured[2].first, ValidationQuantity::kModelTflopsPerGpu);
  EXPECT_EQ(spec.flop_convention, FlopConvention::kMegatronFull);
  EXPECT_EQ(spec.source, "a test");
  const nlohmann::json echo = ScenarioToJson(scenario.Value());
  EXPECT_EQ(echo["validation"], Training()["validation"]);
  auto again = ParseScenario(echo);
  ASSERT_TRUE(again) << again.Error().ToString();
  EXPECT_EQ(ScenarioToJson(again.Value()), echo);
  // A scenario without the block echoes none.
  nlohmann::json plain = Training();
  plain.erase("validation");
  EXPECT_FALSE(ScenarioToJson(ParseScenario(plain).Value()).contains("validation"));
  auto collective = ParseScenario(Collective());
  ASSERT_TRUE(collective) << collective.Error().ToString();
  EXPECT_EQ(collective.Value().validation->size_bytes, 1'000'000'000u);
  EXPECT_EQ(ScenarioToJson(collective.Value())["validation"], Collective()["validation"]);
}

TEST(ValidationSection, RefusedAtItsPath) {
  struct Case {
    nlohmann::json document;
    std::string where;
    std::string says;
  };
  std::vector<Case> cases;
  auto with = [](nlohmann::json document, const std::string& pointer, nlohmann::json value) {
    document[nlohmann::json::json_pointer(pointer)] = std::move(value);
    return document;
  };
  auto without = [](nlohmann::json document, const std::string& pointer) {
    const auto at = nlohmann::json::json_pointer(pointer);
    document[at.parent_pointer()].erase(at.back());
    return document;
  };
  cases.push_back({with(Training(), "/validation/measured", nlohmann::json::object()),
                   "validation.measured", "measures nothing"});
  cases.push_back({with(Training(), "/validation/measured/iteration_s", 0),
                   "validation.measured.iteration_s", "got 0"});
  cases.push_back({with(Training(), "/validation/measured/step_s", 1), "validation.measured.step_s",
                   "unknown key \"step_s\""});
  cases.push_back(
      {with(Training(), "/validation/gpu", "A100"), "validation.gpu", "unknown key \"gpu\""});
  cases.push_back({without(Training(), "/validation/source"), "validation.source", "missing"});
  cases.push_back({with(Training(), "/validation/source", ""), "validation.source", "empty"});
  cases.push_back({without(Training(), "/validation/flop_convention"), "validation.flop_convention",
                   "missing"});
  cases.push_back({with(Training(), "/validation/flop_convention", "full"),
                   "validation.flop_convention", "\"megatron-full\""});
  cases.push_back({with(Collective(), "/validation/flop_convention", "megatron-full"),
                   "validation.flop_convention", "remove it"});
  cases.push_back({with(Training(), "/validation/measured/busbw_GBps", 10),
                   "validation.measured.busbw_GBps", "collective workload"});
  cases.push_back({with(Collective(), "/validation/measured/model_tflops_per_gpu", 1.0),
                   "validation.measured.model_tflops_per_gpu", "training workload"});
  cases.push_back({without(Collective(), "/validation/measured/size_bytes"),
                   "validation.measured.size_bytes", "missing"});
  cases.push_back({with(Collective(), "/validation/measured/size_bytes", 999),
                   "validation.measured.size_bytes", "moves 1000000000 bytes"});
  cases.push_back({with(without(Training(), "/validation/measured/model_tflops_per_gpu"),
                        "/validation/measured/size_bytes", 8),
                   "validation.measured.size_bytes", "goes with busbw_GBps"});
  // A CNN has no tokens to count.
  cases.push_back({with(Training(), "/workload/training/model", "resnet50"),
                   "validation.measured.tokens_per_s_per_gpu", "no sequence length"});
  for (const Case& c : cases) {
    const UserError error = Refusal(c.document);
    EXPECT_EQ(error.where, c.where) << error.ToString();
    EXPECT_NE(error.message.find(c.says), std::string::npos) << error.ToString();
  }
}

}  // namespace
}  // namespace hfsim
