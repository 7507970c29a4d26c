// The P4_16 program for Tofino (TNA, or T2NA for Tofino-2) that does what SwitchAggregator
// (models/aggregation/switch-aggregator.h) does, register by register. The text is generated from
// the same AggregationSwitchSpec the simulator runs, so the program, the simulated switch and the
// test vectors (test-vectors.h) cannot drift apart. docs/p4.md walks through the program.
//
// Pipeline layout (SwitchML's, priced by models/aggregation/tofino-resources.h):
//   parser     Ethernet / IPv4 / UDP; the aggregation header and K values only on the job's port
//   ingress    check_worker (worker id, bitmap and source address agree), per-set worker bitmaps
//              (test-and-set own set, clear the other: shadow copies), worker counter, max
//              exponent (block exponents only), K/2 pair registers of values, then one routing
//              block that applies each table once: drop, forward, multicast, unicast, to a server
//              shard, or (Tofino-1) recirculate for the harvest pass
//   harvest    Tofino-1 only: a stateful ALU outputs one word per pass, so a completed slot's
//              second values are read by a recirculated pass
//   egress     addresses each multicast copy (replication id = worker + 1)
//   deparsers  recompute the IPv4 header checksum
// The generator is conservative where the hardware might not be: one table application per table,
// every constant declared, no @stage pragmas (p4c places the stages), bitmaps checked by a table
// instead of a variable shift.
#pragma once

#include <string>
#include <vector>

#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

/// What the generated program needs beyond the Tofino limits CheckTofinoFit checks: a spec the
/// simulator accepts but this generator cannot express. `spec_key` is the aggregation key at fault.
struct P4Limitation {
  std::string spec_key;
  std::string message;
};

/// Empty when GenerateP4Program can express `spec`.
std::vector<P4Limitation> CheckP4Support(const AggregationSwitchSpec& spec);

/// THC programs' names, shared with the control plane: the header field of index byte `byte`,
/// the exact-match table that looks it up, and the action that writes its lanes.
std::string ThcIndexByteField(uint32_t byte);
std::string ThcLookupTable(uint32_t byte);
std::string ThcLookupAction(uint32_t byte);

/// Where the program comes from, for its header comment (no dates: output is deterministic).
struct P4Provenance {
  std::string scenario_name;
  std::string hfsim_version;
};

/// The P4 program's file name and the name p4c and bfrt give it: "aggregation".
inline constexpr const char* kP4ProgramName = "aggregation";

/// The program's text. Precondition: CheckTofinoFit and CheckP4Support are empty.
std::string GenerateP4Program(const AggregationSwitchSpec& spec, const P4Provenance& provenance);

/// "tna" or "t2na", and the p4c command that compiles the program.
std::string P4Architecture(const AggregationSwitchSpec& spec);
std::string P4CompileCommand(const AggregationSwitchSpec& spec);

}  // namespace hfsim
