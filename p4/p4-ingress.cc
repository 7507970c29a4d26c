// The generated program's ingress control (docs/p4.md §2): the worker check, the bitmap, counter,
// exponent and value registers, THC's lookup tables, the aggregation of an update, the Tofino-1
// harvest pass and the routing. It implements SwitchAggregator::Receive register by register.
#include <bit>
#include <string_view>
#include <vector>

#include "p4/p4-writer.h"
#include "p4/port-plan.h"

namespace hfsim::p4_writer {

namespace {

// [hot_key_capacity_keys, 2^32) as aligned power-of-two blocks (value, mask), largest first
// where alignment allows: at most 32 ternary entries.
std::vector<std::pair<uint64_t, uint64_t>> ColdKeyBlocks(const AggregationSwitchSpec& spec) {
  constexpr uint64_t kEnd = uint64_t{1} << 32;
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
  for (uint64_t x = spec.hot_key_capacity_keys; x < kEnd;) {
    uint64_t size = x == 0 ? kEnd : (x & (~x + 1));  // the largest block aligned at x
    while (x + size > kEnd) size /= 2;
    blocks.emplace_back(x, (kEnd - size) & 0xFFFFFFFFu);
    x += size;
  }
  return blocks;
}

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
  t.Line("    Register<value_pair_t, index_t>(REGISTER_ENTRIES) {};", reg);
  const bool tofino1 = IsTofino1(spec);
  const std::string action_type = tofino1
                                      ? "RegisterAction<value_pair_t, index_t, value_t>"
                                      : "RegisterAction2<value_pair_t, index_t, value_t, value_t>";
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

// The entries shared by the register tables (values, exponent): what a packet's phase and the
// counter's old value ask of the register. Matching the counter in a table, not testing it in
// an `if`, keeps each register to one table and each register access in a keyed table, where it
// may take its index from the hash unit (a keyless table cannot).
struct RegisterCase {
  const char* phase;
  const char* count;  // ternary: "0" (the slot was empty or complete) or "_"
  const char* action_suffix;
};
std::vector<RegisterCase> RegisterCases(bool harvest) {
  std::vector<RegisterCase> cases = {{"PHASE_NEW", "0", "write"},
                                     {"PHASE_NEW", "_", "add"},
                                     {"PHASE_DUPLICATE", "0", "read"}};
  if (harvest) cases.push_back({"PHASE_HARVEST", "_", "read_second"});
  return cases;
}

void WriteRegisterTable(Text& t, const std::string& table, const std::vector<RegisterCase>& cases,
                        const std::string& action_prefix) {
  t.Line("    table {} {{", table);
  t.Line("        key = {{ meta.phase : exact; meta.count_before : ternary; }}");
  std::string actions;
  for (const RegisterCase& c : cases) actions += action_prefix + c.action_suffix + "_act; ";
  t.Line("        actions = {{ {}NoAction; }}", actions);
  t.Line("        const default_action = NoAction();");
  t.Line("        size = {};", cases.size());
  t.Line("        const entries = {{");
  for (const RegisterCase& c : cases) {
    t.Line("            ({}, {}) : {}{}_act();", c.phase, c.count, action_prefix, c.action_suffix);
  }
  t.Line("        }}");
  t.Line("    }}");
}

// One table per pair register; each action runs one of its RegisterActions and stores the
// outputs in the values.
void WritePairTable(Text& t, const AggregationSwitchSpec& spec, uint32_t pair) {
  const std::string reg = PairRegister(pair);
  const std::string a = "hdr.values." + ValueField(2 * pair);
  const std::string b = "hdr.values." + ValueField(2 * pair + 1);
  const auto cases = RegisterCases(IsTofino1(spec));
  for (const RegisterCase& c : cases) {
    const std::string suffix = c.action_suffix;
    t.Line("    action {}_{}_act() {{", reg, suffix);
    if (suffix == "read_second") {
      t.Line("        {} = {}_read_second.execute(meta.register_index);", b, reg);
    } else if (IsTofino1(spec)) {
      t.Line("        {} = {}_{}.execute(meta.register_index);", a, reg, suffix);
    } else {
      t.Line("        {} = {}_{}.execute(meta.register_index, {});", a, reg, suffix, b);
    }
    t.Line("    }}");
  }
  WriteRegisterTable(t, reg + "_update", cases, reg + "_");
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
  t.Line("    // The register index, set * SLOTS + slot, in one action per slot set (one step, so the");
  t.Line("    // checks after it need not wait a stage).");
  t.Line("    action index_in_set0() {{");
  t.Line("        meta.register_index = hdr.agg.slot;");
  t.Line("    }}");
  t.Line("    action index_in_set1() {{");
  t.Line("        meta.register_index = hdr.agg.slot + SLOT_SET_OFFSET;");
  t.Line("    }}");
  t.Line("    table register_index_of_set {{");
  t.Line("        key = {{ hdr.agg.flags[0:0] : exact @name(\"slot_set\"); }}  // FLAG_SLOT_SET");
  t.Line("        actions = {{ index_in_set0; index_in_set1; }}");
  t.Line("        const default_action = index_in_set0();");
  t.Line("        size = 2;");
  t.Line("        const entries = {{");
  t.Line("            0 : index_in_set0();");
  t.Line("            1 : index_in_set1();");
  t.Line("        }}");
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
  if (ChecksHotKeys(spec)) {
    // A 32-bit compare with a constant, nested under the update's other checks, is more PHV
    // than one gateway reads, and p4c's range match takes at most 5 nibbles: the keys from
    // HOT_KEY_CAPACITY up are matched as the aligned power-of-two blocks that tile them.
    const std::vector<std::pair<uint64_t, uint64_t>> blocks = ColdKeyBlocks(spec);
    t.Line("    // A key at or above HOT_KEY_CAPACITY is cold: it goes to its server unchanged.");
    t.Line("    action mark_cold() {{");
    t.Line("        meta.cold = 1;");
    t.Line("    }}");
    t.Line("    table cold_key {{");
    t.Line("        key = {{ hdr.agg.key_offset : ternary; }}");
    t.Line("        actions = {{ mark_cold; NoAction; }}");
    t.Line("        const default_action = NoAction();");
    t.Line("        size = {};", blocks.size());
    t.Line("        const entries = {{");
    for (const auto& [value, mask] : blocks) {
      t.Line("            32w{:#010x} &&& 32w{:#010x} : mark_cold();", value, mask);
    }
    t.Line("        }}");
    t.Line("    }}");
    t.Blank();
  }
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
  t.Line("    // A completed slot (or a resent one) becomes a result from the switch. Called directly,");
  t.Line("    // never from a table, so its parameter has a direction. One operation per field: an");
  t.Line("    // accepted update has its reserved flags clear, so only the retransmission bit changes.");
  t.Line("    action make_result(in bit<1> retransmission) {{");
  if (spec.IsThc()) {
    t.Line("        // The packed indices give way to the lane sums: the frame grows.");
    t.Line("        hdr.thc.setInvalid();");
    t.Line("        hdr.ipv4.total_len = RESULT_IPV4_TOTAL_LEN;");
    t.Line("        hdr.udp.length = RESULT_UDP_LEN;");
  }
  if (IsTofino1(spec)) {
    t.Line("        hdr.agg.msg_type = MSG_HARVEST;  // MSG_RESULT once the harvest pass has run");
  } else {
    t.Line("        hdr.agg.msg_type = MSG_RESULT;");
  }
  t.Line("        hdr.agg.flags[1:1] = retransmission;");
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
    t.Line("    Register<bit<32>, bit<16>>({}) bitmap_set{};", spec.aggregator_slots, set);
    t.Line(
        "    RegisterAction<bit<32>, bit<16>, bit<32>>(bitmap_set{}) bitmap_set{}_test_and_set = "
        "{{",
        set, set);
    t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
    t.Line("            before = value;");
    t.Line("            value = value | meta.worker_bit;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<bit<32>, bit<16>, bit<32>>(bitmap_set{}) bitmap_set{}_clear = {{",
           set, set);
    t.Line("        void apply(inout bit<32> value) {{");
    t.Line("            value = value & ~meta.worker_bit;");
    t.Line("        }}");
    t.Line("    }};");
  }
  t.Blank();
  t.Line("    // Workers counted so far in the slot's round, modulo W (0: empty or complete).");
  t.Line("    Register<bit<32>, index_t>(REGISTER_ENTRIES) worker_count;");
  t.Line("    RegisterAction<bit<32>, index_t, bit<32>>(worker_count) worker_count_increment = {{");
  t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
  t.Line("            before = value;");
  t.Line("            if (value == LAST_WORKER_COUNT) {{");
  t.Line("                value = 0;");
  t.Line("            }} else {{");
  t.Line("                value = value + 1;");
  t.Line("            }}");
  t.Line("        }}");
  t.Line("    }};");
  t.Line("    RegisterAction<bit<32>, index_t, bit<32>>(worker_count) worker_count_read = {{");
  t.Line("        void apply(inout bit<32> value, out bit<32> before) {{");
  t.Line("            before = value;");
  t.Line("        }}");
  t.Line("    }};");
  t.Line("    action count_new() {{");
  t.Line("        meta.count_before = worker_count_increment.execute(meta.register_index);");
  t.Line("        meta.phase = PHASE_NEW;");
  t.Line("    }}");
  t.Line("    action count_duplicate() {{");
  t.Line("        meta.count_before = worker_count_read.execute(meta.register_index);");
  t.Line("        meta.phase = PHASE_DUPLICATE;");
  t.Line("    }}");
  t.Line("    // New or duplicate: the worker's bit in its set before this packet. A gateway cannot");
  t.Line("    // AND two fields (bitmap_before & worker_bit), so a ternary entry per worker tests the");
  t.Line("    // bit, in the counter's own stage.");
  t.Line("    table worker_count_update {{");
  t.Line("        key = {{ hdr.agg.worker_id : exact; meta.bitmap_before : ternary; }}");
  t.Line("        actions = {{ count_new; count_duplicate; NoAction; }}");
  t.Line("        const default_action = NoAction();");
  t.Line("        size = {};", 2 * spec.workers);
  t.Line("        const entries = {{");
  for (uint32_t w = 0; w < spec.workers; ++w) {
    const uint32_t bit = uint32_t{1} << w;
    t.Line("            ({}, {:#010x} &&& {:#010x}) : count_duplicate();", w, bit, bit);
    t.Line("            ({}, 0 &&& {:#010x}) : count_new();", w, bit);
  }
  t.Line("        }}");
  t.Line("    }}");
  t.Blank();
  if (spec.HasExponentRegister()) {
    // The register, its RegisterActions and the header field share one type, int<8>: the back
    // end rejects a cast between a RegisterAction's result and the field it is stored in.
    t.Line("    // The largest {} exponent announced in the round, of the header's type (int<8>).",
           spec.IsThc() ? "norm" : "block");
    t.Line("    Register<int<8>, index_t>(REGISTER_ENTRIES) max_exponent;");
    t.Line("    RegisterAction<int<8>, index_t, int<8>>(max_exponent) max_exponent_write = {{");
    t.Line("        void apply(inout int<8> value, out int<8> result) {{");
    t.Line("            value = hdr.agg.exponent;");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<int<8>, index_t, int<8>>(max_exponent) max_exponent_max = {{");
    t.Line("        void apply(inout int<8> value, out int<8> result) {{");
    t.Line("            if (hdr.agg.exponent > value) {{");
    t.Line("                value = hdr.agg.exponent;");
    t.Line("            }}");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    t.Line("    RegisterAction<int<8>, index_t, int<8>>(max_exponent) max_exponent_read = {{");
    t.Line("        void apply(inout int<8> value, out int<8> result) {{");
    t.Line("            result = value;");
    t.Line("        }}");
    t.Line("    }};");
    const auto cases = RegisterCases(false);  // the first pass carries the exponent
    for (const RegisterCase& c : cases) {
      t.Line("    action max_exponent_{}_act() {{", c.action_suffix);
      t.Line("        hdr.agg.exponent = max_exponent_{}.execute(meta.register_index);",
             c.action_suffix == std::string_view("add") ? "max" : c.action_suffix);
      t.Line("    }}");
    }
    // The table's actions are named for the case (write, add, read); "add" takes the max.
    WriteRegisterTable(t, "max_exponent_update", cases, "max_exponent_");
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
  for (uint32_t pair = 0; pair < Pairs(spec); ++pair) {
    WritePairRegister(t, spec, pair);
    WritePairTable(t, spec, pair);
  }
  t.Blank();
}

// The register index (set * SLOTS + slot) and, for a server, the owner shard: computed for every
// aggregation packet before anything reads them. The index comes from a table keyed on the slot
// set, in one step: as an assignment followed by a conditional add it took two stages, and on
// Tofino-1 every check after it in the control flow waited for the second (the back end's
// next-table ordering), which cost the stage the max-exponent register needs (docs/p4.md §3).
// The add stays apart from every register access: next to one it would make a keyless action
// carry the constant as action data beside the hash-addressed access, which the back end refuses.
void WriteIndexes(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("        register_index_of_set.apply();");
  if (IsServerMode(spec) && spec.server_shards > 1) {
    // (key / K) mod M for powers of two: bits log2(K) .. log2(K) + log2(M) - 1 of the key, one
    // slice copy instead of a shift and a mask (two operations on one field in one action).
    const uint32_t low = static_cast<uint32_t>(std::countr_zero(spec.values_per_packet));
    const uint32_t bits = static_cast<uint32_t>(std::countr_zero(spec.server_shards));
    t.Line("        // Owner shard: (key_offset / VALUES_PER_PACKET) % {} as a slice of the key.",
           spec.server_shards);
    t.Line("        meta.shard[{}:0] = hdr.agg.key_offset[{}:{}];", bits - 1, low + bits - 1, low);
  }
}

// Tofino-1's second pass of a result: the register tables read the second values (PHASE_HARVEST),
// then the result is routed as the first pass decided (the retransmission flag tells a resend).
// Its message type becomes MSG_RESULT in WriteCompletion, not here: a write of msg_type in this
// branch makes the back end place the chain's later test of msg_type, and check_worker with it,
// one stage later, and that stage is the one the max-exponent register needs (docs/p4.md §3).
void WriteHarvest(Text& t, const AggregationSwitchSpec& spec) {
  t.Line(
      "        }} else if (hdr.agg.msg_type == MSG_HARVEST && "
      "ig_intr_md.ingress_port == RECIRCULATION_PORT) {{");
  t.Line("            // Harvest pass of a result: the value tables read the second values.");
  t.Line("            meta.phase = PHASE_HARVEST;");
  if (IsServerMode(spec)) {
    t.Line("            meta.route = ROUTE_SERVER;");
    return;
  }
  t.Line("            if ((hdr.agg.flags & FLAG_RETRANSMISSION) != 0) {{");
  t.Line("                meta.route = ROUTE_WORKER;");
  t.Line("            }} else {{");
  t.Line("                meta.route = ROUTE_MULTICAST;");
  t.Line("            }}");
}

// An update: every check in its own `if` (a gateway reads at most 4 bytes of PHV), then the
// bitmaps and the counter, whose table sets the phase the register tables act on.
void WriteUpdate(Text& t, const AggregationSwitchSpec& spec) {
  t.Line("            check_worker.apply();");
  if (ChecksHotKeys(spec)) t.Line("            cold_key.apply();");
  const std::vector<std::string> checks = {
      "meta.accepted == 1", "hdr.ipv4.dst_addr == SWITCH_IP", "hdr.agg.slot < SLOTS",
      "(hdr.agg.flags & FLAGS_RESERVED) == 0", "hdr.agg.num_values <= VALUES_PER_PACKET"};
  std::string in = "            ";
  t.Line("{}// Anything else is dropped (meta.route stays ROUTE_DROP), as the model rejects it.",
         in);
  for (const std::string& check : checks) {
    t.Line("{}if ({}) {{", in, check);
    in += "    ";
  }
  if (ChecksHotKeys(spec)) {
    t.Line("{}if (meta.cold == 1) {{", in);
    t.Line("{}    // A cold key: forwarded unchanged to the server that owns it.", in);
    t.Line("{}    meta.route = ROUTE_SERVER;", in);
    t.Line("{}}} else {{", in);
    in += "    ";
  }
  if (spec.IsThc()) {
    t.Line("{}// THC: look the indices up into the lane words the registers add.", in);
    t.Line("{}hdr.values.setValid();", in);
    for (uint32_t byte = 0; byte < spec.UpdateValueBytes(); ++byte) {
      t.Line("{}{}.apply();", in, ThcLookupTable(byte));
    }
  }
  t.Line("{}if ((hdr.agg.flags & FLAG_SLOT_SET) != 0) {{", in);
  t.Line("{}    meta.bitmap_before = bitmap_set1_test_and_set.execute(hdr.agg.slot);", in);
  t.Line("{}    bitmap_set0_clear.execute(hdr.agg.slot);", in);
  t.Line("{}}} else {{", in);
  t.Line("{}    meta.bitmap_before = bitmap_set0_test_and_set.execute(hdr.agg.slot);", in);
  t.Line("{}    bitmap_set1_clear.execute(hdr.agg.slot);", in);
  t.Line("{}}}", in);
  t.Line("{}worker_count_update.apply();", in);
  const size_t depth = checks.size() + (ChecksHotKeys(spec) ? 1 : 0);
  for (size_t level = 0; level < depth; ++level) {
    in.resize(in.size() - 4);
    t.Line("{}}}", in);
  }
}

// A completed slot (the counter wrapped) or a duplicate into a complete slot (counter 0) becomes
// a result. Tofino-1 sends it to the harvest pass; Tofino-2 routes it at once.
void WriteCompletion(Text& t, const AggregationSwitchSpec& spec) {
  const bool tofino1 = IsTofino1(spec);
  const bool server = IsServerMode(spec);
  t.Line("        // A completed slot goes to every worker (or the owner shard); a duplicate into a");
  t.Line("        // complete slot is answered (the worker lost the result).");
  t.Line("        if (meta.phase == PHASE_NEW) {{");
  t.Line("            if (meta.count_before == LAST_WORKER_COUNT) {{");
  t.Line("                make_result(0);");
  if (server) t.Line("                hdr.agg.worker_id = ALL_WORKERS;");
  t.Line("                meta.route = {};",
         tofino1 ? "ROUTE_HARVEST" : (server ? "ROUTE_SERVER" : "ROUTE_MULTICAST"));
  t.Line("            }}");
  t.Line("        }} else if (meta.phase == PHASE_DUPLICATE) {{");
  t.Line("            if (meta.count_before == 0) {{");
  t.Line("                make_result(1);");
  t.Line("                meta.route = {};",
         tofino1 ? "ROUTE_HARVEST" : (server ? "ROUTE_SERVER" : "ROUTE_WORKER"));
  t.Line("            }}");
  if (tofino1) {
    t.Line("        }} else if (meta.phase == PHASE_HARVEST) {{");
    t.Line("            hdr.agg.msg_type = MSG_RESULT;");
  }
  t.Line("        }}");
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
  WriteIndexes(t, spec);
  t.Line("        if (!hdr.ipv4.isValid()) {{");
  t.Line("            meta.route = ROUTE_DROP;");
  t.Line("        }} else if (!hdr.agg.isValid()) {{");
  t.Line("            meta.route = ROUTE_FORWARD;");
  if (IsTofino1(spec)) WriteHarvest(t, spec);
  t.Line("        }} else if (hdr.agg.msg_type != MSG_UPDATE) {{");
  t.Line("            meta.route = ROUTE_FORWARD;  // e.g. a server's answer to a worker");
  t.Line("        }} else {{");
  WriteUpdate(t, spec);
  t.Line("        }}");
  t.Blank();
  t.Line("        // The registers of the aggregation, one table each: the phase and the counter's");
  t.Line("        // old value select write, add, read (or the harvest's read); no match, no access.");
  if (spec.HasExponentRegister()) t.Line("        max_exponent_update.apply();");
  for (uint32_t pair = 0; pair < Pairs(spec); ++pair) {
    t.Line("        {}_update.apply();", PairRegister(pair));
  }
  t.Blank();
  WriteCompletion(t, spec);
  t.Blank();
  WriteIngressRouting(t, spec);
  t.Line("    }}");
  t.Line("}}");
  t.Blank();
}

}  // namespace hfsim::p4_writer
