// The engine table (sim/engines/engine-table.h) and its factory against what the engines and the
// loader do: one row per engine, names that round-trip, the loader accepting exactly the table's
// names and refusing what the row's admission refuses, and each row's name, timeline and
// progress columns true of the engine the factory makes.
#include "sim/engines/engine-table.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/engines/engine-factory.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

constexpr EngineKind kEveryKind[] = {EngineKind::kAnalytical, EngineKind::kPacket,
                                     EngineKind::kFlow};

// A 32 MiB all-reduce on a ring of 8: a few tens of thousands of packet events, enough for the
// packet engine's progress hook (every 4,096 events) and quick on every engine.
nlohmann::json SmallCollective() {
  return test::CollectiveScenario(
      nlohmann::json::array({{{"kind", "Ring"},
                              {"size", 8},
                              {"bandwidth_GBps", 100},
                              {"latency_ns", 500}}}),
      "all_reduce", uint64_t{32} << 20);
}

TEST(EngineTable, HasOneRowPerEngineKindInTheEnumsOrder) {
  ASSERT_EQ(EngineTable().size(), std::size(kEveryKind));
  std::set<std::string_view> names;
  for (size_t i = 0; i < std::size(kEveryKind); ++i) {
    EXPECT_EQ(EngineTable()[i].kind, kEveryKind[i]);
    EXPECT_EQ(&EngineOf(kEveryKind[i]), &EngineTable()[i]);
    EXPECT_TRUE(names.insert(EngineTable()[i].name).second) << EngineTable()[i].name;
  }
}

TEST(EngineTable, NamesRoundTrip) {
  for (const EngineEntry& entry : EngineTable()) {
    EXPECT_EQ(ToString(entry.kind), entry.name);
    EXPECT_EQ(EngineNamed(entry.name), entry.kind);
  }
  EXPECT_EQ(EngineNamed("quantum"), std::nullopt);
  EXPECT_EQ(EngineNamed(""), std::nullopt);
  ASSERT_EQ(EngineNames().size(), EngineTable().size());
  for (size_t i = 0; i < EngineNames().size(); ++i) {
    EXPECT_EQ(EngineNames()[i], EngineTable()[i].name);
  }
}

// The scenario's "engine" takes every name of the table, and lists them all when it is given
// anything else: "accepted: "analytical", "packet", "flow"".
TEST(EngineTable, TheLoaderAcceptsExactlyTheTablesNames) {
  for (const EngineEntry& entry : EngineTable()) {
    nlohmann::json document = SmallCollective();
    document["engine"] = entry.name;
    EXPECT_EQ(test::ParseOrDie(document).engine, entry.kind) << entry.name;
  }
  nlohmann::json document = SmallCollective();
  document["engine"] = "quantum";
  std::string accepted = "accepted:";
  for (const EngineEntry& entry : EngineTable()) {
    accepted += std::string(entry.kind == EngineKind::kAnalytical ? " \"" : ", \"") +
                std::string(entry.name) + "\"";
  }
  test::ExpectLoadError(document, "engine", accepted);
}

// What a row's admission refuses, the loader refuses for a scenario naming that engine, at the
// same path with the same words: a parameter server on the flow engine.
TEST(EngineTable, TheLoaderRefusesWhatTheRowsAdmissionRefuses) {
  auto ps = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/ps-lite-dense.json");
  ASSERT_TRUE(ps) << ps.Error().ToString();
  const std::optional<UserError> refusal = EngineRefuses(EngineKind::kFlow, ps.Value());
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->where, "engine");
  nlohmann::json document = LoadScenarioDocument(std::string(HFSIM_SOURCE_DIR) +
                                                 "/configs/ps-lite-dense.json")
                                .Value();
  document["engine"] = "flow";
  test::ExpectLoadError(document, refusal->where, refusal->message);
  // The analytical engine refuses nothing the loader accepted.
  EXPECT_EQ(EngineOf(EngineKind::kAnalytical).admission, nullptr);
  EXPECT_EQ(EngineRefuses(EngineKind::kAnalytical, ps.Value()), std::nullopt);
}

// The factory's engine of each row writes the row's name in its report, fills a timeline exactly
// when asked and the row says it can, and calls the progress hook exactly when the row says so.
TEST(EngineTable, EachRowDescribesTheEngineTheFactoryMakes) {
  const Scenario scenario = test::ParseOrDie(SmallCollective());
  for (const EngineEntry& entry : EngineTable()) {
    SCOPED_TRACE(std::string(entry.name));
    const std::unique_ptr<Engine> engine = MakeEngine(entry.kind);
    ASSERT_NE(engine, nullptr);
    const Report plain = engine->Run(scenario);
    EXPECT_EQ(plain.engine, entry.name);
    EXPECT_FALSE(plain.timeline.has_value());
    uint64_t calls = 0;
    RunOptions options;
    options.timeline = true;
    options.progress = [&calls](double, uint64_t) { ++calls; };
    options.progress_interval = std::chrono::milliseconds(0);
    const Report watched = engine->Run(scenario, options);
    EXPECT_EQ(watched.timeline.has_value(), entry.timeline);
    EXPECT_EQ(calls > 0, entry.progress) << calls << " calls";
    // Watching changes nothing of the results.
    EXPECT_EQ(watched.iteration.total_ns, plain.iteration.total_ns);
  }
}

}  // namespace
}  // namespace hfsim
