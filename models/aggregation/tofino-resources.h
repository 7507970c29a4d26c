// Tofino-1 and Tofino-2 limits (docs/aggregation.md §8) as data, what an aggregation switch spec
// uses of them, and the check that it fits. The p4c front end does not know hardware limits, so
// this check is the one that refuses a program that would not fit; the P4 generator's resource
// report prints these same lines.
//
// The layout priced here is SwitchML's, conservatively:
//   * 4 control stages: the worker check, the worker bitmaps (one register per slot set:
//     test-and-set the worker's bit in its set, clear it in the other), the worker counter (its
//     table tells new from duplicate), and room for the max exponent, whose table runs beside the
//     value tables (p4/p4-ingress.cc): 3 + ceil((K/2 + 1) / 4) <= 4 + ceil(K/8) stages.
//   * Value stages: each stateful ALU owns one pair register (two int32 per entry, one per value),
//     so a stage adds 4 x 2 = 8 values and K values need ceil(K / 8) stages, with K even.
//   * A stateful ALU outputs one 32-bit word per pass on Tofino-1, so reading the second value of
//     each pair takes one harvest (recirculation) pass per completed slot; Tofino-2's ALUs output
//     up to 4 words, so none.
//   * PHV: 32-bit containers are kept for the K values; every other field (addresses, bitmap, key)
//     is placed in 16- and 8-bit containers. Tofino-2's PHV and SRAM are taken as Tofino-1's
//     (no public Tofino-2 figure; the smaller is the safe choice: docs/aggregation.md §8).
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
  uint32_t phv_8bit_containers = 64;
  uint32_t phv_16bit_containers = 96;
  uint32_t phv_32bit_containers = 64;
  uint32_t egress_parse_depth_bytes = 160;
  // hfsim's design rules on top of the hardware (SwitchML's layout, see above).
  uint32_t control_stages = 4;
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
  uint32_t mau_stages = 0;
  uint32_t value_alus = 0;    ///< one per pair register
  uint32_t control_alus = 0;  ///< bitmap per set, counter, max exponent
  uint32_t stateful_alus = 0;
  uint32_t max_register_actions = 0;         ///< on the busiest register
  uint32_t register_file_constants = 0;      ///< constants outside the ALU's immediate range
  uint64_t register_entries = 0;             ///< entries of each value register: slots x sets
  uint64_t value_register_bits = 0;          ///< all value registers together
  uint32_t sram_blocks_per_value_stage = 0;  ///< including one spare block per register
  uint32_t sram_blocks = 0;                  ///< all registers of the program
  uint32_t phv_8bit_containers = 0;
  uint32_t phv_16bit_containers = 0;
  uint32_t phv_32bit_containers = 0;
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
