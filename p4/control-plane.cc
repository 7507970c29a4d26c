#include "p4/control-plane.h"

#include <fmt/format.h>

#include "models/aggregation/aggregation-packet.h"
#include "models/compression/thc.h"
#include "p4/p4-program.h"
#include "p4/port-plan.h"

namespace hfsim {

namespace {

uint64_t MacValue(const Endpoint& endpoint) {
  uint64_t mac = 0;
  for (uint8_t b : endpoint.Mac()) mac = (mac << 8) | b;
  return mac;
}

// The action data that points a packet at `endpoint`: set_destination(mac, ip, port).
std::vector<NamedValue> DestinationOf(const Endpoint& endpoint) {
  return {{"mac", MacValue(endpoint), true},
          {"ip", endpoint.Ipv4(), true},
          {"port", PortPlan::PortOf(endpoint), false}};
}

std::string EndpointName(const Endpoint& endpoint) {
  return endpoint.kind == EndpointKind::kWorker ? fmt::format("worker {}", endpoint.index)
                                                : fmt::format("server shard {}", endpoint.index);
}

std::string FormatValue(const NamedValue& v) {
  return v.hex ? fmt::format("{}={:#x}", v.name, v.value) : fmt::format("{}={}", v.name, v.value);
}

// THC: every index byte's table maps each of the 256 byte values to the table integers of its
// 8 / b indices (low bits first), the first in the most significant lane of the action's data.
ThcLookupEntries MakeThcLookups(const AggregationSwitchSpec& spec) {
  ThcLookupEntries lookups;
  const std::vector<uint32_t> table = DefaultThcTable(spec.thc_bits, spec.thc_granularity);
  const uint32_t indices = 8 / spec.thc_bits;
  const uint32_t mask = (1u << spec.thc_bits) - 1;
  for (uint32_t x = 0; x < 256; ++x) {
    uint64_t lanes = 0;
    for (uint32_t i = 0; i < indices; ++i) {
      lanes = (lanes << 8) | table[(x >> (i * spec.thc_bits)) & mask];
    }
    lookups.lanes_by_byte.push_back(lanes);
  }
  for (uint32_t byte = 0; byte < spec.UpdateValueBytes(); ++byte) {
    lookups.tables.push_back("Ingress." + ThcLookupTable(byte));
    lookups.actions.push_back(ThcLookupAction(byte));
    lookups.key_fields.push_back(ThcIndexByteField(byte));
  }
  return lookups;
}

}  // namespace

ControlPlane BuildControlPlane(const AggregationSwitchSpec& spec) {
  ControlPlane plane;
  const bool server_mode = spec.mode == AggregationMode::kParameterServer;
  std::vector<Endpoint> hosts;
  for (uint32_t w = 0; w < spec.workers; ++w) hosts.push_back(Endpoint::Worker(w));
  if (server_mode) {
    for (uint32_t s = 0; s < spec.server_shards; ++s) hosts.push_back(Endpoint::Server(s));
  }
  for (const Endpoint& host : hosts) {
    plane.entries.push_back({"Ingress.forward",
                             "set_port",
                             {{"dst_addr", host.Ipv4(), true}},
                             {{"port", PortPlan::PortOf(host), false}},
                             "forward to " + EndpointName(host)});
  }
  for (uint32_t w = 0; w < spec.workers; ++w) {
    const Endpoint worker = Endpoint::Worker(w);
    plane.entries.push_back({"Ingress.check_worker",
                             "accept_worker",
                             {{"worker_id", w, false},
                              {"worker_bitmap", uint64_t{1} << w, true},
                              {"src_addr", worker.Ipv4(), true}},
                             {{"worker_bit", uint64_t{1} << w, true}},
                             "updates of " + EndpointName(worker)});
  }
  if (server_mode) {
    for (uint32_t s = 0; s < spec.server_shards; ++s) {
      const Endpoint server = Endpoint::Server(s);
      plane.entries.push_back({"Ingress.server_address", "set_destination",
                               {{"shard", s, false}}, DestinationOf(server),
                               "results and cold keys of shard " + std::to_string(s)});
    }
    return plane;
  }
  if (spec.IsThc()) plane.thc_lookups = MakeThcLookups(spec);
  plane.multicast_group = spec.multicast_group;
  for (uint32_t w = 0; w < spec.workers; ++w) {
    const Endpoint worker = Endpoint::Worker(w);
    plane.entries.push_back({"Ingress.worker_address", "set_destination",
                             {{"worker_id", w, false}}, DestinationOf(worker),
                             "results resent to " + EndpointName(worker)});
  }
  for (uint32_t w = 0; w < spec.workers; ++w) {
    const Endpoint worker = Endpoint::Worker(w);
    plane.entries.push_back({"Egress.result_copy",
                             "address_copy",
                             {{"egress_rid", w + 1, false}},
                             {{"mac", MacValue(worker), true},
                              {"ip", worker.Ipv4(), true},
                              {"worker_id", w, false}},
                             "multicast copy for " + EndpointName(worker)});
    plane.nodes.push_back({w + 1, w + 1, PortPlan::WorkerPort(w)});
  }
  return plane;
}

std::string ControlPlaneToBfrtPython(const ControlPlane& plane, const AggregationSwitchSpec& spec) {
  std::string out;
  auto line = [&out](const std::string& text) { out += text + "\n"; };
  line("# control-plane.py: table entries and multicast groups for " + std::string(kP4ProgramName) +
       ".p4 (generated by hfsim).");
  line("# Load it after the program, in bfshell: bfrt_python control-plane.py");
  line("# (or: $SDE/run_bfshell.sh -b control-plane.py). Device ports follow hfsim's port plan:");
  line("# worker w on dev port w, server shard s on dev port 32 + s; edit the port values below");
  line("# (and in control-plane.json) to match your cabling. Re-running it clears the tables first.");
  line(fmt::format("# Spec: {} mode, {} workers, Tofino-{}.", ToString(spec.mode), spec.workers,
                   static_cast<int>(spec.generation)));
  line("");
  line(fmt::format("p4 = bfrt.{}.pipe", kP4ProgramName));
  line("");
  std::vector<std::string> tables;
  for (const TableEntry& e : plane.entries) {
    if (tables.empty() || tables.back() != e.table) tables.push_back(e.table);
  }
  for (const std::string& table : tables) line(fmt::format("p4.{}.clear()", table));
  line("");
  for (const TableEntry& e : plane.entries) {
    std::string args;
    for (const NamedValue& v : e.key) args += (args.empty() ? "" : ", ") + FormatValue(v);
    for (const NamedValue& v : e.data) args += ", " + FormatValue(v);
    line(fmt::format("p4.{}.add_with_{}({})  # {}", e.table, e.action, args, e.comment));
  }
  if (plane.thc_lookups) {
    const ThcLookupEntries& thc = *plane.thc_lookups;
    std::string lanes;
    for (size_t x = 0; x < thc.lanes_by_byte.size(); ++x) {
      lanes += fmt::format("{}{:#x},", x % 8 == 0 ? "\n    " : " ", thc.lanes_by_byte[x]);
    }
    line("");
    line(fmt::format("# THC lookups: the same 256 entries in each of the {} index-byte tables (byte "
                     "value -> the table",
                     thc.tables.size()));
    line("# integers of its indices, first index in the most significant lane).");
    line("THC_LANES = [" + lanes + "\n]");
    line("THC_TABLES = [  # (table, action, key field)");
    for (size_t j = 0; j < thc.tables.size(); ++j) {
      line(fmt::format("    (\"{}\", \"{}\", \"{}\"),", thc.tables[j], thc.actions[j], thc.key_fields[j]));
    }
    line("]");
    line("for table_name, action, key in THC_TABLES:");
    line("    table = p4");
    line("    for part in table_name.split(\".\"):");
    line("        table = getattr(table, part)");
    line("    table.clear()");
    line("    add = getattr(table, \"add_with_\" + action)");
    line("    for byte, lanes in enumerate(THC_LANES):");
    line("        add(**{key: byte, \"lanes\": lanes})");
  }
  if (plane.multicast_group != 0) {
    line("");
    line("# Multicast: one node per worker (replication id = worker + 1, read by Egress.result_copy).");
    line("pre = bfrt.pre");
    line(fmt::format("try:\n    pre.mgid.delete(MGID={})\nexcept Exception:\n    pass",
                     plane.multicast_group));
    for (const MulticastNode& n : plane.nodes) {
      line(fmt::format("try:\n    pre.node.delete(MULTICAST_NODE_ID={})\nexcept Exception:\n    pass",
                       n.node_id));
      line(fmt::format("pre.node.add(MULTICAST_NODE_ID={}, MULTICAST_RID={}, MULTICAST_LAG_ID=[], "
                       "DEV_PORT=[{}])",
                       n.node_id, n.rid, n.dev_port));
    }
    std::string ids, valid, xids;
    for (const MulticastNode& n : plane.nodes) {
      ids += (ids.empty() ? "" : ", ") + std::to_string(n.node_id);
      valid += valid.empty() ? "False" : ", False";
      xids += xids.empty() ? "0" : ", 0";
    }
    line(fmt::format("pre.mgid.add(MGID={}, MULTICAST_NODE_ID=[{}], MULTICAST_NODE_L1_XID_VALID=[{}], "
                     "MULTICAST_NODE_L1_XID=[{}])",
                     plane.multicast_group, ids, valid, xids));
  }
  line("");
  line("bfrt.complete_operations()");
  return out;
}

nlohmann::json ControlPlaneToJson(const ControlPlane& plane) {
  nlohmann::json entries = nlohmann::json::array();
  auto fields = [](const std::vector<NamedValue>& values) {
    nlohmann::json object = nlohmann::json::object();
    for (const NamedValue& v : values) object[v.name] = v.value;
    return object;
  };
  for (const TableEntry& e : plane.entries) {
    entries.push_back({{"table", e.table},
                       {"action", e.action},
                       {"key", fields(e.key)},
                       {"data", fields(e.data)},
                       {"comment", e.comment}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const MulticastNode& n : plane.nodes) {
    nodes.push_back({{"node_id", n.node_id}, {"rid", n.rid}, {"dev_port", n.dev_port}});
  }
  nlohmann::json json = {{"program", kP4ProgramName}, {"table_entries", entries}};
  if (plane.multicast_group != 0) {
    json["multicast"] = {{"group", plane.multicast_group}, {"nodes", nodes}};
  }
  if (plane.thc_lookups) {
    const ThcLookupEntries& thc = *plane.thc_lookups;
    json["thc_lookups"] = {{"tables", thc.tables},
                           {"actions", thc.actions},
                           {"key_fields", thc.key_fields},
                           {"lanes_by_byte", thc.lanes_by_byte}};
  }
  return json;
}

}  // namespace hfsim
