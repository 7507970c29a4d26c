// The generated P4 program, control plane and resource report: golden files for the two shipped
// specs (Tofino-1 SwitchML, Tofino-2 Libra), so any change to the generator shows up as a diff to
// review, plus checks that hold for every spec: each name the program uses is declared, each
// table is applied once, the program keeps the Tofino back end's rules (p4/backend-rules.h),
// every control-plane entry names a table, action and key fields that exist, and the output is
// deterministic.
//
// To accept a reviewed change of the generator: HFSIM_UPDATE_GOLDEN=1 ctest -R p4_program_test
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "models/aggregation/tofino-resources.h"
#include "p4/backend-rules.h"
#include "p4/control-plane.h"
#include "p4/p4-program.h"
#include "p4/resource-report.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = HFSIM_SOURCE_DIR;

std::string Slurp(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

AggregationSwitchSpec SpecOf(const std::string& config) {
  auto scenario = LoadScenarioFile((kSource / "configs" / config).string());
  if (!scenario) throw std::runtime_error(scenario.Error().ToString());
  return scenario.Value().aggregation.value();
}

std::string Program(const AggregationSwitchSpec& spec) {
  return GenerateP4Program(spec, {"golden", "test"});
}

// The first line where two texts differ, for a readable failure.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "identical";
    if (!more_a || !more_b || la != lb) {
      return "line " + std::to_string(line) + ":\n  golden:    " + (more_a ? la : "<end>") +
             "\n  generated: " + (more_b ? lb : "<end>");
    }
  }
}

void ExpectGolden(const fs::path& golden, const std::string& actual) {
  if (std::getenv("HFSIM_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing: run with HFSIM_UPDATE_GOLDEN=1";
  const std::string expected = Slurp(golden);
  EXPECT_TRUE(expected == actual) << golden.filename() << " differs from the generator at "
                                  << FirstDifference(expected, actual)
                                  << "\nReview, then accept with HFSIM_UPDATE_GOLDEN=1.";
}

struct GoldenCase {
  std::string config;
  std::string directory;
};

class P4Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(P4Golden, ProgramControlPlaneAndReportMatchTheReviewedFiles) {
  const AggregationSwitchSpec spec = SpecOf(GetParam().config);
  const fs::path dir = kSource / "tests/p4/golden" / GetParam().directory;
  const ControlPlane plane = BuildControlPlane(spec);
  ExpectGolden(dir / "aggregation.p4", Program(spec));
  ExpectGolden(dir / "control-plane.py", ControlPlaneToBfrtPython(plane, spec));
  ExpectGolden(dir / "control-plane.json", ControlPlaneToJson(plane).dump(2) + "\n");
  ExpectGolden(dir / "resources.txt", ResourceReportText(spec));
}

INSTANTIATE_TEST_SUITE_P(ShippedSpecs, P4Golden,
                         ::testing::Values(GoldenCase{"p4-switchml-tofino1.json", "tofino1"},
                                           GoldenCase{"p4-libra-tofino2.json", "tofino2"},
                                           GoldenCase{"p4-thc-tofino1.json", "thc_tofino1"}),
                         [](const auto& info) { return info.param.directory; });

// ---- Checks that hold for any spec.

std::vector<AggregationSwitchSpec> VariedSpecs() {
  std::vector<AggregationSwitchSpec> specs;
  for (auto generation : {TofinoGeneration::kTofino1, TofinoGeneration::kTofino2}) {
    for (auto mode : {AggregationMode::kAllReduce, AggregationMode::kParameterServer}) {
      for (auto scheme : {FixedPointScheme::kBlockExponent, FixedPointScheme::kFixedScale}) {
        AggregationSwitchSpec spec;
        spec.generation = generation;
        spec.mode = mode;
        spec.scheme = scheme;
        spec.workers = mode == AggregationMode::kAllReduce ? 32 : 5;
        spec.values_per_packet = scheme == FixedPointScheme::kBlockExponent ? 64 : 16;
        spec.value_bits = 26;
        spec.overflow = scheme == FixedPointScheme::kFixedScale ? OverflowBehaviour::kSaturate
                                                                : OverflowBehaviour::kWrap;
        if (mode == AggregationMode::kParameterServer) {
          spec.server_shards = 4;
          spec.hot_key_capacity_keys = scheme == FixedPointScheme::kFixedScale ? 1024 : kAllKeysHot;
        }
        specs.push_back(spec);
      }
    }
    // THC in the switch (all-reduce only), at both index widths the generator writes.
    for (uint32_t bits : {4u, 2u}) {
      AggregationSwitchSpec spec;
      spec.generation = generation;
      spec.value_format = ValueFormat::kThc;
      spec.thc_bits = bits;
      spec.workers = 8;
      spec.values_per_packet = 32;
      specs.push_back(spec);
    }
  }
  return specs;
}

std::set<std::string> Matches(const std::string& text, const std::string& pattern, int group = 1) {
  std::set<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    found.insert((*it)[group].str());
  }
  return found;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(P4Program, EveryConstantAndRegisterActionItUsesIsDeclared) {
  for (const AggregationSwitchSpec& spec : VariedSpecs()) {
    SCOPED_TRACE(Program(spec).substr(0, 300));
    const std::string program = Program(spec);
    // Upper-case identifiers: the program's constants, plus what tna.p4 / t2na.p4 declare.
    std::set<std::string> declared = Matches(program, R"(const \S+ ([A-Z][A-Z0-9_]+) =)");
    declared.insert("PORT_METADATA_SIZE");
    std::string code;  // without comments, where upper-case words are prose
    std::istringstream lines(program);
    for (std::string line; std::getline(lines, line);) code += line.substr(0, line.find("//")) + "\n";
    for (const std::string& used : Matches(code, R"(\b([A-Z][A-Z0-9_]{2,})\b)")) {
      EXPECT_TRUE(declared.count(used)) << "undeclared constant " << used;
    }
    const std::set<std::string> actions = Matches(code, R"(\) (\w+) = \{)");
    for (const std::string& executed : Matches(code, R"((\w+)\.execute\()")) {
      EXPECT_TRUE(actions.count(executed)) << "undeclared RegisterAction " << executed;
    }
    // Every declared RegisterAction is used, and a register has at most the actions the
    // resource model allows.
    for (const std::string& action : actions) {
      EXPECT_EQ(Count(code, action + ".execute("), 1u) << action;
    }
    const uint32_t limit = LimitsOf(spec.generation).register_actions_per_register;
    for (const std::string& reg : Matches(code, R"(Register<[^>]+>\(\w+\) (\w+);)")) {
      const size_t register_actions = Count(code, ">(" + reg + ") ");
      EXPECT_LE(register_actions, limit) << reg;
      if (reg.rfind("values_", 0) == 0) {  // value registers are the busiest
        EXPECT_EQ(register_actions, ComputeTofinoResources(spec).max_register_actions) << reg;
      }
    }
    EXPECT_EQ(Count(code, "{"), Count(code, "}"));
    EXPECT_EQ(Count(code, "("), Count(code, ")"));
    // What the Tofino back end refuses beyond the front end (backend-rules-test.cc).
    EXPECT_TRUE(CheckTofinoBackendRules(program).empty());
  }
}

TEST(P4Program, AppliesEachTableOnceAndDeclaresOnePairRegisterPerTwoValues) {
  for (const AggregationSwitchSpec& spec : VariedSpecs()) {
    const std::string program = Program(spec);
    for (const std::string& table : Matches(program, R"(\btable (\w+) \{)")) {
      EXPECT_EQ(Count(program, " " + table + ".apply()"), 1u) << table;
    }
    const uint32_t words = spec.RegisterWords();  // THC: four lanes a word
    EXPECT_EQ(Count(program, "Register<value_pair_t, index_t>(REGISTER_ENTRIES) values_"),
              words / 2);
    EXPECT_EQ(Count(program, "    value_t v"), words);
    const bool tofino1 = spec.generation == TofinoGeneration::kTofino1;
    EXPECT_EQ(program.find("#include <tna.p4>") != std::string::npos, tofino1);
    EXPECT_EQ(program.find("#include <t2na.p4>") != std::string::npos, !tofino1);
    // Tofino-1 reads the second half of each pair in a recirculated pass; Tofino-2 outputs both.
    EXPECT_EQ(Count(program, "_read_second.execute("), tofino1 ? words / 2 : 0u);
    EXPECT_EQ(program.find("RegisterAction2<") != std::string::npos, !tofino1);
    EXPECT_EQ(program.find("RECIRCULATION_PORT") != std::string::npos, tofino1);
    const bool saturate = spec.overflow == OverflowBehaviour::kSaturate;
    EXPECT_EQ(program.find("|+|") != std::string::npos, saturate);
    EXPECT_EQ(program.find("max_exponent") != std::string::npos,
              spec.scheme == FixedPointScheme::kBlockExponent || spec.IsThc());
    // THC: one lookup table per index byte, each writing its slice of one lane word.
    EXPECT_EQ(Count(program, "    table thc_lookup_"), spec.IsThc() ? spec.UpdateValueBytes() : 0u);
    EXPECT_EQ(program.find("hdr.thc.setInvalid()") != std::string::npos, spec.IsThc());
    EXPECT_EQ(program.find("HOT_KEY_CAPACITY") != std::string::npos,
              spec.mode == AggregationMode::kParameterServer && spec.hot_key_capacity_keys < kAllKeysHot);
  }
}

// What kept the Tofino-1 SwitchML program at 13 stages (p4c placed it; bfas refused it): the
// register index as an assignment plus a conditional add (two stages that every later check in the
// control flow waited for) and a write of msg_type in the harvest branch, which the chain's next
// test reads. Both are gone: the index comes from one table and the message type is rewritten
// after the value tables.
TEST(P4Program, ComputesTheIndexInOneStepAndRewritesTheTypeAfterTheValues) {
  for (const AggregationSwitchSpec& spec : VariedSpecs()) {
    const std::string program = Program(spec);
    EXPECT_EQ(Count(program, "meta.register_index = meta.register_index"), 0u);
    // The two actions of the table, and the parser's zero.
    EXPECT_EQ(Count(program, "meta.register_index ="), 3u);
    const size_t apply = program.find("register_index_of_set.apply();");
    ASSERT_NE(apply, std::string::npos);
    EXPECT_LT(apply, program.find("check_worker.apply();"));
    const size_t rewrite = program.find("hdr.agg.msg_type = MSG_RESULT;");
    if (spec.generation == TofinoGeneration::kTofino1) {
      EXPECT_GT(rewrite, program.find("values_00_update.apply();"));
      EXPECT_EQ(Count(program, "hdr.agg.msg_type = MSG_RESULT;"), 1u);
    }
  }
}

TEST(P4ControlPlane, EntriesNameTablesActionsAndKeysTheProgramDeclares) {
  for (const AggregationSwitchSpec& spec : VariedSpecs()) {
    const std::string program = Program(spec);
    const ControlPlane plane = BuildControlPlane(spec);
    std::map<std::string, size_t> per_table;
    for (const TableEntry& e : plane.entries) {
      const std::string table = e.table.substr(e.table.find('.') + 1);
      const size_t at = program.find("table " + table + " {");
      ASSERT_NE(at, std::string::npos) << e.table;
      const std::string body = program.substr(at, program.find("\n    }", at) - at);
      EXPECT_NE(body.find(" " + e.action + ";"), std::string::npos) << e.table << " " << e.action;
      for (const NamedValue& key : e.key) {
        EXPECT_NE(body.find("." + key.name + " : exact"), std::string::npos) << key.name;
      }
      const size_t action = program.find("action " + e.action + "(");
      ASSERT_NE(action, std::string::npos) << e.action;
      const std::string signature = program.substr(action, program.find(')', action) - action);
      for (const NamedValue& data : e.data) {
        EXPECT_NE(signature.find(" " + data.name), std::string::npos) << e.action << " " << data.name;
      }
      ++per_table[e.table];
    }
    EXPECT_EQ(per_table["Ingress.check_worker"], spec.workers);
    EXPECT_EQ(plane.thc_lookups.has_value(), spec.IsThc());
    if (plane.thc_lookups) {
      const ThcLookupEntries& thc = *plane.thc_lookups;
      ASSERT_EQ(thc.tables.size(), spec.UpdateValueBytes());
      ASSERT_EQ(thc.lanes_by_byte.size(), 256u);
      for (size_t j = 0; j < thc.tables.size(); ++j) {
        const std::string table = thc.tables[j].substr(thc.tables[j].find('.') + 1);
        const size_t at = program.find("table " + table + " {");
        ASSERT_NE(at, std::string::npos) << table;
        const std::string body = program.substr(at, program.find("\n    }", at) - at);
        EXPECT_NE(body.find(" " + thc.actions[j] + ";"), std::string::npos) << thc.actions[j];
        EXPECT_NE(body.find(".thc." + thc.key_fields[j] + " : exact"), std::string::npos);
        EXPECT_NE(program.find("action " + thc.actions[j] + "(bit<"), std::string::npos);
      }
      // Byte 0x00 is index 0 everywhere (table[0] = 0); 0xff the top level in every lane.
      EXPECT_EQ(thc.lanes_by_byte[0], 0u);
      const uint64_t top = spec.thc_granularity;
      EXPECT_EQ(thc.lanes_by_byte[255], spec.thc_bits == 4 ? (top << 8 | top)
                                                           : (top << 24 | top << 16 | top << 8 | top));
    }
    if (spec.mode == AggregationMode::kAllReduce) {
      EXPECT_EQ(per_table["Egress.result_copy"], spec.workers);
      EXPECT_EQ(plane.nodes.size(), spec.workers);
      EXPECT_EQ(plane.multicast_group, spec.multicast_group);
      EXPECT_EQ(per_table["Ingress.forward"], spec.workers);
    } else {
      EXPECT_EQ(per_table["Ingress.server_address"], spec.server_shards);
      EXPECT_EQ(per_table["Ingress.forward"], spec.workers + spec.server_shards);
      EXPECT_TRUE(plane.nodes.empty());
    }
  }
}


TEST(P4Support, NamesTheKeyOfWhatTheGeneratorCannotExpress) {
  AggregationSwitchSpec fine;
  EXPECT_TRUE(CheckP4Support(fine).empty());

  AggregationSwitchSpec one_bit;
  one_bit.value_format = ValueFormat::kThc;
  one_bit.thc_bits = 1;
  ASSERT_EQ(CheckP4Support(one_bit).size(), 1u);
  EXPECT_EQ(CheckP4Support(one_bit)[0].spec_key, "thc.bits");

  AggregationSwitchSpec single_set;
  single_set.shadow_copies = false;
  ASSERT_EQ(CheckP4Support(single_set).size(), 1u);
  EXPECT_EQ(CheckP4Support(single_set)[0].spec_key, "shadow_copies");

  AggregationSwitchSpec shards;
  shards.mode = AggregationMode::kParameterServer;
  shards.server_shards = 3;
  ASSERT_EQ(CheckP4Support(shards).size(), 1u);
  EXPECT_EQ(CheckP4Support(shards)[0].spec_key, "server_shards");
  shards.server_shards = 64;  // a power of two, but more than the port plan holds
  EXPECT_EQ(CheckP4Support(shards)[0].spec_key, "server_shards");

  AggregationSwitchSpec values;
  values.mode = AggregationMode::kParameterServer;
  values.values_per_packet = 48;  // even, fits, but no shift divides by it
  ASSERT_EQ(CheckP4Support(values).size(), 1u);
  EXPECT_EQ(CheckP4Support(values)[0].spec_key, "values_per_packet");
  values.mode = AggregationMode::kAllReduce;  // all-reduce never divides
  EXPECT_TRUE(CheckP4Support(values).empty());
}

TEST(P4ResourceReport, ListsEveryLimitWithItsFigures) {
  // SwitchML: 64 values (32 pair registers) and the max exponent fill Tofino-1's 12 stages
  // exactly, as p4c's back end places them (docs/p4.md §3).
  AggregationSwitchSpec spec;
  const std::string text = ResourceReportText(spec);
  EXPECT_NE(text.find("MAU stages: 3 control + 9 value = 12 of 12"), std::string::npos) << text;
  EXPECT_NE(text.find("harvest (recirculation) passes per completed slot: 1"), std::string::npos);
  EXPECT_NE(text.find("Verdict: fits"), std::string::npos);
  for (const ResourceLine& line : TofinoResourceTable(spec)) {
    EXPECT_NE(text.find(line.limit), std::string::npos) << line.limit;
  }
  spec.values_per_packet = 72;  // one value stage too many on Tofino-1
  const std::string over = ResourceReportText(spec);
  EXPECT_NE(over.find("does NOT fit"), std::string::npos);
  const nlohmann::json json = ResourceReportJson(spec);
  EXPECT_FALSE(json["fits"].get<bool>());
  bool named = false;
  for (const auto& line : json["limits"]) {
    if (line["limit"] == "value_stages") {
      named = true;
      EXPECT_EQ(line["used"], 10);  // 36 pair registers and the exponent, 4 a stage
      EXPECT_EQ(line["available"], 9);
      EXPECT_EQ(line["spec_key"], "aggregation.values_per_packet");
      EXPECT_FALSE(line["fits"].get<bool>());
    }
  }
  EXPECT_TRUE(named);
  spec.generation = TofinoGeneration::kTofino2;
  EXPECT_NE(ResourceReportText(spec).find("harvest (recirculation) passes per completed slot: 0"),
            std::string::npos);
}

}  // namespace
}  // namespace hfsim
