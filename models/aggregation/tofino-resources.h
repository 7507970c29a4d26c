// Tofino-1 and Tofino-2 limits (docs/aggregation.md §8) as data, what an aggregation switch spec
// uses of them, and the check that it fits. The p4c front end does not know hardware limits, so
// this check is the one that refuses a program that would not fit; the P4 generator's resource
// report prints these same lines.
//
// The layout priced here is SwitchML's, as the generated program (p4/p4-ingress.cc) has it and
// p4c's Tofino back end places it (docs/p4.md §3):
//   * 3 control stages: the worker check and the register index (stage 0), the worker bitmaps
//     (one register per slot set: test-and-set the worker's bit in its set, clear it in the
//     other), then the worker counter, whose table tells new from duplicate.
//   * The max exponent's register is keyed on the counter's result like the values: it takes a
//     stateful ALU after the control stages, in a THC lookup stage or beside the values.
//   * Value stages: each stateful ALU owns one pair register (two int32 per entry, one per value),
//     so a stage adds 4 x 2 = 8 values and K values need ceil(K / 8) stages, with K even.
//   * A stateful ALU outputs one 32-bit word per pass on Tofino-1, so reading the second value of
//     each pair takes one harvest (recirculation) pass per completed slot; Tofino-2's ALUs output
//     up to 4 words, so none.
//   * PHV: the value words the stateful ALUs write into the packet (32 bits each) go to normal
//     containers of any width (p4c slices a word over two 16-bit or four 8-bit ones when the
//     32-bit ones run out); p4c placed them so in every compile of docs/p4.md §3 and failed to
//     allocate the PHV where they did not fit. The rest is fixed in size or small: headers and
//     metadata (a reserve of normal bits, the rest in tagalong, mocha and dark containers) and
//     THC's index bytes (at most 544 bits within Tofino-1's stages; on Tofino-2 p4c put them in
//     normal and mocha containers and allocated 248 values).
//   * Tofino-2's SRAM is taken as Tofino-1's (no public figure; the smaller is the safe choice).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

struct TofinoLimits {
  TofinoGeneration generation = TofinoGeneration::kTofino1;
  std::string_view name;  ///< "Tofino-1", "Tofino-2"
  uint32_t pipes = 4;
  uint32_t mau_stages = 12;  ///< per pipe
  uint32_t stateful_alus_per_stage = 4;
  uint32_t register_element_bits = 32;
  uint32_t register_pair_bits = 64;
  uint32_t register_actions_per_register = 4;
  uint32_t alu_output_words_per_pass = 1;
  int32_t alu_immediate_min = -8;  ///< constants outside [min, max] need the register file
  int32_t alu_immediate_max = 7;
  uint32_t sram_blocks_per_stage = 80;
  uint32_t sram_block_entries = 1024;
  uint32_t sram_block_bits = 128;
  /// Normal PHV containers, the ones p4c gives the value words (p4c's own figures for the
  /// generation; tagalong, mocha and dark containers come on top).
  uint32_t phv_normal_8bit_containers = 64;
  uint32_t phv_normal_16bit_containers = 96;
  uint32_t phv_normal_32bit_containers = 64;
  /// Normal-container bits left to the other fields the MAU writes or matches (bitmap and
  /// counter results, flags, addresses, metadata): p4c kept 183 bits of them there in the
  /// 84- and 88-value Tofino-2 programs of docs/p4.md §3; this is that, rounded up to eight
  /// 32-bit containers.
  uint32_t phv_normal_reserved_bits = 256;
  uint32_t egress_parse_depth_bytes = 160;
  // hfsim's design rules on top of the hardware (SwitchML's layout, see above).
  uint32_t control_stages = 3;
  uint32_t max_register_entries = 16384;  ///< entries of one pair register (SwitchML's size)
  uint32_t bitmap_bits = 32;              ///< one 32-bit register element per slot
  uint32_t values_per_alu = 2;            ///< a pair register: two int32 values per entry
  /// Logical match tables one MAU stage can apply (Tofino's 16 logical table ids per stage);
  /// THC's index lookups are exact-match tables.
  uint32_t logical_tables_per_stage = 16;
};

const TofinoLimits& LimitsOf(TofinoGeneration generation);

/// What one spec uses. Stage and ALU counts are per pipe (each pipe runs the same program).
struct TofinoResourceUse {
  uint32_t control_stages = 0;
  uint32_t value_stages = 0;
  uint32_t routing_stages = 0;  ///< a stage for the routing when the values take only one
  uint32_t mau_stages = 0;
  uint32_t value_alus = 0;    ///< one per pair register
  /// 1 when the max exponent's stateful ALU sits among the value stages (no THC lookup stage
  /// to hold it), else 0.
  uint32_t exponent_value_alus = 0;
  uint32_t control_alus = 0;  ///< bitmap per set, counter, max exponent
  uint32_t stateful_alus = 0;
  uint32_t max_register_actions = 0;         ///< on the busiest register
  uint32_t register_file_constants = 0;      ///< constants outside the ALU's immediate range
  uint64_t register_entries = 0;             ///< entries of each value register: slots x sets
  uint64_t value_register_bits = 0;          ///< all value registers together
  uint32_t sram_blocks_per_value_stage = 0;  ///< including one spare block per register
  uint32_t sram_blocks = 0;                  ///< all registers of the program
  uint32_t phv_value_bits = 0;  ///< the value words the stateful ALUs write, 32 bits each
  uint32_t phv_value_capacity_bits = 0;  ///< normal-container bits less the reserve
  uint32_t harvest_passes_per_slot = 0;  ///< recirculations to read a completed slot
  uint32_t bitmap_bits = 0;              ///< one bit per worker
  uint32_t worst_sum_bits = 0;       ///< bits of a W-worker sum of value_bits values, sign included
  uint32_t parsed_header_bytes = 0;  ///< Ethernet + IPv4 + UDP + aggregation header
  uint32_t thc_lookup_tables = 0;    ///< THC: one 256-entry exact-match table per index byte
  uint32_t thc_lookup_stages = 0;    ///< THC: stages those tables fill
  uint64_t thc_lane_sum = 0;         ///< THC: the largest lane sum, workers x granularity
};

TofinoResourceUse ComputeTofinoResources(const AggregationSwitchSpec& spec);

/// One checked limit: its name (stable, for reports), the scenario key that drives it, what the
/// spec uses, what the generation offers, and a sentence saying so.
struct ResourceLine {
  std::string limit;
  std::string spec_key;
  uint64_t used = 0;
  uint64_t available = 0;
  std::string explanation;
  bool Fits() const { return used <= available; }
};

/// Every limit checked, in a fixed order (the P4 generator's resource report).
std::vector<ResourceLine> TofinoResourceTable(const AggregationSwitchSpec& spec);
/// The lines that do not fit; empty when the spec fits its generation.
std::vector<ResourceLine> CheckTofinoFit(const AggregationSwitchSpec& spec);

}  // namespace hfsim
