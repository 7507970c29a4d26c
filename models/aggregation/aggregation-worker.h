// The worker side of the aggregation protocol (SwitchML's slot pool) as a pure state machine:
// no clock and no network of its own. The caller (the packet engine, or a test harness) feeds it
// results and the time, and sends the packets it returns.
//
// The tensor is cut into blocks of K values (the last one zero-padded); block b uses pool slot
// b mod P and rounds of one slot alternate between the slot sets (set = round mod 2 with shadow
// copies). Each slot has one packet outstanding: the next is sent when the result of the current
// one arrives, so a worker keeps P packets in flight. A result is accepted only if it matches the
// outstanding packet (slot, set, key, value count); anything else is a stale duplicate and
// ignored. An outstanding packet not answered within the retransmission timeout is sent again.
//
// Block exponents (SwitchML): all workers must quantise a block with the same exponent, the
// largest of their local ones. Each packet carries the worker's local exponent of the block the
// slot carries next, and the result returns the max over workers (the switch's exponent register).
// So round 0 of each slot is a priming packet with no values that only announces the exponent of
// the slot's first block; round r >= 1 carries block s + (r - 1) P and announces block s + r P.
// With a fixed scale there is no priming round: round r carries block s + r P.
//
// THC jobs (value_format "thc"): the worker aggregates b-bit indices, one per coordinate, which
// depend on a scale all workers share; so every slot's round 0 is a priming packet announcing the
// worker's norm exponent (||u|| < 2^e), the first priming result brings the largest, and only
// then does the worker encode (ThcWorkerInput::encode, e.g. ThcWorker::Encode at the max-norm
// bound 2^e). Results carry 8-bit lane sums of table integers (SummedIntegers); decoding them
// takes the whole vector (DecodeThc), so Result() stays empty.
//
// Parameter-server mode: only hot blocks (first key below hot_key_capacity_keys) go through the
// switch; the worker aggregates those and reports the cold range, which the caller sends to the
// servers over its ordinary transport.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

struct AggregationWorkerOptions {
  /// Slots of the pool P; 0 = every aggregator slot of the spec.
  uint32_t pool_slots = 0;
  /// Time after which an unanswered packet is sent again, ns.
  double retransmit_timeout_ns = 100000.0;
};

/// A THC job's worker input.
struct ThcWorkerInput {
  uint64_t coordinates = 0;  ///< indices to aggregate (THC's padded length)
  int8_t norm_exponent = 0;  ///< this worker's ||u|| < 2^norm_exponent
  /// One b-bit index per coordinate, given the agreed (largest) norm exponent.
  std::function<std::vector<uint32_t>(int32_t agreed_exponent)> encode;
};

/// What one worker's aggregation of `values` values costs on a lossless network, for pricing it
/// without running the state machine (the analytical engine). Matches AggregationWorker exactly.
struct AggregationTraffic {
  uint64_t aggregated_values = 0;   ///< the hot prefix in parameter-server mode, else all
  uint64_t blocks = 0;              ///< packets with values
  uint64_t slots_used = 0;          ///< min(pool, blocks)
  uint64_t packets_per_worker = 0;  ///< blocks, plus one priming packet per slot (block exponents, THC)
  uint64_t frame_bytes = 0;         ///< bytes of one result on the wire (switch -> worker)
  uint64_t wire_bytes_per_worker = 0;  ///< received: packets x frame bytes
  /// The same for updates (worker -> switch): equal to the above but for THC, whose updates
  /// carry b-bit indices and results 8-bit lane sums.
  uint64_t update_frame_bytes = 0;
  uint64_t update_wire_bytes_per_worker = 0;
};
AggregationTraffic ComputeAggregationTraffic(const AggregationSwitchSpec& spec, uint64_t values,
                                             uint32_t pool_slots = 0);

struct WorkerCounters {
  uint64_t packets_sent = 0;  ///< first transmissions and retransmissions
  uint64_t retransmissions = 0;
  uint64_t results_accepted = 0;
  uint64_t stale_results = 0;  ///< results that matched no outstanding packet
};

class AggregationWorker {
 public:
  /// `tensor`: this worker's values (at most 2^32). `worker_id` < spec.workers.
  AggregationWorker(const AggregationSwitchSpec& spec, uint32_t worker_id,
                    std::vector<float> tensor, AggregationWorkerOptions options = {});
  /// A THC job's worker (spec.value_format kThc).
  AggregationWorker(const AggregationSwitchSpec& spec, uint32_t worker_id, ThcWorkerInput input,
                    AggregationWorkerOptions options = {});

  /// The first packet of every pool slot.
  std::vector<AggregationPacket> Start(double now_ns);
  /// A packet addressed to this worker (results from the switch or a server).
  std::vector<AggregationPacket> OnPacket(const AggregationPacket& packet, double now_ns);
  /// Retransmits every outstanding packet whose timeout has passed.
  std::vector<AggregationPacket> OnTimeout(double now_ns);
  /// Earliest time OnTimeout has something to do; nullopt when nothing is outstanding.
  std::optional<double> NextTimeoutNs() const;

  bool Done() const { return m_slots_left == 0; }
  /// Values aggregated through the switch: the hot prefix in parameter-server mode, else all.
  uint64_t AggregatedValues() const { return m_aggregated_values; }
  /// The integer sum of every aggregated value, as the switch computed it.
  const std::vector<int32_t>& SummedIntegers() const { return m_sums; }
  /// The same, decoded to floating point (int32 jobs; empty for THC).
  const std::vector<double>& Result() const { return m_result; }
  /// THC: the norm exponent every worker encoded with (valid once the first result arrived).
  std::optional<int32_t> AgreedNormExponent() const { return m_agreed_norm; }
  /// The exponent every worker used for block b (block-exponent scheme; valid once Done).
  int32_t AgreedExponent(uint64_t block) const { return m_block_exponent.at(block); }
  const WorkerCounters& Counters() const { return m_counters; }
  uint32_t PoolSlots() const { return m_pool; }

 private:
  struct SlotState {
    uint64_t round = 0;
    uint64_t rounds = 0;
    bool done = false;
    double deadline_ns = 0.0;
    AggregationPacket outstanding;
  };

  void Setup();
  uint64_t Blocks() const;
  /// Block whose values round `round` of `slot` carries, or nullopt for a priming round.
  std::optional<uint64_t> CarriedBlock(uint32_t slot, uint64_t round) const;
  AggregationPacket BuildPacket(uint32_t slot, uint64_t round) const;
  int32_t LocalExponent(uint64_t block) const;
  void Send(SlotState& state, AggregationPacket packet, double now_ns,
            std::vector<AggregationPacket>& out);

  AggregationSwitchSpec m_spec;
  uint32_t m_worker = 0;
  std::vector<float> m_tensor;
  ThcWorkerInput m_thc;
  std::vector<uint32_t> m_indices;  ///< THC: encoded once the norm exponent is agreed
  std::optional<int32_t> m_agreed_norm;
  AggregationWorkerOptions m_options;
  uint64_t m_aggregated_values = 0;
  uint32_t m_pool = 0;
  bool m_priming = false;
  std::vector<SlotState> m_slots;
  uint32_t m_slots_left = 0;
  std::vector<int32_t> m_block_exponent;
  std::vector<int32_t> m_sums;
  std::vector<double> m_result;
  WorkerCounters m_counters;
};

}  // namespace hfsim
