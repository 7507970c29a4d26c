// The in-network all-reduce (SwitchML) on one Switch dimension, priced in closed form from the
// aggregation switch spec (models/aggregation/aggregation-spec.h), the one object the packet
// engine's switch and the P4 generator also read.
//
// A buffer of S bytes is S / 4 fp32 values (rounded up), each quantised to one int32. Every worker
// sends M packets of F = 58 + 4K bytes to the dimension's switch (ComputeAggregationTraffic: one
// per block of K values, plus one priming packet per used slot with block exponents) and receives
// as many results (the multicast sends each worker one copy), so each direction of each link
// carries M x F bytes. With link bandwidth B (bytes/ns), link latency a (ns), t = F / B the time
// to serialise one frame and RT = 2t + 2a the round trip of one slot (up, through the switch,
// down; the switch adds no delay of its own: its pipeline latency is part of a):
//
//   time = max( M t,  max over used slots s of [(s + 1) t + (R_s - 1) RT] ) + t + 2a
//
// where slot s (0-based, pool of P slots) carries R_s = ceil((blocks - s) / P) rounds (+1 for the
// priming round with block exponents). The first term is the uplink never idle (bandwidth bound:
// the last frame leaves at M t, and then needs a, t and a to come back); the second is the slot
// pool (window bound: slot s's first frame leaves at (s + 1) t and every further round waits a
// full round trip for the previous result). All workers are symmetric and the switch answers the
// moment the last worker's frame of a slot arrives, so the slower of the two bounds is the time.
// Only the slots s = c - 1 (the last with the most rounds) and s = U - 1 (the last used) can give
// the maximum, so the formula costs O(1).
//
// THC jobs (value_format "thc") send smaller updates than results (F_up = 58 + K b / 8 bytes of
// b-bit indices, F = 58 + K bytes of 8-bit lane sums, K values per packet), and prime every slot
// to agree on the norm exponent. With t_up = F_up / B, the same reasoning gives RT = t_up + t + 2a,
// slot s's first frame leaving at (s + 1) t_up, the tail RT - t_up, and the bandwidth bound
// (M - 1) max(t_up, t) + RT (the busier direction of the link never idle), which is M t + t + 2a
// when both frames are equal.
//
// Endpoint delay, host cost per message and reduction bandwidth do not apply: the workers do no
// per-step synchronisation and the switch adds in its pipeline.
#pragma once

#include <cstdint>

#include "models/aggregation/aggregation-spec.h"
#include "models/aggregation/aggregation-worker.h"

namespace hfsim {

/// Bytes of one fp32 value of a collective's buffer (one int32 in the switch).
inline constexpr uint64_t kInNetworkValueBytes = 4;

/// Values an all-reduce of `buffer_bytes` aggregates: ceil(buffer_bytes / 4).
uint64_t InNetworkValues(uint64_t buffer_bytes);
/// The same in the switch of `spec`: for THC, the coordinates after padding the fp32 values to
/// whole RHT blocks of `thc_block` (ThcWorker::PaddedLength); otherwise InNetworkValues.
uint64_t InNetworkValues(uint64_t buffer_bytes, const AggregationSwitchSpec& spec,
                         uint32_t thc_block);

struct InNetworkAllReducePrice {
  AggregationTraffic traffic;       ///< per worker, each way
  uint64_t max_rounds = 0;          ///< rounds of the busiest slot (R_0)
  double update_frame_ns = 0.0;     ///< t_up = F_up / B (= t but for THC)
  double frame_ns = 0.0;            ///< t = F / B, a result frame
  /// RT = t_up + t + 2a (all-reduce; 2t + 2a when the frames are equal), 2(t_up + t) + 4a
  /// (parameter server)
  double round_trip_ns = 0.0;
  double bandwidth_bound_ns = 0.0;  ///< (M - 1) max(t_up, t) + RT (= M t + t + 2a when equal)
  double window_bound_ns = 0.0;     ///< max_s [(s + 1) t_up + (R_s - 1) RT] + RT - t_up
  double time_ns = 0.0;             ///< the larger of the two
};

/// The closed form above for `values` values (spec.mode must be kAllReduce; 0 values cost 0).
InNetworkAllReducePrice PriceInNetworkAllReduce(const AggregationSwitchSpec& spec, uint64_t values,
                                                double bandwidth_Bpns, double latency_ns);

/// Parameter-server mode (Libra, ATP) for the hot prefix of `values` values, all workers and
/// servers on one Switch dimension: a round trip is four link crossings (worker, switch, server
/// shard, switch, worker: the switch forwards each completed slot to its shard, which updates its
/// parameters and sends the result back once for the switch to multicast), so RT = 4t + 4a and
/// the tail after the last frame leaves is 3t + 4a. A worker's link still carries M frames each
/// way, a shard's link about M / shards, so the worker's is the bottleneck:
///   time = max( M t,  max_s [(s + 1) t + (R_s - 1) RT] ) + 3t + 4a.
InNetworkAllReducePrice PriceInNetworkHotKeys(const AggregationSwitchSpec& spec, uint64_t values,
                                              double bandwidth_Bpns, double latency_ns);

}  // namespace hfsim
