// Execution graphs run on fluid flows: the packet engine's graph driver and collective executor
// on EventLoop and FlowTransport. On an uncongested fabric every message has its links to
// itself, so a collective takes exactly what the analytical engine's closed form says (the issue
// asks for 1 %; the two agree to rounding).
#include <gtest/gtest.h>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-transport.h"
#include "sim/messages/event-loop.h"
#include "sim/messages/graph-driver.h"
#include "sim/messages/message-mux.h"
#include "sim/scenario/scenario-graph.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

struct FlowRun {
  double total_ns;
  double link_bytes;
};

FlowRun RunOnFlows(const Scenario& scenario) {
  const Topology topology(scenario.dimensions);
  const FabricGraph fabric(topology);
  EventLoop clock;
  FlowTransport transport(fabric, clock);
  MessageMux mux(transport);
  CollectiveExecutor executor(topology, scenario.communication, clock, mux.Channel(0));
  const ExecutionGraph graph = BuildExecutionGraph(scenario);
  GraphDriver driver(topology, graph, executor, mux.Channel(1), clock,
                     scenario.communication.endpoint_delay_ns);
  driver.Start();
  clock.Run();
  EXPECT_TRUE(driver.Finished());
  double bytes = 0.0;
  for (const double b : transport.Network().LinkBytes()) bytes += b;
  return {driver.TotalNs(), bytes};
}

nlohmann::json Dim(const char* kind, uint32_t size, double gbps, double latency) {
  return {{"kind", kind}, {"size", size}, {"bandwidth_GBps", gbps}, {"latency_ns", latency}};
}

class UncongestedCollective : public ::testing::TestWithParam<const char*> {};

TEST_P(UncongestedCollective, TakesTheClosedForm) {
  for (const nlohmann::json& dim :
       {Dim("Ring", 8, 100, 500), Dim("FullyConnected", 8, 100, 500), Dim("Switch", 8, 100, 500)}) {
    const Scenario scenario = test::ParseOrDie(
        test::CollectiveScenario(nlohmann::json::array({dim}), GetParam(), 1 << 24));
    const double analytical = AnalyticalEngine().Run(scenario).iteration.total_ns;
    const FlowRun flows = RunOnFlows(scenario);
    EXPECT_NEAR(flows.total_ns / analytical, 1.0, 1e-6) << dim.dump();
    std::printf("%s %s flow / analytical = %.4f\n", GetParam(),
                dim["kind"].get<std::string>().c_str(), flows.total_ns / analytical);
    EXPECT_GT(flows.link_bytes, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, UncongestedCollective,
                         ::testing::Values("all_reduce", "all_gather", "reduce_scatter",
                                           "all_to_all"));

}  // namespace
}  // namespace hfsim
