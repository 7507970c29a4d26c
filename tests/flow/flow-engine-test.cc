// The flow engine end to end: a scenario in, a report out, described as the packet engine
// describes its runs (sim/messages/graph-report.h). On an uncongested training job (tensor,
// data and pipeline on dimensions of their own) it agrees with the analytical engine; where
// messages share links the flows slow each other down, which the analytical engine's closed
// forms do not see.
#include "sim/flow/flow-engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "sim/analytical/analytical-engine.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/flow/flow-memory.h"
#include "sim/flow/flow-refusal.h"
#include "sim/report/report-csv.h"
#include "sim/report/report-json.h"
#include "sim/analytical/expected-end.h"
#include "tests/scenario/scenario-test-util.h"
#include "workloads/graph/placed-graph.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {
namespace {

nlohmann::json Dim(const char* kind, uint32_t size, double gbps, double latency) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", gbps}, {"latency_ns", latency}};
}

// Tensor 2 (FullyConnected) x data 2 (Ring) x pipeline 2 (Switch) on 8 NPUs, 1F1B over 4
// micro-batches: each parallel group on a dimension of its own.
nlohmann::json PipelineJob() {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    layers.push_back({{"name", "block" + std::to_string(i)},
                      {"params", 1 << 20},
                      {"output_elements_per_sample", 1 << 20},
                      {"tensor_parallel_all_reduces", 2},
                      {"forward_ns", 40000},
                      {"input_grad_ns", 40000},
                      {"weight_grad_ns", 40000}});
  }
  return {
      {"topology",
       {{"dimensions",
         {Dim("FullyConnected", 2, 300, 100), Dim("Ring", 2, 50, 500),
          Dim("Switch", 2, 25, 1000)}}}},
      {"workload",
       {{"training",
         {{"model", {{"name", "blocks"}, {"layers", layers}}},
          {"global_batch_samples", 8},
          {"parallelism", {{"tensor", 2}, {"data", 2}, {"pipeline", 2}, {"micro_batches", 4}}}}}}}};
}

// `hfsim run --engine flow` on a terminal, step by step as RunCommand::Execute takes them: the
// loader (which checks the flow engine's memory estimate for a scenario naming it), the run's
// own admission check, the progress line's estimate and the engine. The graph is generated and
// placed once, by the loader; the rest read it. (They used to build it and compile its schedule
// five times: the loader, the estimate twice, the progress estimate and the engine.) It is
// priced twice, at the scenario's bandwidths: for the progress line's end, and for the rank the
// flow report describes.
TEST(FlowEngine, ARunGeneratesAndPlacesItsGraphOnce) {
  nlohmann::json doc = PipelineJob();
  doc["engine"] = "flow";
  const uint64_t generated = GeneratedGraphCount(), placed = PlacedGraphCount();
  const uint64_t priced = GraphPricing::CompileCount();
  const Scenario scenario = test::ParseOrDie(doc);
  EXPECT_FALSE(FlowRefusal(scenario).has_value());
  const double expected_end = ExpectedEndNs(scenario);
  const Report report = FlowEngine().Run(scenario);
  EXPECT_EQ(GeneratedGraphCount() - generated, 1u);
  EXPECT_EQ(PlacedGraphCount() - placed, 1u);
  EXPECT_EQ(GraphPricing::CompileCount() - priced, 2u);
  EXPECT_NEAR(report.iteration.total_ns / expected_end, 1.0, 0.01);
}

TEST(FlowEngine, AnUncongestedPipelineJobAgreesWithTheAnalyticalEngine) {
  const Scenario scenario = test::ParseOrDie(PipelineJob());
  const Report flow = FlowEngine().Run(scenario);
  const Report analytical = AnalyticalEngine().Run(scenario);
  std::printf("flow / analytical = %.6f\n",
              flow.iteration.total_ns / analytical.iteration.total_ns);
  EXPECT_EQ(flow.engine, "flow");
  EXPECT_NEAR(flow.iteration.total_ns / analytical.iteration.total_ns, 1.0, 0.01);
  EXPECT_DOUBLE_EQ(flow.iteration.ComputeNs(), analytical.iteration.ComputeNs());
  ASSERT_EQ(flow.collectives.size(), analytical.collectives.size());
  for (size_t i = 0; i < flow.collectives.size(); ++i) {
    EXPECT_EQ(flow.collectives[i].size_bytes, analytical.collectives[i].size_bytes);
    EXPECT_EQ(flow.collectives[i].occurrences, analytical.collectives[i].occurrences);
  }
}

// Incast: NPUs 0 and 1 each send 100,000 bytes to NPU 2 on one Switch (50 GB/s per NPU, 500 ns
// per hop), at the same time. The analytical engine prices each send on its own (2 x 500 +
// 100,000 / 50 = 3,000 ns); on flows they share NPU 2's down-link, at 25 GB/s each, and take
// 2,000 ns longer.
TEST(FlowEngine, IncastSharesTheReceiversLink) {
  auto send = [](int peer) {
    return nlohmann::json{
        {"id", 1}, {"type", "send"}, {"peer", 2}, {"tag", peer}, {"size_bytes", 100000}};
  };
  auto recv = [](int id, int peer) {
    return nlohmann::json{{"id", id},    {"type", "recv"},       {"peer", peer},
                          {"tag", peer}, {"size_bytes", 100000}, {"stream", id}};
  };
  const nlohmann::json doc = {{"topology", {{"dimensions", nlohmann::json::array({Dim("Switch", 3, 50, 500)})}}},
                              {"workload",
                               {{"graph",
                                 {{"communicators", nlohmann::json::array()},
                                  {"programs",
                                   {{{"ranks", {0}}, {"nodes", {send(0)}}},
                                    {{"ranks", {1}}, {"nodes", {send(1)}}},
                                    {{"ranks", {2}}, {"nodes", {recv(1, 0), recv(2, 1)}}}}}}}}}};
  const Scenario scenario = test::ParseOrDie(doc);
  const Report report = FlowEngine().Run(scenario);
  const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
  EXPECT_NEAR(report.iteration.total_ns - analytical, 100000.0 / 50, 1e-6);

  // What the flow section says of it, by hand: a Switch of 3 has an up-link and a down-link per
  // NPU; NPU 0's and 1's up-links carry 100,000 bytes each, NPU 2's down-link both messages at
  // once; the other three carry nothing. Every message and byte sent arrives.
  ASSERT_TRUE(report.flow.has_value());
  const FlowReport& f = *report.flow;
  EXPECT_EQ(f.messages_sent, 2u);
  EXPECT_EQ(f.messages_delivered, 2u);
  EXPECT_EQ(f.bytes_sent, 200000u);
  EXPECT_EQ(f.bytes_delivered, 200000u);
  ASSERT_EQ(f.links.size(), 6u);
  std::map<std::pair<uint64_t, uint64_t>, const FlowLinkReport*> by_ends;
  for (const FlowLinkReport& l : f.links) by_ends[{l.source, l.target}] = &l;
  const uint64_t hub = 3;  // vertex ids: NPUs first, then the switch
  ASSERT_TRUE(by_ends.count({0, hub}) && by_ends.count({1, hub}) && by_ends.count({hub, 2}));
  const FlowLinkReport& up0 = *by_ends.at({0, hub});
  const FlowLinkReport& up1 = *by_ends.at({1, hub});
  const FlowLinkReport& down2 = *by_ends.at({hub, 2});
  EXPECT_EQ(up0.bytes, 100000u);
  EXPECT_EQ(up1.bytes, 100000u);
  EXPECT_EQ(down2.bytes, 200000u);
  EXPECT_EQ(down2.peak_flows, 2u);
  EXPECT_EQ(up0.peak_flows, 1u);
  uint64_t carried = 0;
  for (const FlowLinkReport& l : f.links) carried += l.bytes;
  EXPECT_EQ(carried, 400000u);  // two hops per message
  // The down-link is busy for the whole 4,000 ns of draining out of the run's 5,000 ns.
  EXPECT_NEAR(down2.utilisation, 200000.0 / (50 * report.iteration.total_ns), 1e-12);
  EXPECT_EQ(f.simulated_ns, report.iteration.total_ns);
  // links.csv: a header and one row per link.
  const std::string csv = LinksCsv(f);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "link,source,target,dimension,bytes,utilisation_fraction,peak_flows");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  const nlohmann::json json = ReportToJson(report, scenario);
  EXPECT_EQ(json["flow"]["conservation"]["bytes_delivered"], 200000u);
  EXPECT_EQ(json["flow"]["fabric"]["busiest_links"][0]["bytes"], 200000u);
  EXPECT_FALSE(json.contains("packet"));
}

// What flows do not model is refused when the scenario is loaded, at "engine": in-network
// aggregation (the shipped SwitchML comparison).
TEST(FlowEngine, WhatFlowsDoNotModelIsRefusedAtEngine) {
  nlohmann::json collective = test::CollectiveScenario(
      nlohmann::json::array({Dim("Switch", 4, 100, 500)}), "all_reduce", 1 << 20);
  collective["engine"] = "flow";
  EXPECT_EQ(test::ParseOrDie(collective).engine, EngineKind::kFlow);
  std::ifstream file(std::string(HFSIM_SOURCE_DIR) + "/configs/s1-switchml-vs-ring.json");
  nlohmann::json in_network = nlohmann::json::parse(file);
  in_network["engine"] = "flow";
  test::ExpectLoadError(in_network, "engine", "no switch that aggregates");
}

// The memory estimate's schedule term is the closed form's count of block transfers: a ring
// all-reduce on n NPUs is 2(n - 1) steps of n NPUs sending both ways, 4n(n - 1). On one Switch of
// 16,384 NPUs that is 1.07e9 transfers, about 48 GiB: refused at "engine" under the default
// 16 GiB, accepted with a larger packet.max_memory_GiB (not run here).
TEST(FlowEngine, RunsThatWouldNotFitInMemoryAreRefusedAtEngine) {
  auto ring = [](uint32_t n) {
    nlohmann::json d = test::CollectiveScenario(nlohmann::json::array({Dim("Switch", n, 50, 500)}),
                                                "all_reduce", 1 << 20);
    d["engine"] = "flow";
    return d;
  };
  const FlowMemoryEstimate small = EstimateFlowMemory(test::ParseOrDie(ring(4096)));
  EXPECT_EQ(small.schedule_transfers, 4.0 * 4096 * 4095);
  EXPECT_LT(small.TotalBytes(), 16.0 * (1u << 30));
  test::ExpectLoadError(ring(16384), "engine", "would need about");
  nlohmann::json roomy = ring(16384);
  roomy["packet"] = {{"max_memory_GiB", 64}};
  const Scenario accepted = test::ParseOrDie(roomy);
  EXPECT_EQ(EstimateFlowMemory(accepted).schedule_transfers, 4.0 * 16384 * 16383);
}

}  // namespace
}  // namespace hfsim
