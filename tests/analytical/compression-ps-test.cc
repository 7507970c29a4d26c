// communication.compression on a parameter_server workload (S5, software PS): the analytical
// price against a hand-computed closed form with each scheme's wire sizes, the loader's errors and
// the echo round trip.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// 4 workers (NPUs 0-3) and one server (NPU 4) on a Switch at 100 GB/s, 500 ns per hop; a dense
// model of 2^20 fp32 parameters in one 4 MiB key.
nlohmann::json OneKey(const nlohmann::json& compression) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "topology": {"dimensions": [{"kind": "Switch", "size": 5, "bandwidth_GBps": 100, "latency_ns": 500}]},
    "workload": {"parameter_server": {"workers": [0, 1, 2, 3], "servers": [4],
      "dense": {"params": 1048576, "bytes_per_param": 4, "partition_bytes": 4194304}}}
  })");
  if (!compression.is_null()) doc["communication"] = {{"compression", compression}};
  return doc;
}

// Push: the server's down-link carries 4 pushes; pull: its up-link 4 pulls; each phase adds 2
// hops of 500 ns. Bytes per message include the 8-byte key id.
double ClosedFormNs(double push_bytes, double pull_bytes) {
  return (4 * push_bytes / 100.0 + 1000.0) + (4 * pull_bytes / 100.0 + 1000.0);
}

TEST(CompressionPs, EachSchemeIsPricedAtItsWireSizes) {
  struct Case {
    nlohmann::json compression;
    double push_bytes;
    double pull_bytes;
  };
  const Case cases[] = {
      {nullptr, 4194304 + 8, 4194304 + 8},                     // fp32 both ways
      {{{"scheme", "fp16"}}, 2097152 + 8, 2097152 + 8},        // 2 bytes a value
      {{{"scheme", "top_k"}, {"top_k_fraction", 0.01}},        // 10486 (index, value) pairs up,
       8.0 * 10486 + 8, 4194304 + 8},                          // the dense sum down
      {{{"scheme", "thc"}}, 524288 + 4 + 8, 1048576 + 8},      // 4 bits + the norm up, 8-bit lanes down
      {{{"scheme", "thc"}, {"thc", {{"bits", 2}}}}, 262144 + 4 + 8, 1048576 + 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.compression.dump());
    const Report report = AnalyticalEngine().Run(ParseOrDie(OneKey(c.compression)));
    ASSERT_TRUE(report.parameter_server);
    EXPECT_EQ(report.parameter_server->bytes_pushed, static_cast<uint64_t>(4 * c.push_bytes));
    EXPECT_EQ(report.parameter_server->bytes_pulled, static_cast<uint64_t>(4 * c.pull_bytes));
    EXPECT_NEAR(report.iteration.total_ns, ClosedFormNs(c.push_bytes, c.pull_bytes), 1e-6);
  }
}

TEST(CompressionPs, ThcLanesWidenBeyondTheWorkerLimit) {
  // 9 workers x granularity 30 > 255: the sums need 16-bit lanes, 2 bytes a value down.
  nlohmann::json doc = OneKey({{"scheme", "thc"}});
  doc["topology"]["dimensions"][0]["size"] = 10;
  doc["workload"]["parameter_server"]["workers"] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  doc["workload"]["parameter_server"]["servers"] = {9};
  const Report report = AnalyticalEngine().Run(ParseOrDie(doc));
  EXPECT_EQ(report.parameter_server->bytes_pulled, 9u * (2 * 1048576 + 8));
}

TEST(CompressionPs, LoaderErrorsNameThePath) {
  const std::string c = "communication.compression";
  ExpectLoadError(OneKey({{"scheme", "zip"}}), c + ".scheme", "thc");
  ExpectLoadError(OneKey({{"scheme", "fp16"}, {"top_k_fraction", 0.1}}), c + ".top_k_fraction", "top_k");
  ExpectLoadError(OneKey({{"scheme", "top_k"}, {"top_k_fraction", 0}}), c + ".top_k_fraction", "0");
  ExpectLoadError(OneKey({{"scheme", "thc"}, {"thc", {{"block", 1000}}}}), c + ".thc.block", "power of two");
  ExpectLoadError(OneKey({{"scheme", "thc"}, {"thc", {{"bits", 9}}}}), c + ".thc.bits", "8");
  // Where it does not apply.
  nlohmann::json collective = test::CollectiveScenario(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 50}}}, "all_reduce",
      1 << 20);
  collective["communication"]["compression"] = {{"scheme", "thc"}};
  ExpectLoadError(collective, c, "parameter_server");
  nlohmann::json sparse = OneKey({{"scheme", "thc"}});
  sparse["workload"]["parameter_server"].erase("dense");
  sparse["workload"]["parameter_server"]["sparse"] = {
      {"key_count", 1000}, {"bytes_per_key", 256}, {"lookups_per_worker", 100}};
  ExpectLoadError(sparse, c, "dense");
}

TEST(CompressionPs, EchoRoundTrips) {
  const Scenario scenario =
      ParseOrDie(OneKey({{"scheme", "thc"}, {"thc", {{"bits", 2}, {"block", 1024}}}}));
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(echo["communication"]["compression"]["thc"]["bits"], 2);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
  const Report a = AnalyticalEngine().Run(scenario);
  const Report b = AnalyticalEngine().Run(ParseOrDie(echo));
  EXPECT_EQ(a.parameter_server->bytes_pushed, b.parameter_server->bytes_pushed);
}

}  // namespace
}  // namespace hfsim
