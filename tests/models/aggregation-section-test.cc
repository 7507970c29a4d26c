// The scenario's "aggregation" section: defaults, the echo, and errors that name the JSON path,
// the value and what is accepted, including the Tofino fit naming the limit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

nlohmann::json WithAggregation(const nlohmann::json& section) {
  nlohmann::json document = nlohmann::json::parse(R"({
    "topology": {"dimensions": [{"kind": "Switch", "size": 8, "bandwidth_GBps": 50,
                                 "latency_ns": 500}]},
    "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1048576}}
  })");
  document["aggregation"] = section;
  return document;
}

UserError ErrorOf(const nlohmann::json& section) {
  auto result = ParseScenario(WithAggregation(section));
  EXPECT_FALSE(result) << "accepted " << section.dump();
  return result ? UserError{} : result.Error();
}

TEST(AggregationSection, EmptySectionGivesSwitchMlDefaults) {
  auto result = ParseScenario(WithAggregation(nlohmann::json::object()));
  ASSERT_TRUE(result) << result.Error().ToString();
  ASSERT_TRUE(result.Value().aggregation);
  const AggregationSwitchSpec& spec = *result.Value().aggregation;
  EXPECT_EQ(spec.mode, AggregationMode::kAllReduce);
  EXPECT_EQ(spec.values_per_packet, 64u);
  EXPECT_EQ(spec.scheme, FixedPointScheme::kBlockExponent);
  EXPECT_EQ(spec.value_bits, 28u);  // 31 - ceil(log2 8)
  EXPECT_TRUE(spec.shadow_copies);
  EXPECT_EQ(spec.udp_port, 0xBEE0);
}

TEST(AggregationSection, AbsentSectionLeavesNoSpecAndNoEcho) {
  nlohmann::json document = WithAggregation({});
  document.erase("aggregation");
  auto result = ParseScenario(document);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result.Value().aggregation);
  EXPECT_FALSE(ScenarioToJson(result.Value()).contains("aggregation"));
}

TEST(AggregationSection, EchoReloadsToTheSameSpec) {
  const nlohmann::json section = {{"mode", "parameter_server"},      {"workers", 20},
                                  {"fixed_point", "fixed_scale"},    {"fixed_scale", 1e6},
                                  {"overflow", "saturate"},          {"server_shards", 4},
                                  {"hot_key_capacity_keys", 100000}, {"udp_port", 0xBEE3},
                                  {"tofino_generation", 2},          {"values_per_packet", 32}};
  auto first = ParseScenario(WithAggregation(section));
  ASSERT_TRUE(first) << first.Error().ToString();
  const nlohmann::json echo = ScenarioToJson(first.Value());
  EXPECT_EQ(echo["aggregation"]["value_bits"], 31);  // saturating adds: all 31 bits
  EXPECT_EQ(echo["aggregation"]["server_shards"], 4);
  auto second = ParseScenario(echo);
  ASSERT_TRUE(second) << second.Error().ToString();
  EXPECT_EQ(ScenarioToJson(second.Value()), echo);
  EXPECT_EQ(second.Value().aggregation->JobId(), 3u);
}

TEST(AggregationSection, OutOfRangeValuesNameThePathAndTheRange) {
  UserError e = ErrorOf({{"udp_port", 4791}});
  EXPECT_EQ(e.where, "aggregation.udp_port");
  EXPECT_EQ(e.message, "got 4791; accepted: an integer from 48864 to 48879");
  e = ErrorOf({{"mode", "ring"}});
  EXPECT_EQ(e.where, "aggregation.mode");
  EXPECT_NE(e.message.find("\"allreduce\", \"parameter_server\""), std::string::npos) << e.message;
  e = ErrorOf({{"value_bits", 32}});
  EXPECT_EQ(e.where, "aggregation.value_bits");
  EXPECT_EQ(e.message, "got 32; accepted: an integer from 1 to 31");
  e = ErrorOf({{"workers", 0}});
  EXPECT_EQ(e.where, "aggregation.workers");
  e = ErrorOf({{"fixed_scale", 1000}});
  EXPECT_EQ(e.where, "aggregation.fixed_scale");
  EXPECT_NE(e.message.find("\"fixed_point\": \"fixed_scale\""), std::string::npos);
  e = ErrorOf({{"server_shards", 2}});
  EXPECT_EQ(e.where, "aggregation.server_shards");
  e = ErrorOf({{"tofino_generation", 3}});
  EXPECT_EQ(e.message, "got 3; accepted: an integer from 1 to 2");
  e = ErrorOf({{"slots", 4}});
  EXPECT_EQ(e.where, "aggregation.slots");
  EXPECT_NE(e.message.find("unknown key"), std::string::npos);
}

TEST(AggregationSection, SpecsThatDoNotFitTofinoNameTheLimit) {
  UserError e = ErrorOf({{"workers", 33}});
  EXPECT_EQ(e.where, "aggregation.workers");
  EXPECT_EQ(e.message,
            "does not fit Tofino-1: limit \"bitmap_bits\" (uses 33, has 32): workers 33 need a "
            "33-bit worker bitmap per slot and Tofino-1 has 32-bit register elements (at most 32 "
            "workers per job)");
  e = ErrorOf({{"values_per_packet", 96}});
  EXPECT_EQ(e.where, "aggregation.values_per_packet");
  EXPECT_NE(e.message.find("limit \"value_stages\" (uses 13, has 9)"), std::string::npos)
      << e.message;
  e = ErrorOf({{"aggregator_slots", 10000}});
  EXPECT_EQ(e.where, "aggregation.aggregator_slots");
  EXPECT_NE(e.message.find("limit \"register_entries\" (uses 20000, has 16384)"), std::string::npos)
      << e.message;
  e = ErrorOf({{"fixed_point", "fixed_scale"}, {"workers", 16}, {"value_bits", 28}});
  EXPECT_EQ(e.where, "aggregation.value_bits");
  EXPECT_NE(e.message.find("limit \"int32_sum_bits\" (uses 33, has 32)"), std::string::npos)
      << e.message;
  // The same with saturating adds fits.
  EXPECT_TRUE(ParseScenario(WithAggregation({{"fixed_point", "fixed_scale"},
                                             {"workers", 16},
                                             {"value_bits", 28},
                                             {"overflow", "saturate"}})));
}

}  // namespace
}  // namespace hfsim
