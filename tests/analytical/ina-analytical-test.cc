// The analytical engine's in-network all-reduce (models/in-network-allreduce.h) against
// hand-computed closed forms, and the loader's checks of "in_network" (sim/scenario/in-network-check.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "models/in-network-allreduce.h"
#include "sim/analytical/analytical-engine.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

// A 4-NPU Switch dimension at 1 GB/s (1 byte/ns) and 100 ns per link; an all-reduce of 40 bytes
// (10 fp32 values) in packets of 4 values (frame 58 + 16 = 74 bytes), 2 aggregator slots.
nlohmann::json SmallCase(const std::string& fixed_point) {
  return {{"topology",
           {{"dimensions",
             {{{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 1.0}, {"latency_ns", 100}}}}}},
          {"workload",
           {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 40}, {"dimensions", {0}}}}}},
          {"communication", {{"algorithms", {{"all_reduce", "in_network"}}}}},
          {"aggregation",
           {{"workers", 4},
            {"aggregator_slots", 2},
            {"values_per_packet", 4},
            {"fixed_point", fixed_point}}}};
}

Scenario Parse(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  if (!scenario) ADD_FAILURE() << scenario.Error().ToString();
  return std::move(scenario).Value();
}

std::string ErrorOf(const nlohmann::json& doc) {
  auto scenario = ParseScenario(doc);
  return scenario ? std::string("(accepted)") : scenario.Error().ToString();
}

TEST(InaAnalytical, FixedScaleMatchesHandComputedWindowBound) {
  // Blocks of 4, 4, 2 values: slot 0 carries blocks 0 and 2 (2 rounds), slot 1 block 1.
  // t = 74 ns, RT = 2t + 2a = 348 ns, M = 3 packets.
  // Bandwidth bound: 3 t + t + 2a = 222 + 74 + 200 = 496 ns.
  // Window bound: slot 0 ends at 1 t + 1 RT = 422, slot 1 at 2 t = 148; 422 + 274 = 696 ns.
  const Report report = AnalyticalEngine().Run(Parse(SmallCase("fixed_scale")));
  EXPECT_DOUBLE_EQ(report.iteration.total_ns, 696.0);
  ASSERT_TRUE(report.in_network);
  EXPECT_EQ(report.in_network->packets_per_worker, 3u);
  EXPECT_EQ(report.in_network->frame_bytes, 74u);
  EXPECT_DOUBLE_EQ(report.in_network->bandwidth_bound_ns, 496.0);
  EXPECT_DOUBLE_EQ(report.in_network->window_bound_ns, 696.0);
  EXPECT_DOUBLE_EQ(report.collectives.at(0).dimension_traffic_bytes.at(0), 3 * 74.0);
}

TEST(InaAnalytical, BlockExponentsAddOnePrimingRoundPerSlot) {
  // Priming: slot 0 has 3 rounds, slot 1 has 2; M = 5 packets.
  // Bandwidth bound: 5 t + t + 2a = 370 + 274 = 644 ns.
  // Window bound: slot 0 ends at t + 2 RT = 770, slot 1 at 2 t + RT = 496; 770 + 274 = 1044 ns.
  const Report report = AnalyticalEngine().Run(Parse(SmallCase("block_exponent")));
  EXPECT_DOUBLE_EQ(report.iteration.total_ns, 1044.0);
  EXPECT_EQ(report.in_network->packets_per_worker, 5u);
  EXPECT_DOUBLE_EQ(report.in_network->bandwidth_bound_ns, 644.0);
}

TEST(InaAnalytical, BandwidthBoundWhenThePoolCoversTheRoundTrip) {
  // 16 workers, 512 slots, 64 values per packet, 2 MiB: 8192 blocks + 512 priming = 8704 packets
  // of 314 B at 12.5 B/ns; the pool keeps the link busy, so time = 8705 t + 2a.
  AggregationSwitchSpec spec;
  spec.workers = 16;
  spec.value_bits = WidestSafeValueBits(16);
  const InNetworkAllReducePrice price =
      PriceInNetworkAllReduce(spec, InNetworkValues(2 << 20), 12.5, 500.0);
  EXPECT_EQ(price.traffic.packets_per_worker, 8704u);
  EXPECT_DOUBLE_EQ(price.time_ns, 8705 * 314 / 12.5 + 1000.0);
  EXPECT_LT(price.window_bound_ns, price.bandwidth_bound_ns);
}

TEST(InaAnalytical, FewerBytesThanARingOnTheSameSwitch) {
  // Ring all-reduce sends 2 (N - 1) / N of the buffer per NPU (1.875 S for N = 16); the switch
  // needs S x 314 / 256 (frames of 64 values) plus the priming packets: about 1.30 S.
  nlohmann::json doc = SmallCase("block_exponent");
  doc["topology"]["dimensions"][0]["size"] = 16;
  doc["topology"]["dimensions"][0]["bandwidth_GBps"] = 12.5;
  doc["workload"]["collective"]["size_bytes"] = 2 << 20;
  doc["aggregation"] = {{"workers", 16}};
  const double ina = AnalyticalEngine().Run(Parse(doc)).iteration.total_ns;
  doc["communication"]["algorithms"]["all_reduce"] = "ring";
  doc.erase("aggregation");
  const double ring = AnalyticalEngine().Run(Parse(doc)).iteration.total_ns;
  EXPECT_GT(ring / ina, 1.4);
  EXPECT_LT(ring / ina, 1.875 / 1.2);
}

TEST(InaLoader, RefusesWhatInNetworkCannotRun) {
  nlohmann::json doc = SmallCase("fixed_scale");
  doc["topology"]["dimensions"][0]["kind"] = "Ring";
  EXPECT_EQ(ErrorOf(doc),
            "communication.algorithms.all_reduce: \"in_network\" needs a Switch dimension to "
            "aggregate in, and dimension 0 is Ring; accepted on Ring: \"ring\", \"direct\", "
            "\"halving_doubling\", \"double_binary_tree\"");

  doc = SmallCase("fixed_scale");
  doc.erase("aggregation");
  EXPECT_NE(ErrorOf(doc).find("communication.algorithms.all_reduce: \"in_network\" needs an "
                              "\"aggregation\" section"),
            std::string::npos);

  doc = SmallCase("fixed_scale");
  doc["aggregation"]["workers"] = 8;
  EXPECT_EQ(ErrorOf(doc),
            "aggregation.workers: the switch of dimension 0 aggregates its 4 NPUs, and the spec "
            "has 8 workers; accepted: 4");

  doc = SmallCase("fixed_scale");
  doc["aggregation"]["mode"] = "parameter_server";
  EXPECT_NE(ErrorOf(doc).find("aggregation.mode: \"in_network\" all-reduce needs \"allreduce\""),
            std::string::npos);

  doc = SmallCase("fixed_scale");
  doc["communication"]["algorithms"]["reduce_scatter"] = {"in_network"};
  EXPECT_NE(ErrorOf(doc).find("communication.algorithms.reduce_scatter[0]: \"in_network\" runs "
                              "all_reduce only"),
            std::string::npos);

  doc = SmallCase("fixed_scale");
  doc["optimize"] = {{"objective", "time"}, {"total_bandwidth_GBps_per_npu", 10}};
  EXPECT_NE(ErrorOf(doc).find("optimize: the optimiser's time model prices peer-to-peer "
                              "schedules"),
            std::string::npos);

  doc = SmallCase("fixed_scale");
  doc["communication"]["pricing"] = "astra_sim";
  EXPECT_NE(ErrorOf(doc).find("communication.algorithms.all_reduce: \"in_network\" has no "
                              "astra_sim pricing"),
            std::string::npos);
}

TEST(InaLoader, PacketEngineRunsOneDimensionCollectivesInOneChunk) {
  nlohmann::json doc = SmallCase("fixed_scale");
  doc["engine"] = "packet";
  doc["communication"]["chunks"] = 2;
  EXPECT_EQ(ErrorOf(doc),
            "communication.chunks: got 2; the packet engine's in-network aggregation pipelines by "
            "its slot pool, so accepted with \"in_network\": 1");
  doc["communication"].erase("chunks");
  doc["topology"]["dimensions"].push_back(
      {{"kind", "Switch"}, {"size", 4}, {"bandwidth_GBps", 1.0}, {"latency_ns", 100}});
  doc["workload"]["collective"]["dimensions"] = {1, 0};
  EXPECT_NE(ErrorOf(doc).find("communication.algorithms.all_reduce: the packet engine runs "
                              "\"in_network\" only for a \"collective\" all_reduce workload on one "
                              "dimension"),
            std::string::npos);
  // The analytical engine prices it as the last (all-reduce) stage of the hierarchy.
  doc["engine"] = "analytical";
  doc["communication"]["algorithms"]["all_reduce"] = {"in_network", "ring"};
  const Report report = AnalyticalEngine().Run(Parse(doc));
  EXPECT_GT(report.iteration.total_ns, 0.0);
  // In a reduce-scatter stage it cannot run.
  doc["communication"]["algorithms"]["all_reduce"] = {"ring", "in_network"};
  EXPECT_NE(ErrorOf(doc).find("\"in_network\" cannot run the reduce_scatter stage"),
            std::string::npos);
}

}  // namespace
}  // namespace hfsim
