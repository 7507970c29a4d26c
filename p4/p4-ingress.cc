// The generated program's ingress control (docs/p4.md §2): the worker check, the bitmap, counter,
// exponent and value registers, THC's lookup tables, the aggregation of an update, the Tofino-1
// harvest pass and the routing. It implements SwitchAggregator::Receive register by register.
#include <string_view>

#include "p4/p4-writer.h"
#include "p4/port-plan.h"

namespace hfsim::p4_writer {

namespace {

// THC: index byte `byte` holds 8 / b indices; their lanes fill bits [high:low] of one word
// (lane 4w is the word's most significant byte, as the result frame carries lanes in order).
struct LaneSlice {
  uint32_t word;
  uint32_t high;
  uint32_t low;
};
LaneSlice LanesOfByte(const AggregationSwitchSpec& spec, uint32_t byte) {
  const uint32_t lanes_per_byte = 8 / spec.thc_bits;
  const uint32_t first_lane = byte * lanes_per_byte;
  const uint32_t word = first_lane / 4;
  const uint32_t high = 31 - 8 * (first_lane % 4);
  return {word, high, high + 1 - 8 * lanes_per_byte};
}

// The stateful ALU programs of one pair register. Tofino-1 outputs one word per pass (the first
// value; the second is read by the harvest pass); Tofino-2 outputs both with RegisterAction2.
void WritePairRegister(Text& t, const AggregationSwitchSpec& spec, uint32_t pair) {
  const std::string reg = PairRegister(pair);
  const std::string a = "hdr.values." + ValueField(2 * pair);
  const std::string b = "hdr.values." + ValueField(2 * pair + 1);
  const std::string add = spec.overflow == OverflowBehaviour::kSaturate ? "|+|" : "+";
  t.Line("    Register<value_pair_t, bit<32>>(REGISTER_ENTRIES) {};", reg);
  const bool tofino1 = IsTofino1(spec);
  const std::string action_type = tofino1
                                      ? "RegisterAction<value_pair_t, bit<32>, value_t>"
                                      : "RegisterAction2<value_pair_t, bit<32>, value_t, value_t>";
  const std::string outputs =
      tofino1 ? "out value_t first" : "out value_t first, out value_t second";
  const std::string emit =
      tofino1 ? "first = pair.first;" : "first = pair.first; second = pair.second;";
  t.Line("    {}({}) {}_write = {{", action_type, reg, reg);
  t.Line("        void apply(inout value_pair_t pair, {}) {{", outputs);
  t.Line("            pair.first = {}; pair.second = {}; {}", a, b, emit);
  t.Line("        }}");
  t.Line("    }};");
  t.Line("    {}({}) {}_add = {{", action_type, reg, reg);
  t.Line("        void apply(inout value_pair_t pair, {}) {{", outputs);
  t.Line("            pair.first = pair.first {} {}; pair.second = pair.second {} {}; {}", add, a,
         add, b, emit);
  t.Line("        }}");
  t.Line("    }};");
  t.Line("    {}({}) {}_read = {{", action_type, reg, reg);
  t.Line("        void apply(inout value_pair_t pair, {}) {{", outputs);
  t.Line("            {}", emit);
  t.Line("        }}");
  t.Line("    }};");
  if (tofino1) {
    t.Line("    {}({}) {}_read_second = {{", action_type, reg, reg);
    t.Line("        void apply(inout value_pair_t pair, out value_t second) {{");
    t.Line("            second = pair.second;");
    t.Line("        }}");
    t.Line("    }};");
  }
}

// Executes `<register>_<suffix>` on every pair register, storing the outputs in the values.
void WriteValueAccess(Text& t, const AggregationSwitchSpec& spec, std::string_view suffix,
                      std::string_view indent) {
  for (uint32_t pair = 0; pair < Pairs(spec); ++pair) {
    const std::string a = "hdr.values." + ValueField(2 * pair);
    const std::string b = "hdr.values." + ValueField(2 * pair + 1);
    if (IsTofino1(spec)) {
      t.Line("{}{} = {}_{}.execute(meta.register_index);", indent, a, PairRegister(pair), suffix);
    } else {
      t.Line("{}{} = {}_{}.execute(meta.register_index, {});", indent, a, PairRegister(pair),
             suffix, b);
    }
  }
}

// THC: one exact-match table per index byte, mapping the byte's indices to their table integers
// in their lanes of one word (control-plane.py fills the 256 entries of each).
void WriteThcLookups(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("    // THC lookups: index byte -> the table integers of its {} indices, in their lanes.",
         8 / spec.thc_bits);
  for (uint32_t byte = 0; byte < spec.UpdateValueBytes(); ++byte) {
    const LaneSlice slice = LanesOfByte(spec, byte);
    const uint32_t width = slice.high - slice.low + 1;
    const std::string target =
        width == 32
            ? fmt::format("hdr.values.{}", ValueField(slice.word))
            : fmt::format("hdr.values.{}[{}:{}]", ValueField(slice.word), slice.high, slice.low);
    t.Line("    action {}(bit<{}> lanes) {{", ThcLookupAction(byte), width);
    t.Line("        {} = lanes;", target);
    t.Line("    }}");
    t.Line("    table {} {{", ThcLookupTable(byte));
    t.Line("        key = {{ hdr.thc.{} : exact; }}", ThcIndexByteField(byte));
    t.Line("        actions = {{ {}; }}", ThcLookupAction(byte));
    t.Line("        const default_action = {}(0);", ThcLookupAction(byte));
    t.Line("        size = 256;");
    t.Line("    }}");
  }
  t.Blank();
}

void WriteIngressDeclarations(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("    action drop() {{");
  t.Line("        ig_dprsr_md.drop_ctl = 1;");
  t.Line("    }}");
  t.Blank();
  t.Line("    // Traffic that is not aggregated (and results a server sends to its workers).");
  t.Line("    action set_port(PortId_t port) {{");
  t.Line("        ig_tm_md.ucast_egress_port = port;");
  t.Line("    }}");
  t.Line("    table forward {{");
  t.Line("        key = {{ hdr.ipv4.dst_addr : exact; }}");
  t.Line("        actions = {{ set_port; drop; }}");
  t.Line("        default_action = drop();");
  t.Line("        size = {};", kMaxP4Workers + kMaxP4ServerShards);
  t.Line("    }}");
  t.Blank();
  t.Line("    // One entry per worker: its id, its bitmap bit and its source address must agree.");
  t.Line("    action accept_worker(bit<32> worker_bit) {{");
  t.Line("        meta.worker_bit = worker_bit;");
  t.Line("        meta.accepted = 1;");
  t.Line("    }}");
  t.Line("    action reject_worker() {{");
  t.Line("        meta.accepted = 0;");
  t.Line("    }}");
  t.Line("    table check_worker {{");
  t.Line("        key = {{");
  t.Line("            hdr.agg.worker_id : exact;");
  t.Line("            hdr.agg.worker_bitmap : exact;");
  t.Line("            hdr.ipv4.src_addr : exact;");
  t.Line("        }}");
  t.Line("        actions = {{ accept_worker; reject_worker; }}");
  t.Line("        default_action = reject_worker();");
  t.Line("        size = {};", kMaxP4Workers);
  t.Line("    }}");
  t.Blank();
  t.Line("    action set_destination(bit<48> mac, bit<32> ip, PortId_t port) {{");
  t.Line("        hdr.ethernet.dst_addr = mac;");
  t.Line("        hdr.ipv4.dst_addr = ip;");
  t.Line("        ig_tm_md.ucast_egress_port = port;");
  t.Line("    }}");
  if (IsServerMode(spec)) {
    t.Line("    table server_address {{");
    t.Line("        key = {{ meta.shard : exact; }}");
    t.Line("        actions = {{ set_destination; drop; }}");
    t.Line("        default_action = drop();");
    t.Line("        size = {};", kMaxP4ServerShards);
    t.Line("    }}");
  } else {
    t.Line("    // A result resent to the one worker that lost it.");
    t.Line("    table worker_address {{");
    t.Line("        key = {{ hdr.agg.worker_id : exact; }}");
    t.Line("        actions = {{ set_destination; drop; }}");
    t.Line("        default_action = drop();");
    t.Line("        size = {};", kMaxP4Workers);
    t.Line("    }}");
  }
  t.Blank();
  t.Line(
      "    // A completed slot (or a resent one) becomes a result from the switch. Called "
      "directly,");
  t.Line("    // never from a table, so its parameter has a direction.");
  t.Line("    action make_result(in bit<8> retransmission) {{");
  if (spec.IsThc()) {
    t.Line("        // The packed indices give way to the lane sums: the frame grows.");
    t.Line("        hdr.thc.setInvalid();");
    t.Line("        hdr.ipv4.total_len = RESULT_IPV4_TOTAL_LEN;");
    t.Line("        hdr.udp.length = RESULT_UDP_LEN;");
  }
  t.Line("        hdr.agg.msg_type = MSG_RESULT;");
  t.Line("        hdr.agg.flags = (hdr.agg.flags & FLAG_SLOT_SET) | retransmission;");
  t.Line("        hdr.agg.worker_bitmap = meta.bitmap_before | meta.worker_bit;");
  t.Line("        hdr.ethernet.src_addr = SWITCH_MAC;");
  t.Line("        hdr.ipv4.src_addr = SWITCH_IP;");
  t.Line("    }}");
  t.Blank();
  t.Line(
      "    // ---- Registers. Worker bitmaps, one per slot set: a worker's packet sets its bit in");
  t.Line(
      "    // its set and clears it in the other (it has the other set's result: shadow copies).");
  for (uint32_t set = 0; set < 2; ++set) {
    t.Line("    Register<bit<32>, bit<32>>({}) bitmap_set{};", spec.aggregator_slots, set);
    t.Line(
        "    RegisterAction<bit<32>, bit<32>, bit<32>>(bitmap_set{}) bitmap_set{}_test_and_set = "
        "{{",
        set, set);
    t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
    t.Line("            before = value;");
    t.Line("            value = value | meta.worker_bit;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<bit<32>, bit<32>, bit<32>>(bitmap_set{}) bitmap_set{}_clear = {{",
           set, set);
    t.Line("        void apply(inout bit<32> value) {{");
    t.Line("            value = value & ~meta.worker_bit;");
    t.Line("        }}");
    t.Line("    }};");
  }
  t.Blank();
  t.Line("    // Workers counted so far in the slot's round, modulo W (0: empty or complete).");
  t.Line("    Register<bit<32>, bit<32>>(REGISTER_ENTRIES) worker_count;");
  t.Line("    RegisterAction<bit<32>, bit<32>, bit<32>>(worker_count) worker_count_increment = {{");
  t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
  t.Line("            before = value;");
  t.Line("            if (value == LAST_WORKER_COUNT) {{");
  t.Line("                value = 0;");
  t.Line("            }} else {{");
  t.Line("                value = value + 1;");
  t.Line("            }}");
  t.Line("        }}");
  t.Line("    }};");
  t.Line("    RegisterAction<bit<32>, bit<32>, bit<32>>(worker_count) worker_count_read = {{");
  t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
  t.Line("            before = value;");
  t.Line("        }}");
  t.Line("    }};");
  t.Blank();
  if (spec.HasExponentRegister()) {
    t.Line("    // The largest block exponent announced in the round (SwitchML's scaling).");
    t.Line("    Register<int<16>, bit<32>>(REGISTER_ENTRIES) max_exponent;");
    t.Line("    RegisterAction<int<16>, bit<32>, int<16>>(max_exponent) max_exponent_write = {{");
    t.Line("        void apply(inout int<16> value, out int<16> result) {{");
    t.Line("            value = meta.exponent;");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<int<16>, bit<32>, int<16>>(max_exponent) max_exponent_max = {{");
    t.Line("        void apply(inout int<16> value, out int<16> result) {{");
    t.Line("            if (meta.exponent > value) {{");
    t.Line("                value = meta.exponent;");
    t.Line("            }}");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<int<16>, bit<32>, int<16>>(max_exponent) max_exponent_read = {{");
    t.Line("        void apply(inout int<16> value, out int<16> result) {{");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    t.Blank();
  }
  if (spec.IsThc()) {
    WriteThcLookups(t, spec);
    t.Line("    // Values: {} pair registers of two words of four 8-bit lane sums each.",
           Pairs(spec));
  } else {
    t.Line("    // Values: {} pair registers of two int32 sums each ({} adds).", Pairs(spec),
           spec.overflow == OverflowBehaviour::kSaturate ? "saturating" : "wrap-around");
  }
  for (uint32_t pair = 0; pair < Pairs(spec); ++pair) WritePairRegister(t, spec, pair);
  t.Blank();
}

void WriteRegisterIndex(Text& t, std::string_view indent) {
  t.Line("{}meta.register_index = (bit<32>)hdr.agg.slot;", indent);
  t.Line("{}if ((hdr.agg.flags & FLAG_SLOT_SET) != 0) {{", indent);
  t.Line("{}    meta.register_index = meta.register_index + SLOT_SET_OFFSET;", indent);
  t.Line("{}}}", indent);
}

// Where a result goes (the packet is already a result from the switch): a resend to the one
// worker that asked (all-reduce) or to the owning server, which answers that worker; a completed
// slot to every worker (multicast) or to the owning server.
void WriteResultRoute(Text& t, const AggregationSwitchSpec& spec, std::string_view indent) {
  if (IsServerMode(spec)) {
    t.Line("{}if ((hdr.agg.flags & FLAG_RETRANSMISSION) == 0) {{", indent);
    t.Line("{}    hdr.agg.worker_id = ALL_WORKERS;", indent);
    t.Line("{}}}", indent);
    t.Line("{}meta.shard = (hdr.agg.key_offset >> SHARD_SHIFT) & SHARD_MASK;", indent);
    t.Line("{}meta.route = ROUTE_SERVER;", indent);
    return;
  }
  t.Line("{}if ((hdr.agg.flags & FLAG_RETRANSMISSION) != 0) {{", indent);
  t.Line("{}    meta.route = ROUTE_WORKER;", indent);
  t.Line("{}}} else {{", indent);
  t.Line("{}    meta.route = ROUTE_MULTICAST;", indent);
  t.Line("{}}}", indent);
}

// After make_result: Tofino-1 recirculates for the harvest pass, Tofino-2 routes at once.
void WriteResultDispatch(Text& t, const AggregationSwitchSpec& spec, std::string_view indent) {
  if (IsTofino1(spec)) {
    t.Line("{}hdr.agg.flags = hdr.agg.flags | FLAG_HARVEST;", indent);
    t.Line("{}meta.route = ROUTE_HARVEST;", indent);
  } else {
    WriteResultRoute(t, spec, indent);
  }
}

void WriteAggregation(Text& t, const AggregationSwitchSpec& spec) {
  const std::string in = "                ";
  t.Line("            check_worker.apply();");
  t.Line("            if (meta.accepted == 0 || hdr.ipv4.dst_addr != SWITCH_IP ||");
  t.Line("                    hdr.agg.slot >= SLOTS || (hdr.agg.flags & FLAGS_RESERVED) != 0 ||");
  t.Line("                    hdr.agg.num_values > VALUES_PER_PACKET) {{");
  t.Line("                meta.route = ROUTE_DROP;");
  if (ChecksHotKeys(spec)) {
    t.Line("            }} else if (hdr.agg.key_offset >= HOT_KEY_CAPACITY) {{");
    t.Line("                // A cold key: forwarded unchanged to the server that owns it.");
    t.Line("                meta.shard = (hdr.agg.key_offset >> SHARD_SHIFT) & SHARD_MASK;");
    t.Line("                meta.route = ROUTE_SERVER;");
  }
  t.Line("            }} else {{");
  if (spec.IsThc()) {
    t.Line("{}// THC: look the indices up into the lane words the registers add.", in);
    t.Line("{}hdr.values.setValid();", in);
    for (uint32_t byte = 0; byte < spec.UpdateValueBytes(); ++byte) {
      t.Line("{}{}.apply();", in, ThcLookupTable(byte));
    }
  }
  t.Line("{}meta.register_index = (bit<32>)hdr.agg.slot;", in);
  t.Line("{}if ((hdr.agg.flags & FLAG_SLOT_SET) != 0) {{", in);
  t.Line("{}    meta.register_index = meta.register_index + SLOT_SET_OFFSET;", in);
  t.Line("{}    meta.bitmap_before = bitmap_set1_test_and_set.execute((bit<32>)hdr.agg.slot);", in);
  t.Line("{}    bitmap_set0_clear.execute((bit<32>)hdr.agg.slot);", in);
  t.Line("{}}} else {{", in);
  t.Line("{}    meta.bitmap_before = bitmap_set0_test_and_set.execute((bit<32>)hdr.agg.slot);", in);
  t.Line("{}    bitmap_set1_clear.execute((bit<32>)hdr.agg.slot);", in);
  t.Line("{}}}", in);
  t.Line("{}if ((meta.bitmap_before & meta.worker_bit) == 0) {{", in);
  t.Line("{}    // A new contribution: the round's first writes, later ones add.", in);
  t.Line("{}    meta.count_before = worker_count_increment.execute(meta.register_index);", in);
  if (spec.HasExponentRegister()) t.Line("{}    meta.exponent = (int<16>)hdr.agg.exponent;", in);
  t.Line("{}    if (meta.count_before == 0) {{", in);
  if (spec.HasExponentRegister()) {
    t.Line("{}        hdr.agg.exponent = (int<8>)max_exponent_write.execute(meta.register_index);",
           in);
  }
  WriteValueAccess(t, spec, "write", in + "        ");
  t.Line("{}    }} else {{", in);
  if (spec.HasExponentRegister()) {
    t.Line("{}        hdr.agg.exponent = (int<8>)max_exponent_max.execute(meta.register_index);",
           in);
  }
  WriteValueAccess(t, spec, "add", in + "        ");
  t.Line("{}    }}", in);
  t.Line("{}    if (meta.count_before == LAST_WORKER_COUNT) {{", in);
  t.Line("{}        make_result(0);", in);
  WriteResultDispatch(t, spec, in + "        ");
  t.Line("{}    }} else {{", in);
  t.Line("{}        meta.route = ROUTE_DROP;  // the slot waits for more workers", in);
  t.Line("{}    }}", in);
  t.Line("{}}} else {{", in);
  t.Line("{}    // The worker's bit is set: a duplicate. If the slot is complete the worker lost",
         in);
  t.Line("{}    // the result, so it is answered from the registers; otherwise dropped.", in);
  t.Line("{}    meta.count_before = worker_count_read.execute(meta.register_index);", in);
  t.Line("{}    if (meta.count_before == 0) {{", in);
  if (spec.HasExponentRegister()) {
    t.Line("{}        hdr.agg.exponent = (int<8>)max_exponent_read.execute(meta.register_index);",
           in);
  }
  WriteValueAccess(t, spec, "read", in + "        ");
  t.Line("{}        make_result(FLAG_RETRANSMISSION);", in);
  WriteResultDispatch(t, spec, in + "        ");
  t.Line("{}    }} else {{", in);
  t.Line("{}        meta.route = ROUTE_DROP;", in);
  t.Line("{}    }}", in);
  t.Line("{}}}", in);
  t.Line("            }}");
}

void WriteHarvest(Text& t, const AggregationSwitchSpec& spec) {
  const std::string in = "            ";
  t.Line(
      "        }} else if (hdr.agg.msg_type == MSG_RESULT && (hdr.agg.flags & FLAG_HARVEST) != 0 "
      "&&");
  t.Line("                   ig_intr_md.ingress_port == RECIRCULATION_PORT) {{");
  t.Line("            // Harvest pass of a completed slot: read the second value of every pair.");
  WriteRegisterIndex(t, in);
  for (uint32_t pair = 0; pair < Pairs(spec); ++pair) {
    t.Line("{}hdr.values.{} = {}_read_second.execute(meta.register_index);", in,
           ValueField(2 * pair + 1), PairRegister(pair));
  }
  t.Line("{}hdr.agg.flags = hdr.agg.flags & FLAGS_WITHOUT_HARVEST;", in);
  WriteResultRoute(t, spec, in);
}

void WriteIngressRouting(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("        // Every table is applied in one place only.");
  t.Line("        if (meta.route == ROUTE_FORWARD) {{");
  t.Line("            forward.apply();");
  if (IsServerMode(spec)) {
    t.Line("        }} else if (meta.route == ROUTE_SERVER) {{");
    t.Line("            server_address.apply();");
  } else {
    t.Line("        }} else if (meta.route == ROUTE_WORKER) {{");
    t.Line("            worker_address.apply();");
    t.Line("        }} else if (meta.route == ROUTE_MULTICAST) {{");
    t.Line("            ig_tm_md.mcast_grp_a = RESULT_GROUP;");
  }
  if (IsTofino1(spec)) {
    t.Line("        }} else if (meta.route == ROUTE_HARVEST) {{");
    t.Line("            ig_tm_md.ucast_egress_port = RECIRCULATION_PORT;");
    t.Line("            ig_tm_md.bypass_egress = 1;");
  }
  t.Line("        }} else {{");
  t.Line("            drop();");
  t.Line("        }}");
}

}  // namespace

void WriteIngress(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("// ---- Ingress: the aggregation pipeline");
  t.Line("control Ingress(inout ingress_headers_t hdr,");
  t.Line("                inout ingress_metadata_t meta,");
  t.Line("                in ingress_intrinsic_metadata_t ig_intr_md,");
  t.Line("                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,");
  t.Line("                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,");
  t.Line("                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {{");
  WriteIngressDeclarations(t, spec);
  t.Line("    apply {{");
  t.Line("        if (!hdr.ipv4.isValid()) {{");
  t.Line("            meta.route = ROUTE_DROP;");
  t.Line("        }} else if (!hdr.agg.isValid()) {{");
  t.Line("            meta.route = ROUTE_FORWARD;");
  if (IsTofino1(spec)) WriteHarvest(t, spec);
  t.Line("        }} else if (hdr.agg.msg_type != MSG_UPDATE) {{");
  t.Line("            meta.route = ROUTE_FORWARD;  // e.g. a server's answer to a worker");
  t.Line("        }} else {{");
  WriteAggregation(t, spec);
  t.Line("        }}");
  t.Blank();
  WriteIngressRouting(t, spec);
  t.Line("    }}");
  t.Line("}}");
  t.Blank();
}

}  // namespace hfsim::p4_writer
