#include "models/in-network-allreduce.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

uint64_t InNetworkValues(uint64_t buffer_bytes) {
  return (buffer_bytes + kInNetworkValueBytes - 1) / kInNetworkValueBytes;
}

uint64_t InNetworkValues(uint64_t buffer_bytes, const AggregationSwitchSpec& spec,
                         uint32_t thc_block) {
  const uint64_t values = InNetworkValues(buffer_bytes);
  if (!spec.IsThc() || thc_block == 0) return values;
  return (values + thc_block - 1) / thc_block * thc_block;
}

namespace {

// The closed form of the header for a round trip of `legs` link crossings (2: worker, switch,
// worker; 4: worker, switch, server, switch, worker), each costing one frame time and one latency.
InNetworkAllReducePrice Price(const AggregationSwitchSpec& spec, uint64_t values,
                              double bandwidth_Bpns, double latency_ns, double legs) {
  if (bandwidth_Bpns <= 0.0) throw std::invalid_argument("PriceInNetwork: bandwidth must be > 0");
  InNetworkAllReducePrice price;
  price.traffic = ComputeAggregationTraffic(spec, values);
  const AggregationTraffic& t = price.traffic;
  if (t.blocks == 0) return price;
  // Updates and results are the same size but for THC (b-bit indices up, 8-bit lanes down).
  const double update_ns = static_cast<double>(t.update_frame_bytes) / bandwidth_Bpns;
  const double frame_ns = static_cast<double>(t.frame_bytes) / bandwidth_Bpns;
  const double round_trip_ns = legs / 2.0 * (update_ns + frame_ns) + legs * latency_ns;
  const uint64_t pool = t.slots_used;  // min(P, blocks); P only matters through it and below
  const uint64_t priming = t.packets_per_worker > t.blocks ? 1 : 0;
  const uint64_t full_pool = std::min<uint64_t>(spec.aggregator_slots, t.blocks);
  // Slots [0, c) carry ceil(blocks / P) data rounds, slots [c, U) one fewer.
  const uint64_t data_rounds = (t.blocks + full_pool - 1) / full_pool;
  const uint64_t c = (t.blocks - 1) % full_pool + 1;
  auto slot_end = [&](uint64_t slot, uint64_t rounds) {
    return static_cast<double>(slot + 1) * update_ns +
           static_cast<double>(rounds - 1) * round_trip_ns;
  };
  double window = slot_end(c - 1, data_rounds + priming);
  if (c < pool) window = std::max(window, slot_end(pool - 1, data_rounds - 1 + priming));
  const double tail_ns = round_trip_ns - update_ns;  // after the last frame left the worker
  price.max_rounds = data_rounds + priming;
  price.update_frame_ns = update_ns;
  price.frame_ns = frame_ns;
  price.round_trip_ns = round_trip_ns;
  // The busier direction of the worker's link is never idle: M - 1 frames of it, plus one round
  // trip for the first (or last) frame.
  price.bandwidth_bound_ns =
      static_cast<double>(t.packets_per_worker - 1) * std::max(update_ns, frame_ns) + round_trip_ns;
  price.window_bound_ns = window + tail_ns;
  price.time_ns = std::max(price.bandwidth_bound_ns, price.window_bound_ns);
  return price;
}

}  // namespace

InNetworkAllReducePrice PriceInNetworkAllReduce(const AggregationSwitchSpec& spec, uint64_t values,
                                                double bandwidth_Bpns, double latency_ns) {
  if (spec.mode != AggregationMode::kAllReduce) {
    throw std::invalid_argument("PriceInNetworkAllReduce: needs allreduce mode");
  }
  return Price(spec, values, bandwidth_Bpns, latency_ns, 2.0);
}

InNetworkAllReducePrice PriceInNetworkHotKeys(const AggregationSwitchSpec& spec, uint64_t values,
                                              double bandwidth_Bpns, double latency_ns) {
  if (spec.mode != AggregationMode::kParameterServer) {
    throw std::invalid_argument("PriceInNetworkHotKeys: needs parameter_server mode");
  }
  return Price(spec, values, bandwidth_Bpns, latency_ns, 4.0);
}

}  // namespace hfsim
