// The Tofino back end's rules (p4/backend-rules.h). Each rule fails on what the compiler
// rejected: tests/p4/fixtures/rejected-switchml-tofino1.p4 is the program hfsim generated for
// configs/p4-switchml-tofino1.json before this checker existed (the back end refused it), and the
// parameter-server shard computation is an inline snippet. tests/p4/fixtures/rejected-libra-tofino2.p4
// is the Tofino-2 parameter-server program from before the cold-key table (the back end refused
// its `key_offset >= HOT_KEY_CAPACITY`). Every program the generator writes now
// keeps every rule: the shipped configs and a spread of specs over the generator's branches.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "models/aggregation/tofino-resources.h"
#include "p4/backend-rules.h"
#include "p4/p4-program.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = HFSIM_SOURCE_DIR;

std::string Fixture(const std::string& name) {
  std::ifstream file(kSource / "tests/p4/fixtures" / name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string RejectedProgram() { return Fixture("rejected-switchml-tofino1.p4"); }

// The violations of `rule` whose place or message mentions `needle`.
size_t Count(const std::vector<BackendRuleViolation>& violations, const std::string& rule,
             const std::string& needle = "") {
  size_t count = 0;
  for (const BackendRuleViolation& v : violations) {
    if (v.rule == rule && (v.where + " " + v.message).find(needle) != std::string::npos) ++count;
  }
  return count;
}

// The rules' findings on `frame` with its `placeholder` replaced by `text`.
std::vector<BackendRuleViolation> CheckWith(std::string frame, const std::string& placeholder,
                                            const std::string& text) {
  frame.replace(frame.find(placeholder), placeholder.size(), text);
  return CheckTofinoBackendRules(frame);
}

std::string Describe(const std::vector<BackendRuleViolation>& violations) {
  std::string out;
  for (const BackendRuleViolation& v : violations) {
    out += v.rule + " at " + v.where + ": " + v.message + "\n";
  }
  return out;
}

TEST(BackendRules, RegisterResultTypeFailsOnTheCastExponent) {
  const auto violations = CheckTofinoBackendRules(RejectedProgram());
  // Write, max and read of the int<16> exponent register, each cast to the header's int<8>.
  EXPECT_EQ(Count(violations, kRuleRegisterResultType, "max_exponent_"), 3u) << Describe(violations);
}

TEST(BackendRules, SingleStageActionFailsOnTwoOperationsOnOneField) {
  const auto violations = CheckTofinoBackendRules(RejectedProgram());
  EXPECT_EQ(Count(violations, kRuleSingleStageAction,
                  "hdr.agg.flags = (hdr.agg.flags & FLAG_SLOT_SET) | retransmission"),
            1u)
      << Describe(violations);
  // A parameter server's owner shard as a shift and a mask, and as the slice that replaced it.
  const std::string shard = R"(
header aggregation_h { bit<32> key_offset; }
struct ingress_headers_t { aggregation_h agg; }
struct ingress_metadata_t { bit<8> shard; bit<8> copy; }
const bit<32> SHARD_SHIFT = 5;
const bit<32> SHARD_MASK = 3;
control Ingress(inout ingress_headers_t hdr, inout ingress_metadata_t meta) {
    action twice() {
        meta.shard = 1;
        meta.copy = meta.shard;
        meta.shard = 2;
    }
    apply {
        SHIFT_AND_MASK
    }
}
)";
  auto with = [&](const std::string& statement) {
    return CheckWith(shard, "SHIFT_AND_MASK", statement);
  };
  const auto shifted = with("meta.shard = (hdr.agg.key_offset >> SHARD_SHIFT) & SHARD_MASK;");
  EXPECT_EQ(Count(shifted, kRuleSingleStageAction, "meta.shard = (hdr.agg.key_offset"), 1u)
      << Describe(shifted);
  const auto sliced = with("meta.shard[1:0] = hdr.agg.key_offset[6:5];");
  EXPECT_EQ(Count(sliced, kRuleSingleStageAction, "meta.shard[1:0]"), 0u) << Describe(sliced);
  // In a declared action: a field read after it is written, and written twice.
  EXPECT_EQ(Count(sliced, kRuleSingleStageAction, "reads meta.shard, written earlier"), 1u);
  EXPECT_EQ(Count(sliced, kRuleSingleStageAction, "meta.shard is written twice"), 1u);
}

TEST(BackendRules, GatewayConditionFailsOnWideAndTwoFieldConditions) {
  const auto violations = CheckTofinoBackendRules(RejectedProgram());
  // The five-term validity check: 1 + 4 + 2 + 1 bytes, and `num_values > 64` (a range compare
  // on 8 bits) in the gateway's hash bits.
  EXPECT_EQ(Count(violations, kRuleGatewayCondition, "VALUES_PER_PACKET) the condition reads 8 bytes"),
            1u)
      << Describe(violations);
  // The duplicate test: `&` of two fields, and 8 bytes.
  EXPECT_EQ(Count(violations, kRuleGatewayCondition, "`&` between two fields"), 1u)
      << Describe(violations);
  EXPECT_EQ(Count(violations, kRuleGatewayCondition,
                  "if ((meta.bitmap_before & meta.worker_bit) == 0)"),
            2u)
      << Describe(violations);
}

TEST(BackendRules, KeylessHashActionFailsOnConstantsBesideRegisterAccesses) {
  const auto violations = CheckTofinoBackendRules(RejectedProgram());
  // `register_index + SLOT_SET_OFFSET` beside set 1's bitmap execute (the harvest pass's add
  // stands alone in its `if`, which the back end accepts), and the harvest pass's flags constant
  // beside the last read_second.
  EXPECT_EQ(Count(violations, kRuleKeylessHashAction, "meta.register_index + SLOT_SET_OFFSET"),
            1u)
      << Describe(violations);
  EXPECT_EQ(Count(violations, kRuleKeylessHashAction, "FLAGS_WITHOUT_HARVEST"), 1u)
      << Describe(violations);
}

TEST(BackendRules, TheRejectedProgramBreaksEveryRuleAndNothingElse) {
  const auto violations = CheckTofinoBackendRules(RejectedProgram());
  for (const char* rule : {kRuleRegisterResultType, kRuleSingleStageAction,
                           kRuleGatewayCondition, kRuleKeylessHashAction}) {
    EXPECT_GT(Count(violations, rule), 0u) << rule;
  }
  // 3 exponent casts, make_result's flags, 3 gateway findings, 2 keyless actions.
  EXPECT_EQ(violations.size(), 3u + 1u + 3u + 2u) << Describe(violations);
}

TEST(BackendRules, GatewayRangeBitsFailsOnTheColdKeyCompare) {
  const std::string program = Fixture("rejected-libra-tofino2.p4");
  ASSERT_FALSE(program.empty());
  const auto violations = CheckTofinoBackendRules(program);
  // 384 = 3 << 7: bits [31:7] of the key, 25 bits, against the gateway's 12.
  EXPECT_EQ(Count(violations, kRuleGatewayRangeBits, "`hdr.agg.key_offset >= 384` needs 25"), 1u)
      << Describe(violations);
  // That compare is the only thing wrong with that program.
  EXPECT_EQ(violations.size(), 1u) << Describe(violations);
}

TEST(BackendRules, GatewayRangeBitsFollowsTheBackEndsRewrite) {
  const std::string frame = R"(
header aggregation_h { bit<32> key_offset; bit<16> slot; bit<8> num_values; int<8> exponent; }
struct ingress_headers_t { aggregation_h agg; }
struct ingress_metadata_t { bit<1> cold; }
const bit<32> HOT = 384;
control Ingress(inout ingress_headers_t hdr, inout ingress_metadata_t meta) {
    apply {
        if (CONDITION) {
            meta.cold = 1;
        }
    }
}
)";
  auto bits_of = [&](const std::string& condition) {
    return Count(CheckWith(frame, "CONDITION", condition), kRuleGatewayRangeBits);
  };
  // A power-of-two bound becomes an equality on the high bits: no hash bits.
  EXPECT_EQ(bits_of("hdr.agg.key_offset < 1024"), 0u);
  EXPECT_EQ(bits_of("hdr.agg.key_offset >= 0x80000000"), 0u);
  EXPECT_EQ(bits_of("hdr.agg.key_offset <= 1023"), 0u);  // < 1024
  EXPECT_EQ(bits_of("hdr.agg.key_offset > 4095"), 0u);   // >= 4096
  EXPECT_EQ(bits_of("1024 > hdr.agg.key_offset"), 0u);
  // Otherwise the sliced field goes through the hash bits: 8 and 12 fit, 13 and 25 do not.
  EXPECT_EQ(bits_of("hdr.agg.num_values <= 32"), 0u);         // 8 bits
  EXPECT_EQ(bits_of("hdr.agg.slot < 0x3000"), 0u);            // 3 << 12: bits [15:12]
  EXPECT_EQ(bits_of("hdr.agg.key_offset >= 0x300000"), 0u);   // 3 << 20: bits [31:20], 12
  EXPECT_EQ(bits_of("hdr.agg.key_offset >= 0x180000"), 1u);   // 3 << 19: 13 bits
  EXPECT_EQ(bits_of("hdr.agg.key_offset >= HOT"), 1u);        // 25 bits
  EXPECT_EQ(bits_of("HOT <= hdr.agg.key_offset"), 1u);
  // Two compares share the 12 bits: 8 + 8.
  EXPECT_EQ(bits_of("hdr.agg.num_values <= 32 && hdr.agg.num_values > 2"), 1u);
  // A signed field is compared whole (no slicing), except against 0 (its sign bit).
  EXPECT_EQ(bits_of("hdr.agg.exponent < 0"), 0u);
  EXPECT_EQ(bits_of("hdr.agg.exponent < 4"), 0u);  // 8 bits
  // Unsigned, `< 4` would be an equality on bits 7..2; signed it takes all 8 hash bits, and with
  // the 8 of num_values the 12 are exceeded.
  EXPECT_EQ(bits_of("hdr.agg.exponent < 4 && hdr.agg.num_values <= 32"), 1u);
  // A field also tested for equality keeps its PHV bytes: 4 of the key and 4 of the key again
  // would be one field, but the key and the 2-byte slot with it exceed the 4 bytes.
  auto bytes_violations = [&](const std::string& condition) {
    return Count(CheckWith(frame, "CONDITION", condition), kRuleGatewayCondition);
  };
  EXPECT_EQ(bytes_violations("hdr.agg.key_offset != 0 && hdr.agg.key_offset <= 32 && "
                             "hdr.agg.slot == 3"),
            1u);
  EXPECT_EQ(bytes_violations("hdr.agg.key_offset <= 32 && hdr.agg.slot == 3"), 0u);
  // A compare that is always true or false needs nothing.
  EXPECT_EQ(bits_of("hdr.agg.num_values <= 255"), 0u);
}

TEST(BackendRules, RangeKeyNibblesFailsOnAThirtyTwoBitRangeKey) {
  const std::string frame = R"(
header aggregation_h { bit<32> key_offset; bit<16> slot; }
struct ingress_headers_t { aggregation_h agg; }
struct ingress_metadata_t { bit<1> cold; }
control Ingress(inout ingress_headers_t hdr, inout ingress_metadata_t meta) {
    action mark_cold() { meta.cold = 1; }
    table cold_key {
        key = { KEY : range; }
        actions = { mark_cold; NoAction; }
        default_action = NoAction();
    }
    apply { cold_key.apply(); }
}
)";
  auto check = [&](const std::string& key) { return CheckWith(frame, "KEY", key); };
  const auto wide = check("hdr.agg.key_offset");
  EXPECT_EQ(Count(wide, kRuleRangeKeyNibbles, "`hdr.agg.key_offset: range` is 32 bits"), 1u)
      << Describe(wide);
  EXPECT_EQ(Count(check("hdr.agg.slot"), kRuleRangeKeyNibbles), 0u);
}

// ---- Every program the generator writes now.

AggregationSwitchSpec SpecOf(const std::string& config) {
  auto scenario = LoadScenarioFile((kSource / "configs" / config).string());
  if (!scenario) throw std::runtime_error(scenario.Error().ToString());
  return scenario.Value().aggregation.value();
}

bool Expressible(const AggregationSwitchSpec& spec) {
  return CheckTofinoFit(spec).empty() && CheckP4Support(spec).empty();
}

// Workers 2..32, values per packet from 2 to each generation's limit, pool sizes, both modes
// (parameter server with and without cold keys, 1..32 shards), both scales, THC at 2 and 4 bits.
std::vector<AggregationSwitchSpec> SpreadOfSpecs() {
  std::vector<AggregationSwitchSpec> specs;
  for (auto generation : {TofinoGeneration::kTofino1, TofinoGeneration::kTofino2}) {
    for (uint32_t workers : {2u, 5u, 32u}) {
      for (uint32_t values : {2u, 16u, 64u, 128u}) {
        for (uint32_t slots : {64u, 1024u}) {
          AggregationSwitchSpec spec;
          spec.generation = generation;
          spec.workers = workers;
          spec.values_per_packet = values;
          spec.aggregator_slots = slots;
          spec.value_bits = 20;
          specs.push_back(spec);
          spec.scheme = FixedPointScheme::kFixedScale;
          spec.overflow = OverflowBehaviour::kSaturate;
          specs.push_back(spec);
          spec.mode = AggregationMode::kParameterServer;
          for (uint32_t shards : {1u, 4u, 32u}) {
            spec.server_shards = shards;
            spec.hot_key_capacity_keys = shards == 4 ? kAllKeysHot : 4096;
            specs.push_back(spec);
          }
        }
      }
      for (uint32_t bits : {2u, 4u}) {
        for (uint32_t values : {8u, 32u, 64u, 128u}) {
          AggregationSwitchSpec spec;
          spec.generation = generation;
          spec.value_format = ValueFormat::kThc;
          spec.thc_bits = bits;
          spec.workers = std::min(workers, 8u);
          spec.values_per_packet = values;
          specs.push_back(spec);
        }
      }
    }
  }
  std::vector<AggregationSwitchSpec> expressible;
  for (const AggregationSwitchSpec& spec : specs) {
    if (Expressible(spec)) expressible.push_back(spec);
  }
  return expressible;
}

TEST(BackendRules, HoldForTheShippedConfigs) {
  for (const char* config :
       {"p4-switchml-tofino1.json", "p4-libra-tofino2.json", "p4-thc-tofino1.json"}) {
    const auto violations =
        CheckTofinoBackendRules(GenerateP4Program(SpecOf(config), {"test", "test"}));
    EXPECT_TRUE(violations.empty()) << config << "\n" << Describe(violations);
  }
}

TEST(BackendRules, HoldForASpreadOfSpecs) {
  const std::vector<AggregationSwitchSpec> specs = SpreadOfSpecs();
  EXPECT_GE(specs.size(), 100u);  // the spread really covers the branches
  size_t thc = 0, server = 0, cold = 0, tofino2 = 0;
  for (const AggregationSwitchSpec& spec : specs) {
    thc += spec.IsThc();
    server += spec.mode == AggregationMode::kParameterServer;
    cold += spec.hot_key_capacity_keys < kAllKeysHot;
    tofino2 += spec.generation == TofinoGeneration::kTofino2;
    const auto violations = CheckTofinoBackendRules(GenerateP4Program(spec, {"test", "test"}));
    ASSERT_TRUE(violations.empty())
        << "workers " << spec.workers << ", values " << spec.values_per_packet << "\n"
        << Describe(violations);
  }
  EXPECT_GT(thc, 0u);
  EXPECT_GT(server, 0u);
  EXPECT_GT(cold, 0u);
  EXPECT_GT(tofino2, 0u);
}

}  // namespace
}  // namespace hfsim
