// The per-NPU training loop on the executor against PlayIteration, the analytical timeline, when
// every collective takes exactly its analytical price: the fake network moves bytes as the
// analytical profile prices them (DimensionChannels), and one chunk makes a collective the plain
// sum of its stages (executor-timing-test.cc checks both).
#include "sim/packet/training-driver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/analytical/collective-pricing.h"
#include "tests/packet/executor-test-util.h"
#include "workloads/training-loop.h"

namespace hfsim {
namespace {

using test::DefaultSpec;
using test::ExecutorHarness;

// [Ring 2 @ 100 GB/s, 10 ns (tensor); Switch 4 @ 25 GB/s, 100 ns (data)]: tensor 2 x data 4.
const std::vector<Dimension> kDims{{DimensionKind::kRing, 2, 100.0, 10.0},
                                   {DimensionKind::kSwitch, 4, 25.0, 100.0}};
const std::vector<uint32_t> kDataDims{1};
const std::vector<uint32_t> kTensorDims{0};

// A toy after docs/scenario.md 6.2. 8 samples over 4 replicas (2 each), tensor 2, 500 FLOP/ns:
//   emb:  F = 1000 ns (given), G = W = 0 (no FLOPs); 1 TP all-reduce of 2 x 100 x 2 = 400 B in
//         forward and in input-grad; a gradient all-reduce of 500 x 2 = 1000 B;
//   blk:  1e9 FLOP x 2 samples / 2 (tensor) / 500 FLOP/ns = 2e6 ns each of F, G and W; 2 TP
//         all-reduces of 400 B each way; gradients of 2500 x 2 = 5000 B;
//   act:  1e8 x 2 / 2 / 500 = 2e5 ns each of F and G, no weights, no communication;
//   meas: F = 5000, G = 7000 (given), W = 0 ns; gradients of 100 x 2 = 200 B.
// 9 collectives in all: emb 3, blk 5, meas 1.
Model ToyModel() {
  Model model;
  model.name = "toy";
  Layer emb{"emb", 1000, 0.0, 100, 1, 1000.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  Layer blk{"blk", 5000, 1e9, 100, 2, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  Layer act{"act", 0, 1e8, 0, 0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  Layer meas{"meas", 200, 0.0, 0, 0, 5000.0, 7000.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  model.layers = {emb, blk, act, meas};
  return model;
}

TrainingIteration ToyIteration(OverlapMode overlap) {
  TrainingConfig config;
  config.global_batch_samples = 8;
  config.data_parallel = 4;
  config.tensor_parallel = 2;
  config.peak_flops_per_ns = 1000.0;
  config.compute_efficiency = 0.5;
  config.overlap = overlap;
  return BuildTrainingIteration(ToyModel(), config);
}

// What the analytical engine does: price each layer's collectives, then play the timeline.
IterationTimeline Analytical(const TrainingIteration& iteration, const CommunicationSpec& spec) {
  const CollectivePricer pricer(kDims, spec);
  auto time = [&](const std::optional<CommRequest>& request) {
    if (!request) return 0.0;
    const auto& dims = request->group == ParallelGroup::kData ? kDataDims : kTensorDims;
    return pricer.Price(request->kind, request->size_bytes, dims).time_ns * request->count;
  };
  std::vector<LayerCommTimes> comm;
  for (const LayerWork& layer : iteration.layers) {
    comm.push_back(
        {time(layer.forward_comm), time(layer.input_grad_comm), time(layer.weight_grad_comm)});
  }
  return PlayIteration(iteration, comm);
}

void ExpectNear(double actual, double expected, const char* what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, expected)) << what;
}

TEST(TrainingDriver, ReproducesPlayIteration) {
  for (OverlapMode overlap : {OverlapMode::kNone, OverlapMode::kBackward}) {
    SCOPED_TRACE(overlap == OverlapMode::kNone ? "no overlap" : "backward overlap");
    const TrainingIteration iteration = ToyIteration(overlap);
    test::FakeTransportOptions transport;
    transport.channel = test::DimensionChannels(Topology(kDims));
    CommunicationSpec spec = DefaultSpec(Topology(kDims));
    spec.endpoint_delay_ns = 3.0;
    ExecutorHarness h(kDims, spec, transport, {.verify = true});
    TrainingDriver driver(h.topology, h.executor, h.clock, kDataDims, kTensorDims);
    bool done = false;
    driver.Start(iteration, [&] { done = true; });
    h.clock.Run();
    ASSERT_TRUE(done);
    ASSERT_TRUE(driver.Finished());
    EXPECT_TRUE(h.executor.CheckComplete());
    for (const std::string& error : h.executor.Errors()) ADD_FAILURE() << error;

    const DrivenIteration& result = driver.Result();
    const IterationTimeline expected = Analytical(iteration, spec);
    const IterationTimeline& got = result.timeline;
    EXPECT_EQ(result.collectives, 9u);
    ExpectNear(got.total_ns, expected.total_ns, "total");
    ExpectNear(got.forward_compute_ns, expected.forward_compute_ns, "forward compute");
    ExpectNear(got.input_grad_compute_ns, expected.input_grad_compute_ns, "input-grad compute");
    ExpectNear(got.weight_grad_compute_ns, expected.weight_grad_compute_ns, "weight-grad compute");
    ExpectNear(got.forward_comm_ns, expected.forward_comm_ns, "forward comm");
    ExpectNear(got.input_grad_comm_ns, expected.input_grad_comm_ns, "input-grad comm");
    ExpectNear(got.weight_grad_comm_ns, expected.weight_grad_comm_ns, "weight-grad comm");
    ExpectNear(got.weight_grad_comm_exposed_ns, expected.weight_grad_comm_exposed_ns,
               "weight-grad comm exposed");
    for (double npu_total : result.npu_total_ns) ExpectNear(npu_total, expected.total_ns, "NPU");
    // The toy's compute, by hand (see ToyModel): F = 1000 + 2e6 + 2e5 + 5000 = 2206000 ns,
    // G = 0 + 2e6 + 2e5 + 7000 = 2207000 ns, W = 0 + 2e6 + 0 + 0 = 2e6 ns.
    ExpectNear(got.forward_compute_ns, 2206000.0, "forward compute by hand");
    ExpectNear(got.input_grad_compute_ns, 2207000.0, "input-grad compute by hand");
    ExpectNear(got.weight_grad_compute_ns, 2e6, "weight-grad compute by hand");
  }
}

TEST(TrainingDriver, BackwardOverlapHidesGradientsBehindCompute) {
  // The same iteration with and without overlap: overlap must be faster by exactly the
  // gradient communication it hides (PlayIteration's exposed figure), and the busy time of the
  // gradient collectives must not change.
  const CommunicationSpec spec = DefaultSpec(Topology(kDims));
  std::vector<DrivenIteration> results;
  for (OverlapMode overlap : {OverlapMode::kNone, OverlapMode::kBackward}) {
    test::FakeTransportOptions transport;
    transport.channel = test::DimensionChannels(Topology(kDims));
    ExecutorHarness h(kDims, spec, transport);
    TrainingDriver driver(h.topology, h.executor, h.clock, kDataDims, kTensorDims);
    driver.Start(ToyIteration(overlap));
    h.clock.Run();
    ASSERT_TRUE(driver.Finished());
    results.push_back(driver.Result());
  }
  const IterationTimeline& none = results[0].timeline;
  const IterationTimeline& overlapped = results[1].timeline;
  ExpectNear(overlapped.weight_grad_comm_ns, none.weight_grad_comm_ns, "gradient busy time");
  EXPECT_LT(overlapped.total_ns, none.total_ns);
  ExpectNear(none.total_ns - overlapped.total_ns,
             none.weight_grad_comm_ns - overlapped.weight_grad_comm_exposed_ns, "hidden time");
}

}  // namespace
}  // namespace hfsim
