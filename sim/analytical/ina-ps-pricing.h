// Libra-style parameter-server training priced in closed form (docs/in-network.md §3): the hot
// keys of a parameter_server workload go through the aggregation switch, the cold ones the
// PS-lite way (push to the shards, pull back; sim/analytical/ps-pricing.h).
//
// Hot keys. The switch spec's hot_key_capacity_keys counts values (int32 offsets); the workload's
// keys are rows (sparse) or partitions (dense) of ceil(bytes / 4) values each, laid out in key
// order from offset 0. The hot keys are the longest prefix [0, H) of keys whose values fit the
// capacity. Key ids rank popularity (workloads/parameter-server.h), so they are the H most
// frequent keys. Every worker sends the whole hot region through the switch every iteration
// (zeros for hot rows it did not touch): a slot completes only when all W workers have added
// to it, so Libra's hot set is a fixed block of registers that every worker updates.
//
// One iteration, all workers and shards under one switch (one Switch dimension, bandwidth B,
// link latency a), hot and cold traffic at the same time:
//   cold   = push + aggregate + pull of PsPricer on the traffic without the hot keys
//   hot    = PriceInNetworkHotKeys(spec, hot values, B, a)   (models/in-network-allreduce.h)
//   shared = max over the links of (cold + hot bytes on it) / B + 2a: each worker's link carries
//            its cold push (pull) and its M hot frames each way; each shard's link its cold
//            incast (pulls out) and one frame per hot block it owns each way
//   time   = worker_compute_ns + max(cold, hot, shared)
#pragma once

#include <cstdint>

#include "models/aggregation/aggregation-spec.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "workloads/parameter-server.h"

namespace hfsim {

struct HotKeySplit {
  uint64_t hot_keys = 0;    ///< keys [0, hot_keys) go through the switch
  uint64_t hot_values = 0;  ///< their int32 values: the region every worker sends
};

/// The hot prefix of `workload`'s keys that fits spec.hot_key_capacity_keys values.
HotKeySplit SplitHotKeys(const ParameterServerWorkload& workload,
                         const AggregationSwitchSpec& spec);

/// Whether the scenario is Libra-style: a parameter_server workload with an aggregation switch
/// in "parameter_server" mode.
bool IsLibraScenario(const Scenario& scenario);

/// The analytical engine's run of a Libra-style scenario: fills iteration.total_ns (mean over
/// iterations), parameter_server (the cold part, PS-lite's counters) and in_network (the hot
/// part, with the cold and shared bounds).
void RunLibraAnalytical(const Scenario& scenario, Report& report);

/// The in_network report of a Libra-style scenario as planned: the hot part's closed form and
/// the cold and shared bounds (means over the iterations), exactly as RunLibraAnalytical reports
/// it, without the rest of its run. The packet engine reports it beside what it measured.
InNetworkReport PlanLibraInNetwork(const Scenario& scenario);

}  // namespace hfsim
