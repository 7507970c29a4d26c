// The control-plane setup of the generated program: every table entry and multicast group it
// needs, built once as data (ControlPlane) and written two ways, as a bfrt_python script to run
// in the Tofino switch's bfshell (`bfrt_python control-plane.py`) and as JSON for other tooling.
// Ports come from the port plan (port-plan.h); table and action names match p4-program.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

/// One field of a key or of an action's data: its bfrt name and value.
struct NamedValue {
  std::string name;
  uint64_t value = 0;
  /// How the bfrt script writes it: hex for addresses and bitmaps, decimal otherwise.
  bool hex = false;
};

struct TableEntry {
  std::string table;   ///< "Ingress.forward"
  std::string action;  ///< "set_port"
  std::vector<NamedValue> key;
  std::vector<NamedValue> data;
  std::string comment;
};

/// A multicast node (one replica: a port and the replication id the egress table keys on).
struct MulticastNode {
  uint32_t node_id = 0;
  uint32_t rid = 0;
  uint16_t dev_port = 0;
};

/// THC programs: every index byte's lookup table holds the same 256 entries, a byte value ->
/// the table integers of its indices, in lane order (the first index in the most significant
/// lane of the data). Kept once, not as 256 entries per table.
struct ThcLookupEntries {
  std::vector<std::string> tables;      ///< "Ingress.thc_lookup_00", … one per index byte
  std::vector<std::string> actions;     ///< "thc_lanes_00", …
  std::vector<std::string> key_fields;  ///< "b00", … (hdr.thc.b00)
  std::vector<uint64_t> lanes_by_byte;  ///< 256 values: the action's `lanes` for each byte value
};

struct ControlPlane {
  std::vector<TableEntry> entries;
  std::optional<ThcLookupEntries> thc_lookups;
  std::vector<MulticastNode> nodes;
  uint16_t multicast_group = 0;  ///< 0: no group (parameter-server mode)
};

/// Precondition: CheckP4Support(spec) is empty.
ControlPlane BuildControlPlane(const AggregationSwitchSpec& spec);

std::string ControlPlaneToBfrtPython(const ControlPlane& plane, const AggregationSwitchSpec& spec);
nlohmann::json ControlPlaneToJson(const ControlPlane& plane);

}  // namespace hfsim
