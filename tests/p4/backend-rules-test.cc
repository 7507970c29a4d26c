// The Tofino back end's rules (p4/backend-rules.h). Each rule fails on what the compiler
// rejected: tests/p4/fixtures/rejected-switchml-tofino1.p4 is the program hfsim generated for
// configs/p4-switchml-tofino1.json before this checker existed (the back end refused it), and the
// parameter-server shard computation is an inline snippet. Every program the generator writes now
// keeps every rule: the shipped configs and a spread of specs over the generator's branches.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "models/aggregation/tofino-resources.h"
#include "p4/backend-rules.h"
#include "p4/p4-program.h"
#include "sim/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = HFSIM_SOURCE_DIR;

std::string RejectedProgram() {
  std::ifstream file(kSource / "tests/p4/fixtures/rejected-switchml-tofino1.p4", std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The violations of `rule` whose place or message mentions `needle`.
size_t Count(const std::vector<BackendRuleViolation>& violations, const std::string& rule,
             const std::string& needle = "") {
  size_t count = 0;
  for (const BackendRuleViolation& v : violations) {
    if (v.rule == rule && (v.where + " " + v.message).find(needle) != std::string::npos) ++count;
  }
  return count;
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
    std::string program = shard;
    program.replace(program.find("SHIFT_AND_MASK"), 14, statement);
    return CheckTofinoBackendRules(program);
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
  // The five-term validity check: 1 + 4 + 2 + 1 + 1 bytes.
  EXPECT_EQ(Count(violations, kRuleGatewayCondition, "reads 9 bytes of PHV"), 1u)
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
