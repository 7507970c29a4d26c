// The aggregation switch spec: everything about an in-network aggregation switch (Tofino,
// SwitchML / ATP / Libra; docs/aggregation.md §8) that its three readers must agree on. The
// packet engine's switch (switch-aggregator.h), the analytical engine's INA cost and the P4
// generator all read this one object, so the simulated switch and the P4 program cannot drift.
//
// Defaults are SwitchML's: all-reduce with results multicast back, 64 int32 values per packet,
// per-block exponents, two slot sets (shadow copies), Tofino-1, UDP port 0xBEE0.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

/// Where a completed slot goes. kAllReduce (SwitchML): multicast to every worker of the job.
/// kParameterServer (ATP, Libra): to the server shard that owns the slot's keys and holds the
/// parameters; the server answers the workers.
enum class AggregationMode { kAllReduce, kParameterServer };

/// How workers turn floats into the int32 values the switch adds.
/// kBlockExponent (SwitchML): per packet ("block") of K values, all workers agree on the largest
///   exponent e of the block (carried through the switch's max-exponent register) and use
///   scale = min(INT32_MAX / W, 2^value_bits - 1) / 2^e, so a W-worker sum cannot overflow.
/// kFixedScale (ATP): one scale for everything (ATP uses 1e6), quantised values clamped to
///   value_bits and, usually, saturating adds in the switch.
enum class FixedPointScheme { kBlockExponent, kFixedScale };

/// What the switch's int32 add does when a sum leaves [INT32_MIN, INT32_MAX]: clamp to the edge
/// (Tofino's saturating add, ATP) or two's-complement wrap (a plain add, SwitchML).
enum class OverflowBehaviour { kWrap, kSaturate };

enum class TofinoGeneration : uint8_t { kTofino1 = 1, kTofino2 = 2 };

/// What a packet's values are.
/// kInt32: floats quantised to int32 by the fixed-point scheme, added as int32 (SwitchML, ATP).
/// kThc (THC's in-network aggregation, S5; models/compression/thc.h): each value is a worker's
///   b-bit index into THC's table; updates carry the indices packed (b bits each), the switch maps
///   every index to its table integer (0..g) with a lookup table and adds the integers in 8-bit
///   lanes, four to a 32-bit register word (carry-free while workers x g <= 255), and results
///   carry the 8-bit lane sums. The workers agree on the scale first: round 0 of every slot
///   announces the worker's norm exponent (its ||u|| < 2^e) and the max-exponent register
///   returns the largest, so every worker encodes with max-norm bound 2^e.
enum class ValueFormat { kInt32, kThc };

/// Scenario spellings (aggregation.mode, .fixed_point, .overflow, .value_format).
inline constexpr NameTable<AggregationMode, 2> kAggregationModeNames = {{
    {AggregationMode::kAllReduce, "allreduce"},
    {AggregationMode::kParameterServer, "parameter_server"},
}};
inline constexpr NameTable<FixedPointScheme, 2> kFixedPointSchemeNames = {{
    {FixedPointScheme::kBlockExponent, "block_exponent"},
    {FixedPointScheme::kFixedScale, "fixed_scale"},
}};
inline constexpr NameTable<OverflowBehaviour, 2> kOverflowBehaviourNames = {{
    {OverflowBehaviour::kWrap, "wrap"},
    {OverflowBehaviour::kSaturate, "saturate"},
}};
inline constexpr NameTable<ValueFormat, 2> kValueFormatNames = {{
    {ValueFormat::kInt32, "int32"},
    {ValueFormat::kThc, "thc"},
}};
inline std::string_view ToString(AggregationMode mode) {
  return NameIn(kAggregationModeNames, mode);
}
inline std::string_view ToString(FixedPointScheme scheme) {
  return NameIn(kFixedPointSchemeNames, scheme);
}
inline std::string_view ToString(OverflowBehaviour overflow) {
  return NameIn(kOverflowBehaviourNames, overflow);
}
inline std::string_view ToString(ValueFormat format) { return NameIn(kValueFormatNames, format); }

/// UDP ports of aggregation jobs: job j uses 0xBEE0 + j (SwitchML's range 0xBEE0..0xBEEF).
inline constexpr uint16_t kFirstAggregationPort = 0xBEE0;
inline constexpr uint16_t kLastAggregationPort = 0xBEEF;
/// Keys (value offsets) are 32-bit on the wire, so a tensor has at most 2^32 values and a hot-key
/// capacity of 2^32 means every key is hot.
inline constexpr uint64_t kAllKeysHot = uint64_t{1} << 32;

struct AggregationSwitchSpec {
  AggregationMode mode = AggregationMode::kAllReduce;
  /// Workers of the job; each owns one bit of the per-slot bitmap (Tofino-1: at most 32).
  uint32_t workers = 8;
  /// Aggregator slots per slot set. With shadow copies the registers hold 2 x slots entries.
  uint32_t aggregator_slots = 512;
  /// K: int32 values carried by one packet and added by one pass of the pipeline.
  uint32_t values_per_packet = 64;
  /// Magnitude bits of one worker's quantised value, sign not counted: |q| <= 2^value_bits - 1.
  /// A W-worker sum cannot overflow int32 when value_bits <= 31 - ceil(log2 W)
  /// (WidestSafeValueBits); wider values need saturating adds.
  uint32_t value_bits = 28;
  FixedPointScheme scheme = FixedPointScheme::kBlockExponent;
  /// kFixedScale only: quantised value = round(x * fixed_scale).
  double fixed_scale = 1e6;
  OverflowBehaviour overflow = OverflowBehaviour::kWrap;
  /// Two slot sets used alternately, so a worker can retransmit into a slot whose result others
  /// may still need (SwitchML). Off: one set, and a lost result cannot be recovered by the switch.
  bool shadow_copies = true;
  /// kParameterServer: keys (value offsets) below this are aggregated in the switch; packets of
  /// colder keys are forwarded unchanged to their server (Libra).
  uint64_t hot_key_capacity_keys = kAllKeysHot;
  /// kParameterServer: server shards; the packet whose first key is k belongs to shard
  /// (k / values_per_packet) % server_shards.
  uint32_t server_shards = 1;
  TofinoGeneration generation = TofinoGeneration::kTofino1;
  /// UDP destination port of the job's packets, 0xBEE0..0xBEEF; the job id is port - 0xBEE0.
  uint16_t udp_port = kFirstAggregationPort;
  /// Multicast group the P4 program replicates results to (kAllReduce).
  uint16_t multicast_group = 1;
  ValueFormat value_format = ValueFormat::kInt32;
  /// kThc: b, bits per index (1, 2 or 4: whole indices per byte), and g, the table's integer grid
  /// [0, g]; the table is DefaultThcTable(b, g) (the paper's for 4 bits and g = 30).
  uint32_t thc_bits = 4;
  uint32_t thc_granularity = 30;

  uint32_t SlotSets() const { return shadow_copies ? 2 : 1; }
  uint32_t JobId() const { return static_cast<uint32_t>(udp_port - kFirstAggregationPort); }
  bool IsThc() const { return value_format == ValueFormat::kThc; }
  /// Whether the workers agree on an exponent through the switch's max-exponent register, in a
  /// priming round per slot: the block exponents of SwitchML's fixed point, or THC's norm
  /// exponent.
  bool HasExponentRegister() const {
    return scheme == FixedPointScheme::kBlockExponent || IsThc();
  }
  /// 32-bit register words one pass adds: one per int32 value, one per four THC lanes.
  uint32_t RegisterWords() const { return IsThc() ? (values_per_packet + 3) / 4 : values_per_packet; }
  /// Bytes of values in a worker's update: 4 per int32, or the packed b-bit THC indices.
  uint32_t UpdateValueBytes() const {
    return IsThc() ? (values_per_packet * thc_bits + 7) / 8 : 4 * values_per_packet;
  }
  /// Bytes of values in a result: 4 per int32 sum, or one per THC lane sum.
  uint32_t ResultValueBytes() const { return IsThc() ? values_per_packet : 4 * values_per_packet; }
  /// Server shard owning the packet whose first key is `key_offset`.
  uint32_t OwnerShard(uint32_t key_offset) const {
    return (key_offset / values_per_packet) % server_shards;
  }
  bool IsHotKey(uint64_t key_offset) const { return key_offset < hot_key_capacity_keys; }
};

/// ceil(log2 workers): bits a W-worker sum needs beyond one value's.
uint32_t SumGrowthBits(uint32_t workers);
/// 31 - ceil(log2 W): the widest value whose W-worker sum always fits int32 (0 when W > 2^31).
uint32_t WidestSafeValueBits(uint32_t workers);

}  // namespace hfsim
