// Sequence parallelism ("parallelism": {"sequence_parallel": true}): every derived tensor-
// parallel all-reduce runs as an all-gather and a reduce-scatter of the same buffer. Against
// the plain job: the same bytes on every dimension (each half moves (n - 1)/n of the buffer,
// the all-reduce twice that), twice the collectives, in the data x tensor loop and in a
// pipeline; refused without tensor parallelism; echoed back.
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

void ExpectSameTrafficAsAllReduces(nlohmann::json doc) {
  const Report plain = AnalyticalEngine().Run(ParseOrDie(doc));
  doc["workload"]["training"]["parallelism"]["sequence_parallel"] = true;
  const Scenario scenario = ParseOrDie(doc);
  const Report split = AnalyticalEngine().Run(scenario);
  ASSERT_EQ(split.dimensions.size(), plain.dimensions.size());
  for (size_t d = 0; d < plain.dimensions.size(); ++d) {
    EXPECT_DOUBLE_EQ(split.dimensions[d].traffic_bytes_per_npu, plain.dimensions[d].traffic_bytes_per_npu) << d;
  }
  EXPECT_DOUBLE_EQ(split.total_traffic_bytes, plain.total_traffic_bytes);
  uint64_t all_reduces = 0, gathers = 0, scatters = 0;
  for (const CollectiveReport& c : plain.collectives) {
    if (c.group == "tensor" && c.kind == CollectiveKind::kAllReduce) all_reduces += c.occurrences;
  }
  for (const CollectiveReport& c : split.collectives) {
    EXPECT_FALSE(c.group == "tensor" && c.kind == CollectiveKind::kAllReduce);
    if (c.kind == CollectiveKind::kAllGather) gathers += c.occurrences;
    if (c.kind == CollectiveKind::kReduceScatter) scatters += c.occurrences;
  }
  EXPECT_GT(all_reduces, 0u);
  EXPECT_EQ(gathers, all_reduces);
  EXPECT_EQ(scatters, all_reduces);
  // The echo keeps it.
  EXPECT_EQ(ParseOrDie(ScenarioToJson(scenario)).training.config.sequence_parallel, true);
}

TEST(SequenceParallel, SameTrafficAsTheAllReducesItReplaces) {
  ExpectSameTrafficAsAllReduces(test::BaseTrainingScenario());  // data 8 x tensor 4
}

TEST(SequenceParallel, SameTrafficInAPipeline) {
  nlohmann::json doc = test::BaseTrainingScenario();  // 32 NPUs: tensor 4 x data 2 x pipeline 4
  doc["workload"]["training"]["parallelism"] = {
      {"tensor", 4}, {"data", 2}, {"pipeline", 4}, {"micro_batches", 4}};
  ExpectSameTrafficAsAllReduces(doc);
}

TEST(SequenceParallel, NeedsTensorParallelism) {
  nlohmann::json doc = test::BaseTrainingScenario();
  doc["workload"]["training"]["parallelism"] = {{"data", 32}, {"sequence_parallel", true}};
  ExpectLoadError(doc, "workload.training.parallelism.sequence_parallel", "\"tensor\" above 1");
}

}  // namespace
}  // namespace hfsim
