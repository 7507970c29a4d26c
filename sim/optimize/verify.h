// `hfsim optimize --verify K`: the K best allocations of an optimisation (the optimum, then the
// other frontier points by objective value) and the equal split as a reference, each simulated
// with the analytical engine and with a checking engine (packet or flow) on a copy of the
// scenario whose dimension bandwidths are the allocation's. The optimiser's model is analytical
// (time-model.h); this shows what it leaves out: congestion on flows; queues, acknowledgements
// and headers too on packets.
//
// The checking engine comes in as an Engine so that this library needs neither ns-3 nor the
// engines' libraries: the command line makes it with the engine table's factory
// (sim/engines/engine-factory.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "sim/engine.h"
#include "sim/optimize/optimizer.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

enum class VerifySource { kOptimum, kFrontier, kEqualSplit };
/// "optimum", "frontier", "equal_split" (verify.csv's `candidate` column).
std::string_view ToString(VerifySource source);

struct VerifyCandidate {
  uint32_t rank = 0;  ///< 1 = the optimum, 2... the next best; 0 = the equal-split reference
  VerifySource source = VerifySource::kOptimum;
  Allocation allocation;  ///< as the optimiser computed it (time_ns from its time model)
};

struct VerifyPlan {
  uint32_t requested = 0;  ///< K
  /// The ranked candidates (at most K, fewer when fewer distinct allocations exist), then the
  /// equal split (rank 0) when there is one and it differs from every ranked candidate.
  std::vector<VerifyCandidate> candidates;
  uint32_t Ranked() const;
};

/// The optimum, then (time_x_cost) the frontier points by time x cost (other objectives: by
/// time; ties keep budget order), without repeating an allocation already listed, up to k; then
/// the equal split as a reference row. k >= 1.
VerifyPlan PlanVerification(const OptimizeOutcome& outcome, uint32_t k);

/// A copy of `scenario` with topology.dimensions[d].bandwidth_GBps = bandwidth_GBps[d] and the
/// given engine: what `hfsim run` simulates on the scenario file with those bandwidths. A
/// UserError when a bandwidth is outside what the loader accepts for a dimension, (0, 1e6].
Expected<Scenario> ScenarioWithAllocation(const Scenario& scenario,
                                          const std::vector<double>& bandwidth_GBps,
                                          EngineKind engine);

struct VerifyRow {
  VerifyCandidate candidate;
  double analytical_ns = 0.0;  ///< AnalyticalEngine's iteration.total_ns on the copy
  double simulated_ns = 0.0;   ///< the checking engine's iteration.total_ns on the copy
  EngineKind checked_by = EngineKind::kPacket;  ///< the engine behind simulated_ns
  /// (simulated - analytical) / analytical x 100.
  double DifferencePercent() const {
    return (simulated_ns - analytical_ns) / analytical_ns * 100.0;
  }
};

/// Called before each checking run: index (0-based) and count of the runs, and the candidate.
using VerifyProgress =
    std::function<void(size_t index, size_t count, const VerifyCandidate& candidate)>;

/// Runs every candidate of `plan` with the analytical engine and with `engine`, which is the
/// engine of kind `kind` (in plan order, one after another: ns-3 keeps one simulator per
/// process). A packet run honours the scenario's "packet" section and seed. Exceptions from the
/// engines propagate.
Expected<std::vector<VerifyRow>> Verify(const Scenario& scenario, const VerifyPlan& plan,
                                        const Engine& engine, EngineKind kind,
                                        const VerifyProgress& progress = {});

/// The side-by-side table: rank, GB/s per dimension, cost, analytical and checked time,
/// difference; with a line saying so when fewer than K allocations exist.
std::string VerifyTable(const VerifyPlan& plan, const std::vector<VerifyRow>& rows,
                        const Scenario& scenario);
/// Header rank,candidate,cost_usd,analytical_time_ns,E_time_ns,difference_percent,B0_GBps,...
/// where E is the checking engine (packet or flow); one row per verified allocation in plan order
/// (the equal split's rank is empty). Shortest round-trip numbers, no wall times: the same scenario
/// gives the same file.
std::string VerifyCsv(const std::vector<VerifyRow>& rows, const Scenario& scenario);

}  // namespace hfsim
