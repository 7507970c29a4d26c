// The packet engine's memory estimate (sim/packet/packet-memory.h) and the refusal it drives: a run
// that cannot fit is refused when the scenario loads, naming the limit, instead of ending in
// bad_alloc after minutes. The estimate's constants are calibrated in bench/RESULTS.md.
#include "sim/packet/packet-memory.h"

#include <fmt/format.h>
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

namespace hfsim {
namespace {

// A 2^50-byte all-reduce at packet level started, then stopped with the RDMA transport's
// "more than 2^32 packets" (exit 1). Its largest message is worked out from the schedule the
// packet engine sends: the bidirectional ring on 4 NPUs moves blocks of S / 8, so 2^50 bytes in
// one chunk is 2^47-byte messages, and in 8 chunks 2^44 = 17,592,186,044,416 bytes, still more
// than (2^32 - 1) x 4096 = 17,592,186,040,320; 16 chunks (2^43) fit. It is refused when the
// scenario loads, at the workload, naming the limit.
TEST(PacketMessageSize, AMessageBeyondTheTransportsPacketCountIsRefusedAtLoad) {
  nlohmann::json d = test::CollectiveScenario(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 100}}},
      "all_reduce", uint64_t{1} << 50, 1);
  d["engine"] = "packet";
  for (const uint32_t chunks : {1u, 8u}) {
    d["communication"]["chunks"] = chunks;
    auto refused = ParseScenario(d);
    ASSERT_FALSE(refused) << chunks;
    EXPECT_EQ(refused.Error().where, "workload.collective");
    const std::string message = refused.Error().ToString();
    EXPECT_NE(message.find(fmt::format("would send a message of {} bytes",
                                       (uint64_t{1} << 50) / 8 / chunks)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("2^32 - 1 packets of packet.mtu_bytes 4096 (17592186040320 bytes)"),
              std::string::npos)
        << message;
  }
  d["communication"]["chunks"] = 16;
  EXPECT_TRUE(ParseScenario(d));
  // A larger packet carries it; ns-3's TCP numbers bytes in 64 bits.
  d["communication"]["chunks"] = 1;
  d["packet"] = {{"mtu_bytes", 65000}};
  EXPECT_TRUE(ParseScenario(d));  // 2^47 = 1.41e14 <= (2^32 - 1) x 65000 = 2.79e14
  d["packet"] = {{"transport", "tcp"}};
  EXPECT_TRUE(ParseScenario(d));
  // The same collective on the analytical engine has no messages to number.
  d.erase("packet");
  d["engine"] = "analytical";
  EXPECT_TRUE(ParseScenario(d));
}

}  // namespace
}  // namespace hfsim
