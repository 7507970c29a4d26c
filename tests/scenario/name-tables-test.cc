// The name tables of the user-facing enums (base/name-table.h): each spells every value once,
// spelling and parsing agree, the JSON reader takes a choice through its table and lists the
// table's names when it refuses one, and the loader reads each key through its table.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "base/name-table.h"
#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

// Every value once, every name once, and spelling a value then parsing it gives it back.
template <typename Enum, size_t N>
void ExpectConsistent(const NameTable<Enum, N>& table, const char* what) {
  SCOPED_TRACE(what);
  std::set<Enum> values;
  std::set<std::string_view> names;
  for (const auto& [value, name] : table) {
    EXPECT_TRUE(values.insert(value).second) << name;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(NameIn(table, value), name);
    EXPECT_EQ(ParseIn(table, name), value);
  }
  EXPECT_EQ(ParseIn(table, "no such name"), std::nullopt);
}

TEST(NameTables, EveryTableSpellsEachValueOnceAndParsesItBack) {
  ExpectConsistent(kDimensionKindNames, "dimension kind");
  ExpectConsistent(kCollectiveKindNames, "collective kind");
  ExpectConsistent(kCollectiveAlgorithmNames, "collective algorithm");
  ExpectConsistent(kMultiDimSchemeNames, "multi-dimensional scheme");
  ExpectConsistent(kOverlapModeNames, "overlap");
  ExpectConsistent(kRecomputeNames, "recompute");
  ExpectConsistent(kPipelineScheduleNames, "pipeline schedule");
  ExpectConsistent(kParallelAxisNames, "parallel axis");
  ExpectConsistent(kGraphNodeKindNames, "graph node type");
  ExpectConsistent(kGraphPhaseNames, "graph phase");
  ExpectConsistent(kCongestionControlNames, "congestion control");
  ExpectConsistent(kTransportKindNames, "transport");
  ExpectConsistent(kTcpVariantNames, "TCP variant");
  ExpectConsistent(kPricingModelNames, "pricing model");
  ExpectConsistent(kHostStackKindNames, "host stack");
  ExpectConsistent(kOptimizeObjectiveNames, "optimize objective");
  ExpectConsistent(kTotalRelationNames, "total relation");
  ExpectConsistent(kLinearRelationNames, "linear relation");
  ExpectConsistent(kCostClassNames, "cost class");
  ExpectConsistent(kKeyPartitionNames, "key partition");
  ExpectConsistent(kCompressionSchemeNames, "compression scheme");
  ExpectConsistent(kAggregationModeNames, "aggregation mode");
  ExpectConsistent(kFixedPointSchemeNames, "fixed point");
  ExpectConsistent(kOverflowBehaviourNames, "overflow");
  ExpectConsistent(kValueFormatNames, "value format");
  ExpectConsistent(kGossipRuleNames, "gossip rule");
  ExpectConsistent(kTriggerKindNames, "gossip trigger");
  ExpectConsistent(kThresholdPolicyNames, "threshold policy");
  ExpectConsistent(kTaskKindNames, "learning task");
  ExpectConsistent(kLearningRateScheduleNames, "learning-rate schedule");
  ExpectConsistent(kClassifierKindNames, "classifier");
}

TEST(NameTables, ToStringComesFromTheTable) {
  EXPECT_EQ(ToString(DimensionKind::kFullyConnected), "FullyConnected");
  EXPECT_EQ(ToString(CollectiveAlgorithm::kHalvingDoubling), "halving_doubling");
  EXPECT_EQ(ToString(PipelineSchedule::kOneFOneB), "1f1b");
  EXPECT_EQ(ToString(TriggerKind::kFixedPeriod), "fixed");
  EXPECT_EQ(ToString(LinearRelation::kAtLeast), ">=");
  EXPECT_EQ(ToString(static_cast<TcpVariant>(7)), "?");
}

TEST(NameTables, MessagesListTheNamesInTableOrder) {
  EXPECT_EQ(QuotedAlternatives(kTransportKindNames), "\"rdma\" or \"tcp\"");
  EXPECT_EQ(QuotedAlternatives(kHostStackKindNames),
            "\"none\", \"rdma\", \"rdma_copy\" or \"grpc\"");
  EXPECT_EQ(QuotedList(kHostStackKindNames), "\"none\", \"rdma\", \"rdma_copy\", \"grpc\"");
  EXPECT_EQ(NamesOf(kTotalRelationNames), (std::vector<std::string>{"equal", "at_most"}));
}

TEST(NameTables, TheJsonReaderChoosesThroughATable) {
  const nlohmann::json doc = {{"a", "cubic"}, {"b", "vegas"}, {"c", "step"}};
  const JsonCursor root(doc, "");
  EXPECT_EQ(root.Child("a").Choice(kTcpVariantNames), TcpVariant::kCubic);
  try {
    root.Child("b").Choice(kTcpVariantNames);
    ADD_FAILURE() << "accepted an unknown name";
  } catch (const JsonPathError& error) {
    EXPECT_EQ(error.Path(), "b");
    EXPECT_EQ(error.Message(), "got \"vegas\"; accepted: \"new_reno\", \"cubic\"");
  }
  // Only the table's first values: a graph node's phase ("step" for compute nodes only).
  EXPECT_EQ(root.Child("c").Choice(kGraphPhaseNames, 4), GraphPhase::kStep);
  EXPECT_THROW(root.Child("c").Choice(kGraphPhaseNames, 3), JsonPathError);
}

// The loader reads each of these keys through its table: every name loads, and a wrong one is
// refused at its path with the table's names.
TEST(NameTables, TheLoaderAcceptsEveryNameOfItsTables) {
  for (const auto& [value, name] : kCongestionControlNames) {
    nlohmann::json doc = test::BaseTrainingScenario();
    doc["packet"]["congestion_control"] = name;
    EXPECT_EQ(test::ParseOrDie(doc).packet.congestion_control, value);
  }
  for (const auto& [value, name] : kMultiDimSchemeNames) {
    nlohmann::json doc = test::BaseTrainingScenario();
    doc["communication"]["scheme"] = name;
    EXPECT_EQ(test::ParseOrDie(doc).communication.scheme, value);
  }
  nlohmann::json doc = test::BaseTrainingScenario();
  doc["communication"]["scheme"] = "flat";
  test::ExpectLoadError(doc, "communication.scheme",
                        "got \"flat\"; accepted: \"hierarchical\", \"naive\"");
  doc = test::BaseTrainingScenario();
  doc["topology"]["dimensions"][0]["kind"] = "Mesh";
  test::ExpectLoadError(doc, "topology.dimensions[0].kind",
                        "accepted: " + QuotedList(kDimensionKindNames));
}

}  // namespace
}  // namespace hfsim
