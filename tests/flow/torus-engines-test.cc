// The Torus2D kind across the loader, the analytical engine's closed forms (against the walked
// schedule, bit for bit), the flow engine (equal where the closed form says nothing congests
// beyond the busiest link) and the packet engine (within flow.md's 5 %), and its cost.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "models/cost-model.h"
#include "models/schedule-profile-closed-form.h"
#include "models/schedule.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "tests/scenario/scenario-test-util.h"
#include "topologies/kinds/torus-2d.h"

namespace hfsim {
namespace {

nlohmann::json TorusDim(uint32_t rows, uint32_t columns, double latency_ns = 500) {
  return {{"kind", "Torus2D"},
          {"size", rows * columns},
          {"rows", rows},
          {"bandwidth_GBps", 100},
          {"latency_ns", latency_ns}};
}

nlohmann::json OnTorus(const nlohmann::json& dim, const std::string& kind = "all_reduce") {
  return test::CollectiveScenario(nlohmann::json::array({dim}), kind, 1 << 20);
}

TEST(TorusLoader, ATorusLoadsAndEchoes) {
  const Scenario scenario = test::ParseOrDie(OnTorus(TorusDim(3, 4)));
  ASSERT_EQ(scenario.dimensions.size(), 1u);
  EXPECT_EQ(scenario.dimensions[0].kind, DimensionKind::kTorus2D);
  EXPECT_EQ(scenario.dimensions[0].size, 12u);
  EXPECT_EQ(Torus2DRows(scenario.dimensions[0]), 3u);
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(echo["topology"]["dimensions"][0]["rows"], 3);
  EXPECT_EQ(ScenarioToJson(test::ParseOrDie(echo)), echo);
  // Ring by default; all_to_all, whose ring shifts are not one hop, falls back to direct.
  EXPECT_EQ(scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce)[0],
            CollectiveAlgorithm::kRing);
  EXPECT_EQ(scenario.communication.AlgorithmsFor(CollectiveKind::kAllToAll)[0],
            CollectiveAlgorithm::kDirect);
}

TEST(TorusLoader, ShapesThatAreNoTorusAreRefusedAtTheirKey) {
  const std::string at = "topology.dimensions[0].";
  nlohmann::json dim = TorusDim(3, 4);
  dim["rows"] = 2;  // 2 x 6
  test::ExpectLoadError(OnTorus(dim), at + "rows", "from 3 to 4");
  dim["rows"] = 6;  // 6 x 2
  test::ExpectLoadError(OnTorus(dim), at + "rows", "from 3 to 4");
  dim = TorusDim(3, 5);
  dim["rows"] = 4;  // does not divide 15
  test::ExpectLoadError(OnTorus(dim), at + "rows", "does not divide the size 15");
  dim.erase("rows");
  test::ExpectLoadError(OnTorus(dim), at + "rows", "missing");
  dim = TorusDim(3, 4);
  dim["size"] = 8;  // below 3 x 3
  test::ExpectLoadError(OnTorus(dim), at + "size", "from 9 to");
  dim = TorusDim(3, 4);
  dim["leaf_npus"] = 2;
  test::ExpectLoadError(OnTorus(dim), at + "leaf_npus", "only with \"kind\": \"Clos\"");
  nlohmann::json ring = {{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 1}, {"latency_ns", 1},
                         {"rows", 2}};
  test::ExpectLoadError(OnTorus(ring), at + "rows", "only with \"kind\": \"Torus2D\"");
}

TEST(TorusLoader, AlgorithmsItDoesNotPriceAreRefusedByName) {
  for (const char* algorithm : {"halving_doubling", "double_binary_tree"}) {
    nlohmann::json doc = OnTorus(TorusDim(4, 4));
    doc["communication"]["algorithms"] = {{"all_reduce", algorithm}};
    test::ExpectLoadError(doc, "communication.algorithms.all_reduce",
                          "accepted on Torus2D for all_reduce: \"ring\", \"direct\"");
  }
  nlohmann::json doc = OnTorus(TorusDim(3, 4), "all_to_all");
  doc["communication"]["algorithms"] = {{"all_to_all", "ring"}};
  test::ExpectLoadError(doc, "communication.algorithms.all_to_all",
                        "accepted on Torus2D for all_to_all: \"direct\"");
  doc = OnTorus(TorusDim(3, 4));
  doc["communication"]["pricing"] = "astra_sim";
  test::ExpectLoadError(doc, "communication.pricing", "no Torus2D");
  // A tensor group of part of the torus is no torus.
  nlohmann::json training = test::BaseTrainingScenario();
  training["topology"]["dimensions"] = nlohmann::json::array({TorusDim(3, 4)});
  training["workload"]["training"]["parallelism"] = {
      {"data", 4}, {"tensor", 3}, {"tensor_per_dimension", {3}}};
  test::ExpectLoadError(training, "workload.training.parallelism.tensor_per_dimension",
                        "span all of it or none of it");
}

// The closed forms against the walked schedule, bit for bit, on every torus from 3 x 3 to 6 x 6:
// ring (neighbour exchanges along the cycle) and direct (all pairs).
TEST(TorusClosedForms, MatchTheWalkedScheduleBitForBit) {
  int checked = 0;
  for (uint32_t rows = 3; rows <= 6; ++rows) {
    for (uint32_t columns = 3; columns <= 6; ++columns) {
      const Dimension dim = Torus2DDimension(rows, columns);
      const uint32_t n = dim.size;
      for (CollectiveKind kind : kAllCollectiveKinds) {
        for (CollectiveAlgorithm algorithm :
             {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kDirect}) {
          if (KindRefusal(kind, algorithm, DimensionKind::kTorus2D)) continue;
          SCOPED_TRACE(std::string(ToString(kind)) + " " + std::string(ToString(algorithm)) +
                       " on " + std::to_string(rows) + " x " + std::to_string(columns));
          const auto closed = ClosedFormProfile(kind, algorithm, dim);
          ASSERT_TRUE(closed);
          const ScheduleProfile walked = ProfileSchedule(BuildSchedule(kind, algorithm, n), dim);
          EXPECT_EQ(closed->steps, walked.steps);
          EXPECT_EQ(closed->messages, walked.messages);
          EXPECT_EQ(closed->latency_hops, walked.latency_hops);
          EXPECT_EQ(closed->bandwidth_coefficient, walked.bandwidth_coefficient);
          EXPECT_EQ(closed->reduction_coefficient, walked.reduction_coefficient);
          EXPECT_EQ(closed->traffic_coefficient, walked.traffic_coefficient);
          EXPECT_EQ(closed->link_bytes_coefficient, walked.link_bytes_coefficient);
          EXPECT_EQ(closed->received_messages, walked.received_messages);
          EXPECT_EQ(closed->sent_bytes_coefficient, walked.sent_bytes_coefficient);
          EXPECT_EQ(closed->received_bytes_coefficient, walked.received_bytes_coefficient);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 16 * 7);  // ring: AR, RS, AG; direct: all four
}

// Where the closed form says a step is bound by its busiest link alone, the flow engine's
// max-min rates give exactly that. Ring steps: every message is one hop on a link of its own, at
// the link's full rate (B/4). Direct on 3 x 4: every east link carries 9 of the 132 messages, the
// most any link carries, so max-min gives each of them B/36 from start to end, every other
// message is at least as fast, and the last message arrives after 9 blocks at B/4 and its 3 hops
// (such messages cross an east link): the closed form's busiest link and longest route.
TEST(TorusEngines, FlowTakesTheClosedFormTime) {
  struct Case {
    const char* kind;
    const char* algorithm;
    nlohmann::json dims;
  };
  const Case cases[] = {
      {"all_reduce", "ring", nlohmann::json::array({TorusDim(3, 4)})},
      {"all_reduce", "direct", nlohmann::json::array({TorusDim(3, 4)})},
      {"all_to_all", "direct", nlohmann::json::array({TorusDim(3, 4)})},
      {"all_gather", "ring", nlohmann::json::array({TorusDim(5, 3)})},
      // A torus beside a Ring: each stage on its own dimension.
      {"all_reduce", "ring",
       nlohmann::json::array({TorusDim(3, 3, 200),
                              {{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 50},
                               {"latency_ns", 100}}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.kind) + " " + c.algorithm + " on " + c.dims.dump());
    // 11.25 MiB = 180 x 65536 bytes: the blocks of 12, 15 and 36 ranks are whole bytes, as the
    // message engines send them (with 12 MiB on 15 ranks they round, 1e-6 off the closed form).
    nlohmann::json doc = test::CollectiveScenario(c.dims, c.kind, 180 << 16);
    doc["communication"]["algorithms"] = {{c.kind, c.algorithm}};
    const Scenario scenario = test::ParseOrDie(doc);
    const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
    const Report flow = FlowEngine().Run(scenario);
    std::printf("torus %s %s: flow / analytical = %.9f\n", c.kind, c.algorithm,
                flow.iteration.total_ns / analytical);
    EXPECT_NEAR(flow.iteration.total_ns / analytical, 1.0, 1e-9);
    ASSERT_TRUE(flow.flow);
    EXPECT_EQ(flow.flow->bytes_delivered, flow.flow->bytes_sent);
  }
}

// Packets on a 3 x 3 torus. The ring all-reduce's ranks follow the Hamiltonian cycle, one hop
// each on a link of its own at B/4, so its packets see exactly what they see on a Ring of 9
// whose 2 links per NPU carry the same B/4 each (B/2 per NPU): the same time to the nanosecond.
// Every byte arrives, and with 8 MiB, bandwidth-bound, packets are within flow.md's 5 % of flows
// (at 1 MiB the packet engine's per-message overheads make it 16 % slower, on the Ring alike).
TEST(TorusEngines, PacketRunIsTheRingOfItsCycleAndAgreesWithFlows) {
  const nlohmann::json ring = {
      {"kind", "Ring"}, {"size", 9}, {"bandwidth_GBps", 50}, {"latency_ns", 500}};
  for (const uint64_t bytes : {uint64_t{1} << 20, uint64_t{8} << 20}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    const Scenario scenario = test::ParseOrDie(
        test::CollectiveScenario(nlohmann::json::array({TorusDim(3, 3)}), "all_reduce", bytes));
    const Report packet = PacketEngine().Run(scenario);
    ASSERT_TRUE(packet.packet);
    EXPECT_EQ(packet.packet->bytes_delivered, packet.packet->bytes_scheduled);
    EXPECT_EQ(packet.packet->protocol_errors, 0u);
    const Report on_ring = PacketEngine().Run(test::ParseOrDie(
        test::CollectiveScenario(nlohmann::json::array({ring}), "all_reduce", bytes)));
    EXPECT_NEAR(packet.iteration.total_ns / on_ring.iteration.total_ns, 1.0, 1e-12);
    const double flow = FlowEngine().Run(scenario).iteration.total_ns;
    std::printf("torus 3 x 3 ring all-reduce, %lu bytes: flow / packet = %.4f\n",
                static_cast<unsigned long>(bytes), flow / packet.iteration.total_ns);
    if (bytes == uint64_t{8} << 20) {
      EXPECT_NEAR(flow / packet.iteration.total_ns, 1.0, 0.05);
    }
  }
}

// The shipped configs/torus-allreduce.json (a 4 x 4 torus times a Switch of 4, ring on both).
// The torus's ring steps are one hop each along the Hamiltonian cycle, at B/4 a link, so every
// engine must take exactly the time of the same scenario on a Ring of 16 with the same B/4 per
// link (B/2 per NPU). With one chunk every stage's messages have links of their own, so flows
// take the analytical time; with the config's 4 chunks the two engines pipeline the chunks
// differently (flow / analytical = 0.912, the same on the Ring: not the torus's doing). Packets
// deliver every byte. 16 MiB over 4 chunks and 64 ranks: 65,536-byte blocks, whole bytes.
TEST(TorusEngines, ShippedConfigIsTheRingOfItsCycleOnEveryEngine) {
  const auto loaded =
      LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/torus-allreduce.json");
  ASSERT_TRUE(loaded) << loaded.Error().ToString();
  const Scenario& scenario = loaded.Value();
  ASSERT_EQ(scenario.dimensions[0].kind, DimensionKind::kTorus2D);
  Scenario on_ring = scenario;
  on_ring.dimensions[0] = Dimension{};
  on_ring.dimensions[0].kind = DimensionKind::kRing;
  on_ring.dimensions[0].size = 16;
  on_ring.dimensions[0].bandwidth_Bpns = scenario.dimensions[0].bandwidth_Bpns / 2;
  on_ring.dimensions[0].latency_ns = scenario.dimensions[0].latency_ns;
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  EXPECT_NEAR(analytical / AnalyticalEngine().Run(on_ring).iteration.total_ns, 1.0, 1e-12);
  const Report flow = FlowEngine().Run(scenario);
  EXPECT_NEAR(flow.iteration.total_ns / FlowEngine().Run(on_ring).iteration.total_ns, 1.0,
              1e-12);
  std::printf("torus-allreduce.json: flow / analytical = %.9f\n",
              flow.iteration.total_ns / analytical);
  Scenario one_chunk = scenario;
  one_chunk.communication.chunks = 1;
  EXPECT_NEAR(FlowEngine().Run(one_chunk).iteration.total_ns /
                  AnalyticalEngine().Run(one_chunk).iteration.total_ns,
              1.0, 1e-9);
  const Report packet = PacketEngine().Run(scenario);
  ASSERT_TRUE(packet.packet);
  EXPECT_EQ(packet.packet->bytes_delivered, packet.packet->bytes_scheduled);
  EXPECT_EQ(packet.packet->protocol_errors, 0u);
  EXPECT_NEAR(packet.iteration.total_ns / PacketEngine().Run(on_ring).iteration.total_ns, 1.0,
              1e-12);
  std::printf("torus-allreduce.json: flow / packet = %.4f\n",
              flow.iteration.total_ns / packet.iteration.total_ns);
}

// A torus pays for its links only, as a Ring does.
TEST(TorusCost, UnitPriceIsTheLinkPrice) {
  const DimensionPrices prices = LibraPrices(CostClass::kPod);
  EXPECT_EQ(UnitPriceOf(Torus2DDimension(3, 4), prices).usd_per_GBps, prices.link_usd_per_GBps);
}

}  // namespace
}  // namespace hfsim
