// The packet engine's memory estimate (sim/packet/packet-memory.h) and the refusal it drives: a run
// that cannot fit is refused when the scenario loads, naming the limit, instead of ending in
// bad_alloc after minutes. The estimate's constants are calibrated in bench/RESULTS.md.
#include "sim/packet/packet-memory.h"

#include <gtest/gtest.h>

#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

nlohmann::json SwitchAllReduce(uint32_t npus, uint32_t chunks) {
  nlohmann::json d = test::CollectiveScenario(
      {{{"kind", "Switch"}, {"size", npus}, {"bandwidth_GBps", 100}, {"latency_ns", 500}}},
      "all_reduce", 1 << 20, chunks);
  d["engine"] = "packet";
  return d;
}

TEST(PacketMemory, MessagesAreCountedFromTheSchedules) {
  // A bidirectional ring all-reduce on n NPUs: 2 (n - 1) steps of two messages per NPU, per
  // chunk.
  const Scenario s = test::ParseOrDie(SwitchAllReduce(64, 4));
  EXPECT_EQ(EstimatePacketMemory(s).messages, uint64_t{4} * 64 * 2 * 2 * 63);
}

TEST(PacketMemory, ARunThatCannotFitIsRefusedAtLoadNamingTheLimit) {
  // 65,536 NPUs on one switch with 64 chunks: about 2^40 messages.
  nlohmann::json d = SwitchAllReduce(65536, 64);
  auto refused = ParseScenario(d);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.Error().where, "engine");
  EXPECT_NE(refused.Error().message.find("above the limit of 16 GiB"), std::string::npos)
      << refused.Error().ToString();
  EXPECT_NE(refused.Error().message.find("packet.max_memory_GiB"), std::string::npos);
  // The same scenario on the analytical engine needs no such memory.
  d["engine"] = "analytical";
  EXPECT_TRUE(ParseScenario(d));
  // A larger limit, for a machine that has it, is the user's to give.
  d["engine"] = "packet";
  d["packet"] = {{"max_memory_GiB", 1e6}};
  auto allowed = ParseScenario(d);
  ASSERT_TRUE(allowed) << allowed.Error().ToString();
  EXPECT_EQ(ScenarioToJson(allowed.Value())["packet"]["max_memory_GiB"], 1e6);
  nlohmann::json small_limit = SwitchAllReduce(1024, 64);
  small_limit["packet"] = {{"max_memory_GiB", 1}};
  test::ExpectLoadError(small_limit, "packet.max_memory_GiB", "above the limit of 1 GiB");
}

TEST(PacketMemory, ShippedPacketScenariosFitTheDefault) {
  for (const char* name : {"allreduce-rdma.json", "allreduce-tcp.json", "incast-all-to-all.json",
                           "lossy-allreduce.json"}) {
    auto s = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name);
    ASSERT_TRUE(s) << s.Error().ToString();
    EXPECT_LT(EstimatePacketMemory(s.Value()).TotalBytes(), 1e9) << name;
  }
}

}  // namespace
}  // namespace hfsim
