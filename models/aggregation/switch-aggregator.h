// The behavioural model of the aggregation switch's pipeline: what the P4 program does to each
// packet, register by register, so the packet engine's switch and the P4 test vectors (inputs per
// worker, exact expected outputs) come from one definition.
//
// Registers, per slot set (two with shadow copies) and slot: K int32 values, a worker bitmap, a
// worker counter (0..W-1; 0 = empty or complete) and the max block exponent. On an update from
// worker w into (set, slot), first w's bit is set in this set and cleared in the other
// (SwitchML's shadow-copy reuse: w has received that set's result, since it moved on; the P4
// program does this for every packet, and so does the model). Then:
//   * w's bit was already set: a duplicate. If the slot is complete (counter 0), the worker lost
//     the result: answer it with the result (unicast to w in all-reduce mode; in parameter-server
//     mode forwarded to the owning server with worker id w, which answers w). Otherwise drop it.
//   * otherwise the first packet of a round (counter 0) writes the values and exponent and later
//     ones add (AddInt32 with the spec's overflow) and take the max exponent (block exponents;
//     with a fixed scale a result carries the exponent field of the packet that completed or
//     re-requested it); counter = (counter + 1) mod W. When it wraps to 0 the slot is complete:
//     the result (the packet's header with the slot's sums, max exponent and bitmap) is multicast
//     to every worker (all-reduce) or sent to the server shard owning the key (parameter server).
// THC jobs (value_format "thc", aggregation-spec.h): an update's values are b-bit indices; the
// pipeline looks each up in THC's table (one exact-match table per index byte in the P4 program)
// and the registers add the table integers in 8-bit lanes, which cannot carry into each other
// while workers x g <= 255 (the spec check holds it); the result carries the lane sums and the
// slot's max exponent (the agreed norm exponent, announced in each slot's priming round).
// Without shadow copies there is one set and a completed slot's bitmap is cleared at once, so a
// lost result cannot be recovered (the protocol then needs a lossless network).
//
// Packets the pipeline does not aggregate: parameter-server packets of cold keys (first key at or
// above hot_key_capacity_keys) are forwarded unchanged to their server; anything else that is not a
// well-formed update of this job (wrong type, port, destination, slot, set, worker id, bitmap or
// value count) is dropped and counted as rejected.
//
// Correctness assumes what SwitchML assumes: packets between one worker and the switch are not
// reordered (loss and duplication are fine), so a stale retransmission cannot overtake the
// worker's next packet on the same slot.
#pragma once

#include <cstdint>
#include <vector>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

struct SlotRegisters {
  std::vector<int32_t> values;  ///< K sums (THC: K lane sums of table integers)
  uint32_t bitmap = 0;
  uint32_t count = 0;
  int8_t max_exponent = 0;
};

struct SwitchCounters {
  uint64_t updates_aggregated = 0;  ///< updates added into a slot
  uint64_t slots_completed = 0;     ///< rounds that reached W workers (one result each)
  uint64_t duplicates_dropped = 0;  ///< duplicates into an incomplete slot
  uint64_t results_resent = 0;      ///< duplicates into a complete slot, answered
  uint64_t cold_forwarded = 0;      ///< parameter-server packets of cold keys
  uint64_t rejected = 0;            ///< not a well-formed update of this job
  uint64_t packets_out = 0;
};

class SwitchAggregator {
 public:
  /// `spec` should pass CheckTofinoFit; the model itself only needs workers <= 32.
  explicit SwitchAggregator(const AggregationSwitchSpec& spec);

  /// Processes one packet and returns the packets the switch sends because of it, in a fixed
  /// order (multicast copies by worker id).
  std::vector<AggregationPacket> Receive(const AggregationPacket& packet);

  const SlotRegisters& Registers(uint32_t set, uint32_t slot) const;
  const SwitchCounters& Counters() const { return m_counters; }
  const AggregationSwitchSpec& Spec() const { return m_spec; }

 private:
  AggregationPacket MakeResult(const AggregationPacket& update, const SlotRegisters& slot) const;
  bool IsWellFormedUpdate(const AggregationPacket& packet) const;

  AggregationSwitchSpec m_spec;
  std::vector<int32_t> m_thc_table;        ///< THC jobs: index -> table integer
  std::vector<SlotRegisters> m_registers;  ///< index set * slots + slot
  SwitchCounters m_counters;
};

}  // namespace hfsim
