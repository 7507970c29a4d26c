// The Clos dimension kind across the loader and the engines: its keys refused where they do not
// fit, the analytical engine's even-ECMP pricing against the flow engine's hashed flows (equal
// where the spines are not the bottleneck, never faster where they are), a packet run's
// conservation, and its price.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "models/cost-model.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"
#include "sim/report/report-json.h"
#include "topologies/kinds/clos.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

nlohmann::json ClosDim(uint32_t n, uint32_t k, uint32_t spines, double r) {
  return {{"kind", "Clos"}, {"size", n},        {"bandwidth_GBps", 100}, {"latency_ns", 500},
          {"leaf_npus", k}, {"spines", spines}, {"oversubscription", r}};
}

TEST(ClosLoader, ShapesThatDoNotFitAreRefusedAtTheirKey) {
  auto with = [](nlohmann::json dim) {
    return test::CollectiveScenario(nlohmann::json::array({dim}), "all_reduce", 1 << 20);
  };
  const std::string at = "topology.dimensions[0].";
  test::ExpectLoadError(with(ClosDim(16, 5, 2, 1)), at + "leaf_npus", "does not divide");
  test::ExpectLoadError(with(ClosDim(16, 16, 2, 1)), at + "leaf_npus", "from 1 to 8");
  test::ExpectLoadError(with(ClosDim(16, 4, 5, 1)), at + "spines", "from 1 to 4");
  test::ExpectLoadError(with(ClosDim(16, 4, 0, 1)), at + "spines", "");
  test::ExpectLoadError(with(ClosDim(16, 4, 2, 0.5)), at + "oversubscription", "");
  nlohmann::json no_leaves = ClosDim(16, 4, 2, 1);
  no_leaves.erase("leaf_npus");
  test::ExpectLoadError(with(no_leaves), at + "leaf_npus", "");
  nlohmann::json switch_with_spines = {{"kind", "Switch"},
                                       {"size", 16},
                                       {"bandwidth_GBps", 100},
                                       {"latency_ns", 500},
                                       {"spines", 2}};
  test::ExpectLoadError(with(switch_with_spines), at + "spines", "only with");
  nlohmann::json astra = with(ClosDim(16, 4, 2, 1));
  astra["communication"]["pricing"] = "astra_sim";
  test::ExpectLoadError(astra, "communication.pricing", "no Clos");
  nlohmann::json tcp = with(ClosDim(16, 4, 2, 1));
  tcp["packet"] = {{"transport", "tcp"}};
  test::ExpectLoadError(tcp, "packet.transport", "no ECMP");
  // A group spanning part of a Clos dimension: which leaves it holds would decide its cost.
  std::vector<int> low(8), high(8), all(16);
  for (int i = 0; i < 16; ++i) all[i] = i;
  for (int i = 0; i < 8; ++i) low[i] = i, high[i] = 8 + i;
  const nlohmann::json half = {
      {"topology", {{"dimensions", nlohmann::json::array({ClosDim(16, 4, 2, 1)})}}},
      {"workload",
       {{"graph",
         {{"communicators", {{{"name", "half"}, {"groups", {low, high}}}}},
          {"programs",
           {{{"ranks", all},
             {"nodes",
              {{{"id", 1},
                {"type", "collective"},
                {"kind", "all_reduce"},
                {"size_bytes", 1024},
                {"communicator", "half"}}}}}}}}}}}};
  auto refused = ParseScenario(half);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.Error().ToString().find("spans 8 of the 16 NPUs of Clos dimension 0"),
            std::string::npos)
      << refused.Error().ToString();
  // The same for the tensor and data groups of tensor_per_dimension, at load (it was accepted,
  // and the run failed with exit 1, or a flow run's memory estimate priced a Clos that does
  // not exist).
  nlohmann::json training = test::BaseTrainingScenario();
  training["topology"]["dimensions"] = nlohmann::json::array(
      {ClosDim(8, 4, 2, 1),
       {{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 500}}});
  training["workload"]["training"]["parallelism"] = {
      {"data", 16}, {"tensor", 2}, {"tensor_per_dimension", {2, 1}}};
  test::ExpectLoadError(training, "workload.training.parallelism.tensor_per_dimension",
                        "splits Clos dimension 0 (8 NPUs) into tensor groups of 2 and data "
                        "groups of 4");
  training["workload"]["training"]["parallelism"]["tensor_per_dimension"] = {1, 2};
  test::ParseOrDie(training);  // the Ring may be split
  // Parameter-server and gossip traffic is not spread over the spines yet: refused.
  for (const auto& [file, key] : {std::pair{"ps-lite-dense.json", "workload.parameter_server"},
                                  std::pair{"s3-gossip-adaptive.json", "workload.gossip"}}) {
    std::ifstream in(std::string(HFSIM_SOURCE_DIR) + "/configs/" + file);
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["topology"]["dimensions"] = nlohmann::json::array({ClosDim(16, 4, 2, 1)});
    test::ExpectLoadError(doc, key, "not spread over the spines");
  }
  // The echo reads back as the same scenario.
  const Scenario scenario = test::ParseOrDie(with(ClosDim(16, 4, 2, 1.5)));
  const ClosParameters clos = ClosParametersOf(scenario.dimensions[0]);
  EXPECT_EQ(clos.leaf_npus, 4u);
  EXPECT_EQ(clos.spines, 2u);
  EXPECT_EQ(clos.oversubscription, 1.5);
}

// A ring all-reduce on a Clos without oversubscription: each leaf sends 2 blocks a step to other
// leaves over spine links of 2 x an NPU's bandwidth, so nothing congests and the flow engine's
// hashed spines take the analytical time.
TEST(ClosEngines, UncongestedRingAllReduceOnFlowsTakesTheAnalyticalTime) {
  const Scenario scenario = test::ParseOrDie(test::CollectiveScenario(
      nlohmann::json::array({ClosDim(32, 8, 4, 1)}), "all_reduce", 8 << 20));
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  const double flow = FlowEngine().Run(scenario).iteration.total_ns;
  std::printf("Clos ring all-reduce: flow / analytical = %.9f\n", flow / analytical);
  EXPECT_NEAR(flow / analytical, 1.0, 1e-9);
}

// A direct all-to-all on a 2:1 Clos of 64 NPUs, 8 per leaf, 4 spines: the leaves' up-links bound
// it. The analytical engine spreads each leaf's traffic evenly over its spines; hashed flows can
// only do as well or worse, and with 448 flows per leaf they stay close.
TEST(ClosEngines, OversubscribedAllToAllOnFlowsIsNeverFasterThanEvenEcmp) {
  nlohmann::json doc = test::CollectiveScenario(nlohmann::json::array({ClosDim(64, 8, 4, 2)}),
                                                "all_to_all", 16 << 20);
  doc["communication"]["algorithms"] = {{"all_to_all", "direct"}};
  const Scenario scenario = test::ParseOrDie(doc);
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  const Report flow = FlowEngine().Run(scenario);
  const double ratio = flow.iteration.total_ns / analytical;
  std::printf("Clos 2:1 all-to-all: flow / analytical = %.6f\n", ratio);
  EXPECT_GE(ratio, 1.0 - 1e-9);
  // Hash collisions: about 112 flows per spine, give or take 9; 1.5 is far out in the tail.
  EXPECT_LE(ratio, 1.5);
  ASSERT_TRUE(flow.flow);
  EXPECT_EQ(flow.flow->bytes_delivered, flow.flow->bytes_sent);
  // The same on a Switch of 64 (no spines): the analytical and flow times are lower.
  nlohmann::json flat = doc;
  flat["topology"]["dimensions"][0] = {
      {"kind", "Switch"}, {"size", 64}, {"bandwidth_GBps", 100}, {"latency_ns", 500}};
  EXPECT_LT(AnalyticalEngine().Run(test::ParseOrDie(flat)).iteration.total_ns, analytical);
}

// Deterministic: the same scenario and seed give the same report.json, byte for byte; another
// seed hashes the messages to other spines, and on a congested Clos that changes the time.
TEST(ClosEngines, FlowRunsAreDeterministicForASeed) {
  nlohmann::json doc = test::CollectiveScenario(nlohmann::json::array({ClosDim(64, 8, 4, 2)}),
                                                "all_to_all", 4 << 20);
  doc["communication"]["algorithms"] = {{"all_to_all", "direct"}};
  doc["engine"] = "flow";
  doc["seed"] = 1;
  const Scenario one = test::ParseOrDie(doc);
  const std::string first = ReportToJson(FlowEngine().Run(one), one).dump();
  EXPECT_EQ(ReportToJson(FlowEngine().Run(one), one).dump(), first);
  doc["seed"] = 2;
  const Scenario two = test::ParseOrDie(doc);
  EXPECT_NE(FlowEngine().Run(two).iteration.total_ns, FlowEngine().Run(one).iteration.total_ns);
}

// Packets on a small Clos: every byte arrives, through the spines ECMP picks.
TEST(ClosEngines, PacketRunOnAClosConservesBytes) {
  nlohmann::json doc =
      test::CollectiveScenario(nlohmann::json::array({ClosDim(8, 2, 2, 2)}), "all_to_all", 1 << 20);
  doc["communication"]["algorithms"] = {{"all_to_all", "direct"}};
  const Scenario scenario = test::ParseOrDie(doc);
  const Report packet = PacketEngine().Run(scenario);
  ASSERT_TRUE(packet.packet);
  EXPECT_EQ(packet.packet->bytes_delivered, packet.packet->bytes_scheduled);
  EXPECT_EQ(packet.packet->protocol_errors, 0u);
  const double flow = FlowEngine().Run(scenario).iteration.total_ns;
  std::printf("Clos 2:1 all-to-all, 8 NPUs: flow / packet = %.4f\n",
              flow / packet.iteration.total_ns);
}

// A Clos costs a Switch's unit (link, switch port, NIC per GB/s) plus a link and two switch
// ports per GB/s of leaf-spine capacity, 1/r of the NPU's.
TEST(ClosCost, UnitPriceAddsTheSpineTier) {
  const DimensionPrices prices = LibraPrices(CostClass::kPod);
  const Dimension dim = ClosDimension(16, {4, 2, 4.0});
  const double sw = UnitPriceOf(DimensionKind::kSwitch, prices).usd_per_GBps;
  EXPECT_DOUBLE_EQ(UnitPriceOf(dim, prices).usd_per_GBps,
                   sw + (prices.link_usd_per_GBps + 2 * *prices.switch_usd_per_GBps) / 4.0);
}

}  // namespace
}  // namespace hfsim
