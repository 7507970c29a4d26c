// The LIBRA scenarios (configs/libra-*.json, docs/libra-results.md): every one loads as the
// setting it claims (fabric, parallelism, cost classes, constraints) and solves to a certified
// optimum; for the bandwidth-bound data-parallel ResNet-50 the optimum is the closed form:
// bandwidth in proportion to per-dimension traffic, with the speedup over the equal split that
// follows from it.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/optimize/optimizer.h"
#include "sim/optimize/time-model.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {
namespace {

Scenario Load(const std::string& name) {
  auto s = LoadScenarioFile(std::string(HFSIM_SOURCE_DIR) + "/configs/" + name + ".json");
  if (!s) ADD_FAILURE() << s.Error().ToString();
  return std::move(s).Value();
}

OptimizeOutcome Solve(const Scenario& scenario) {
  auto outcome = Optimize(scenario);
  if (!outcome) ADD_FAILURE() << outcome.Error().ToString();
  return std::move(outcome).Value();
}

struct Fabric {
  std::vector<DimensionKind> kinds;
  std::vector<uint32_t> sizes;
  std::vector<CostClass> classes;
};

const Fabric kThreeD{{DimensionKind::kRing, DimensionKind::kFullyConnected, DimensionKind::kSwitch},
                     {16, 8, 32},
                     {CostClass::kPackage, CostClass::kNode, CostClass::kPod}};
const Fabric kFourD{{DimensionKind::kRing, DimensionKind::kFullyConnected, DimensionKind::kRing,
                     DimensionKind::kSwitch},
                    {4, 8, 4, 32},
                    {CostClass::kChiplet, CostClass::kPackage, CostClass::kNode, CostClass::kPod}};

struct Case {
  std::string model;  // "gpt3" or "resnet50"
  int dims;           // 3 or 4
  bool time_x_cost;
  std::string Name() const {
    return "libra-" + model + "-" + std::to_string(dims) + "d-" +
           (time_x_cost ? "time-x-cost" : "optimize");
  }
};

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* model : {"gpt3", "resnet50"}) {
    for (int dims : {3, 4}) {
      for (bool txc : {false, true}) cases.push_back({model, dims, txc});
    }
  }
  return cases;
}

TEST(LibraConfigs, EachIsTheSettingItClaims) {
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(c.Name());
    const Scenario s = Load(c.Name());
    ASSERT_EQ(s.name, c.Name());
    const Fabric& fabric = c.dims == 3 ? kThreeD : kFourD;
    ASSERT_EQ(s.dimensions.size(), fabric.sizes.size());
    for (size_t d = 0; d < s.dimensions.size(); ++d) {
      EXPECT_EQ(s.dimensions[d].kind, fabric.kinds[d]) << d;
      EXPECT_EQ(s.dimensions[d].size, fabric.sizes[d]) << d;
      ASSERT_TRUE(s.optimize.cost.dimensions[d].cost_class) << d;
      EXPECT_EQ(*s.optimize.cost.dimensions[d].cost_class, fabric.classes[d]) << d;
    }
    ASSERT_EQ(s.workload_kind, WorkloadKind::kTraining);
    const TrainingWorkload& t = s.training;
    EXPECT_EQ(t.config.overlap, OverlapMode::kNone);
    if (c.model == "gpt3") {
      EXPECT_EQ(t.model_name, "gpt3_175b");
      EXPECT_EQ(t.config.tensor_parallel, 16u);
      EXPECT_EQ(t.config.data_parallel, 256u);
      EXPECT_EQ(t.tensor_dimensions, c.dims == 3 ? std::vector<uint32_t>({0})
                                                 : std::vector<uint32_t>({0, 2}));
    } else {
      EXPECT_EQ(t.model_name, "resnet50");
      EXPECT_EQ(t.config.tensor_parallel, 1u);
      EXPECT_EQ(t.config.data_parallel, 4096u);
      EXPECT_EQ(t.data_dimensions.size(), static_cast<size_t>(c.dims));
    }
    ASSERT_TRUE(s.optimize.given);
    ASSERT_TRUE(s.optimize.total_bandwidth_GBps_per_npu);
    EXPECT_EQ(*s.optimize.total_bandwidth_GBps_per_npu, 500.0);
    EXPECT_EQ(s.optimize.objective,
              c.time_x_cost ? OptimizeObjective::kTimeXCost : OptimizeObjective::kTime);
    EXPECT_EQ(s.optimize.total, c.time_x_cost ? TotalRelation::kAtMost : TotalRelation::kEqual);
    EXPECT_EQ(s.optimize.bounds.size(), c.time_x_cost ? fabric.sizes.size() : 0u);
  }
}

TEST(LibraConfigs, EachSolvesToACertifiedOptimumThatBeatsTheEqualSplit) {
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(c.Name());
    const Scenario s = Load(c.Name());
    const OptimizeOutcome o = Solve(s);
    EXPECT_TRUE(o.converged);
    EXPECT_LE(o.gap, s.optimize.tolerance);
    ASSERT_TRUE(o.equal_split);
    EXPECT_TRUE(o.equal_split_feasible);
    const double sum = std::accumulate(o.best.bandwidth_GBps.begin(), o.best.bandwidth_GBps.end(), 0.0);
    if (c.time_x_cost) {
      EXPECT_LE(sum, 500.0 * (1 + 1e-9));
      EXPECT_LT(o.best.time_ns * o.best.cost_usd, o.equal_split->time_ns * o.equal_split->cost_usd);
    } else {
      EXPECT_NEAR(sum, 500.0, 1e-6);
      EXPECT_GE(o.equal_split->time_ns, o.best.time_ns);
    }
  }
}

// ResNet-50 data-parallel 4096: every gradient all-reduce spans all D dimensions, hierarchically,
// with zero latency, no endpoint delay, host overhead or reduction cost, and the bandwidth-optimal
// algorithms (beta = traffic coefficient), so one all-reduce of S bytes in C chunks takes
// sum_d k_d / B_d + (C - 1) max_d k_d / B_d, with k_d = traffic_d / C. Every layer's all-reduce
// has the same per-dimension fractions, so the iteration is
//   T(B) = compute + sum_d t_d / (C B_d) + (C - 1) / C * max_d t_d / B_d
// with t_d = TimeModel::TrafficBytes()[d]. docs/optimize.md §11.1: when every traffic share is at
// least 1 / (C - 1 + D), the optimum under sum_d B_d = total is B_d = total * t_d / sum t, where
//   T_opt - compute = (D + C - 1) / C * sum t / total,
//   T_eq  - compute = (sum t + (C - 1) max t) / (C * total / D).
void ExpectProportionalToTraffic(const std::string& name) {
  SCOPED_TRACE(name);
  const Scenario s = Load(name);
  const TimeModel model(s);
  const std::vector<double>& t = model.TrafficBytes();
  const double sum_t = std::accumulate(t.begin(), t.end(), 0.0);
  const double max_t = *std::max_element(t.begin(), t.end());
  const double dims = static_cast<double>(t.size());
  const double chunks = s.communication.chunks;
  const double total = *s.optimize.total_bandwidth_GBps_per_npu;

  // The premises of the closed form.
  for (const Dimension& d : s.dimensions) ASSERT_EQ(d.latency_ns, 0.0);
  ASSERT_EQ(s.communication.endpoint_delay_ns, 0.0);
  for (double traffic : t) ASSERT_GE(traffic / sum_t, 1.0 / (chunks - 1.0 + dims));
  // The traffic itself: 2 (n_d - 1) / n_d of what reaches dimension d, in stage order; the
  // shares sum to 2 (N - 1) / N of the gradient bytes.
  const double gradient_bytes = 2.0 * 25'557'032;  // ResNet-50, FP16
  double reaching = gradient_bytes;
  for (size_t d = 0; d < t.size(); ++d) {
    const double n = s.dimensions[d].size;
    EXPECT_NEAR(t[d], 2.0 * (n - 1) / n * reaching, 1e-9 * t[d]) << d;
    reaching /= n;
  }
  EXPECT_NEAR(sum_t, 2.0 * 4095.0 / 4096.0 * gradient_bytes, 1e-9 * sum_t);

  const OptimizeOutcome o = Solve(s);
  ASSERT_TRUE(o.converged);
  // Compute alone: the time with practically unlimited bandwidth (communication ~1e-9 ns).
  const double compute_ns = model.TimeNs(std::vector<double>(t.size(), 1e12));
  const double opt_comm = (dims + chunks - 1) / chunks * sum_t / total;
  // How far the solver's tolerance lets an allocation stray: moving delta GB/s away from the
  // proportional split makes some dimension the bottleneck and lengthens the communication by at
  // least delta / total of itself, which the certified gap bounds:
  // delta <= tolerance * T / comm * total (doubled for the rounding of the bound).
  const double slack_GBps = 2.0 * s.optimize.tolerance * (compute_ns + opt_comm) / opt_comm * total;
  for (size_t d = 0; d < t.size(); ++d) {
    EXPECT_NEAR(o.best.bandwidth_GBps[d], total * t[d] / sum_t, slack_GBps) << "dimension " << d;
  }

  const double eq_comm = (sum_t + (chunks - 1) * max_t) / (chunks * total / dims);
  EXPECT_NEAR(o.best.time_ns, compute_ns + opt_comm, 1e-6 * o.best.time_ns);
  ASSERT_TRUE(o.equal_split);
  EXPECT_NEAR(o.equal_split->time_ns, compute_ns + eq_comm, 1e-9 * o.equal_split->time_ns);
  // The communication speedup tends to D max t / sum t (LIBRA's ~3x on the 4-D fabric) as C grows.
  const double comm_speedup = (o.equal_split->time_ns - compute_ns) / (o.best.time_ns - compute_ns);
  EXPECT_NEAR(comm_speedup, dims * (sum_t + (chunks - 1) * max_t) / ((dims + chunks - 1) * sum_t),
              1e-5 * comm_speedup);
  EXPECT_LE(comm_speedup, dims * max_t / sum_t);
}

TEST(LibraConfigs, DataParallelOptimumIsProportionalToTrafficFourD) {
  ExpectProportionalToTraffic("libra-resnet50-4d-optimize");
}

TEST(LibraConfigs, DataParallelOptimumIsProportionalToTrafficThreeD) {
  ExpectProportionalToTraffic("libra-resnet50-3d-optimize");
}

// time_x_cost, same workload, at most 500 GB/s and at least 10 GB/s per dimension. Each frontier
// point is the fastest allocation under a budget; for a max-paced all-reduce with many chunks it
// keeps the dimensions above their floor busy for equal times (B_d proportional to t_d) and puts
// the rest on the floor. Here the pod Switch's proportional share is below 10 GB/s, so it sits on
// its floor, and the chiplet/package dimensions 0 and 1 (above theirs) keep the traffic ratio.
TEST(LibraConfigs, DataParallelTimeXCostKeepsTrafficRatioAboveTheFloor) {
  for (const char* name : {"libra-resnet50-3d-time-x-cost", "libra-resnet50-4d-time-x-cost"}) {
    SCOPED_TRACE(name);
    const Scenario s = Load(name);
    const TimeModel model(s);
    const std::vector<double>& t = model.TrafficBytes();
    const OptimizeOutcome o = Solve(s);
    ASSERT_TRUE(o.converged);
    const std::vector<double>& b = o.best.bandwidth_GBps;
    const size_t last = b.size() - 1;
    for (double x : b) EXPECT_GE(x, 10.0 * (1 - 1e-9));
    EXPECT_NEAR(b[last], 10.0, 1e-6);
    EXPECT_GT(b[0], 10.0);
    EXPECT_GT(b[1], 10.0);
    EXPECT_NEAR(b[0] / b[1], t[0] / t[1], 1e-3 * t[0] / t[1]);
  }
}

}  // namespace
}  // namespace hfsim
