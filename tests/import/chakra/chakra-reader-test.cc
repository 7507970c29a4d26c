// Chakra traces written by hand (tests/import/chakra/et-builder.h), read and run: times worked out by
// hand, and every kind of bad input refused with the file, the node and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/import/chakra/et-file.h"
#include "sim/packet/packet-engine.h"
#include "tests/import/chakra/chakra-test-util.h"
#include "tests/import/chakra/et-builder.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::Compute;
using test::Dimension;
using test::EtBytes;
using test::PointToPoint;
using test::TraceDir;
using test::WriteBytes;

const nlohmann::json kSwitch2 = nlohmann::json::array({Dimension("Switch", 2, 50, 500)});

// Rank 0 computes 3 us, then sends 1 MB to rank 1 (tag 7); rank 1 receives it, then computes
// 2 us. The send takes the Switch's 2 hops (2 x 500 ns) plus 10^6 B / 50 GB/s = 20,000 ns, so
// the job ends at 3,000 + 21,000 + 2,000 = 26,000 ns; the flow engine agrees (one flow, alone).
TEST(ChakraReader, SendAndReceiveAreTimedByHand) {
  TraceDir dir("send-recv");
  WriteBytes(dir.Rank(0), EtBytes({Compute(1, 3), PointToPoint(2, true, 1, 7, 1000000, {1})}));
  WriteBytes(dir.Rank(1), EtBytes({PointToPoint(1, false, 0, 7, 1000000), Compute(2, 2, {1})}));
  const Scenario scenario = test::LoadChakraOrDie(test::Inputs(dir.Prefix()), kSwitch2);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 26000.0);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, 26000.0, 1e-6);
}

// Sends do not wait for their receives (ASTRA-sim's semantics): rank 0 sends at once and the
// message is there at 21,000 ns; rank 1 computes 50 us first, so its receive ends when issued,
// at 50,000 ns, and the job at 52,000 ns (a send that waited for its receive would end at
// 50,000 + 21,000 + 2,000). Both engines agree.
TEST(ChakraReader, SendsDoNotWaitForTheirReceives) {
  TraceDir dir("eager");
  WriteBytes(dir.Rank(0), EtBytes({PointToPoint(1, true, 1, 7, 1000000)}));
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 50), PointToPoint(2, false, 0, 7, 1000000, {1}),
                                   Compute(3, 2, {2})}));
  const Scenario scenario = test::LoadChakraOrDie(test::Inputs(dir.Prefix()), kSwitch2);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 52000.0);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, 52000.0, 1e-6);
  // Packets arrive well before the receive too (headers and acknowledgements cost a little):
  // the receive still ends when issued, not 21 us after it.
  const double packet = PacketEngine().Run(scenario).iteration.total_ns;
  EXPECT_GE(packet, 52000.0);
  EXPECT_LT(packet, 53000.0);
}

// Each of three ranks sends to the next, then receives from the one before, then computes
// 1 us: the pattern of a ring collective, which could never start if each send waited for its
// receive. All three messages travel at once on links of their own (2 x 500 ns + 20,000 ns),
// so every rank ends at 22,000 ns.
TEST(ChakraReader, ARingOfSendsThenReceivesRuns) {
  TraceDir dir("ring");
  for (int r = 0; r < 3; ++r) {
    WriteBytes(dir.Rank(r),
               EtBytes({PointToPoint(1, true, (r + 1) % 3, 0, 1000000),
                        PointToPoint(2, false, (r + 2) % 3, 0, 1000000, {1}), Compute(3, 1, {2})}));
  }
  const Scenario scenario = test::LoadChakraOrDie(
      test::Inputs(dir.Prefix()), nlohmann::json::array({Dimension("Switch", 3, 50, 500)}));
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 22000.0);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, 22000.0, 1e-6);
}

// ASTRA-sim replays duration_micros x 1000 ns, and 1 ns for 0 (Workload::issue_replay). A host
// operation (is_cpu_op) runs beside the accelerator's compute: 5 us on the host and 3 us on the
// accelerator end at 5 us, and only the 3 us count as compute.
TEST(ChakraReader, DurationsAsAstraSimReplaysThem) {
  TraceDir dir("durations");
  test::EtNodeProto host = Compute(2, 5);
  auto* cpu = host.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(true);
  WriteBytes(dir.Rank(0), EtBytes({Compute(1, 3), host}));
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 0)}));
  const Scenario scenario = test::LoadChakraOrDie(test::Inputs(dir.Prefix()), kSwitch2);
  const Report report = AnalyticalEngine().Run(scenario);
  EXPECT_DOUBLE_EQ(report.iteration.total_ns, 5000.0);
  EXPECT_DOUBLE_EQ(report.iteration.ComputeNs(), 3000.0);
  // Host work after the main stream is no gradient communication (it was counted as such).
  EXPECT_DOUBLE_EQ(report.iteration.weight_grad_comm_exposed_ns, 0.0);
  EXPECT_DOUBLE_EQ(FlowEngine().Run(scenario).iteration.weight_grad_comm_exposed_ns, 0.0);
}

// An all-gather's comm_size is each NPU's input in Chakra (ASTRA-sim's convention) and the
// gathered buffer in hfsim: 1 MiB from each of 4 NPUs is hfsim's 4 MiB all-gather.
TEST(ChakraReader, AllGatherSizeIsEachNpusInput) {
  TraceDir dir("all-gather");
  for (int r = 0; r < 4; ++r) {
    WriteBytes(dir.Rank(r), EtBytes({test::Collective(r, 2, 1 << 20)}));  // ids differ per rank
  }
  auto imported = ImportChakra(test::Inputs(dir.Prefix()), {4});
  ASSERT_TRUE(imported) << imported.Error().ToString();
  const nlohmann::json& programs = imported.Value().graph["programs"];
  ASSERT_EQ(programs.size(), 1u) << "ranks differing only in node ids share one program";
  EXPECT_EQ(programs[0]["ranks"], nlohmann::json({0, 1, 2, 3}));
  EXPECT_EQ(programs[0]["nodes"][0]["size_bytes"], 4u << 20);
  EXPECT_EQ(programs[0]["nodes"][0]["kind"], "all_gather");
  const nlohmann::json collective = test::CollectiveScenario(
      nlohmann::json::array({Dimension("Ring", 4, 100, 100)}), "all_gather", 4u << 20);
  auto expected = ParseScenario(collective);
  ASSERT_TRUE(expected) << expected.Error().ToString();
  const Scenario traced = test::LoadChakraOrDie(
      test::Inputs(dir.Prefix()), nlohmann::json::array({Dimension("Ring", 4, 100, 100)}));
  EXPECT_EQ(AnalyticalEngine().Run(traced).iteration.total_ns,
            AnalyticalEngine().Run(expected.Value()).iteration.total_ns);
}

// Bad input, each refused with the place (file, node) and the problem.
struct BadCase {
  const char* name;
  std::string rank0;  // rank 0's file; rank 1's is always fine
  const char* where;  // expected in UserError::where, after the file name
  const char* what;   // expected in the message
};

std::string Truncated() {
  std::string bytes = EtBytes({Compute(1, 3), Compute(2, 3, {1})});
  return bytes.substr(0, bytes.size() - 3);
}

std::string WithRecord(const std::string& record) {
  std::string bytes = EtBytes({});
  return bytes + record;
}

test::EtNodeProto Typed(int type) {
  test::EtNodeProto node = Compute(4, 1);
  node.set_type(static_cast<hfsim_chakra::NodeType>(type));
  return node;
}

test::EtNodeProto FloatSize() {
  test::EtNodeProto node;
  node.set_id(3);
  node.set_type(hfsim_chakra::COMM_COLL_NODE);
  test::IntAttr(node, "comm_type", 0);
  auto* size = node.add_attr();
  size->set_name("comm_size");
  size->set_double_val(1024.0);
  return node;
}

// A Node record written byte by byte, whatever the schema's declared widths: id 4 (field 1)
// and a type (field 3) of 2^32 + 4 as a 5-byte varint, which protobuf's generated reader of
// Chakra's schema reads as 4, COMP_NODE (it was run as compute).
std::string TypeBeyond32Bits() {
  const std::string node("\x08\x04\x18\x84\x80\x80\x80\x10", 8);
  return std::string(1, static_cast<char>(node.size())) + node;
}

// An attribute of a field Chakra declares 32 bits wide (or a bool) holding more.
test::EtNodeProto Wide(const char* name, void (*set)(hfsim_chakra::AttributeProto&)) {
  test::EtNodeProto node = Compute(4, 1);
  auto* attr = node.add_attr();
  attr->set_name(name);
  set(*attr);
  return node;
}

std::vector<BadCase> BadCases() {
  test::EtNodeProto own_source = PointToPoint(5, true, 1, 0, 100);
  test::IntAttr(own_source, "comm_src", 1);
  return {
      {"truncated", Truncated(), ": record 2 (byte", "truncated"},
      {"bad_varint", WithRecord("\xff\xff\xff\xff\xff\xff"), ": record 1 (byte",
       "not a valid varint"},
      {"zero_length", WithRecord(std::string(1, '\0')), ": record 1", "a record of length 0"},
      {"not_a_node", WithRecord(std::string("\x03\xff\xff\xff", 4)), ": record 1",
       "not a valid Node message"},
      {"missing_dependency", EtBytes({Compute(1, 1), Compute(2, 1, {9})}), ": node 2",
       "depends on node 9 (data_deps), which is not in the file"},
      {"cycle", EtBytes({Compute(1, 1, {3}), Compute(2, 1, {1}), Compute(3, 1, {2})}), ": node ",
       "dependency cycle"},
      {"duplicate_id", EtBytes({Compute(1, 1), Compute(1, 2)}), ": node 1",
       "a second node has this id"},
      {"id_beyond_int64", EtBytes({Compute(uint64_t{1} << 63, 1)}), ": node 9223372036854775808",
       "accepted: ids up to 2^63 - 1"},
      {"unknown_node_type", EtBytes({Typed(12)}), ": node 4",
       "node type 12 is not a Chakra NodeType"},
      {"node_type_beyond_32_bits", WithRecord(TypeBeyond32Bits()), ": node 4",
       "node type 4294967300 is beyond NodeType's 32 bits"},
      {"int32_beyond_32_bits",
       EtBytes({Wide("num_ops",
                     [](hfsim_chakra::AttributeProto& a) { a.set_int32_val((int64_t{1} << 32) + 5); })}),
       ": node 4", "holds int32_val 4294967301, beyond the field's 32 bits"},
      {"uint32_beyond_32_bits",
       EtBytes({Wide("num_ops",
                     [](hfsim_chakra::AttributeProto& a) { a.set_uint32_val(uint64_t{1} << 40); })}),
       ": node 4", "holds uint32_val 1099511627776, beyond the field's 32 bits"},
      {"sint32_beyond_32_bits",
       EtBytes({Wide("num_ops",
                     [](hfsim_chakra::AttributeProto& a) { a.set_sint32_val(-(int64_t{1} << 33)); })}),
       ": node 4", "holds sint32_val -8589934592, beyond the field's 32 bits"},
      {"bool_beyond_1",
       EtBytes({Wide("is_cpu_op", [](hfsim_chakra::AttributeProto& a) { a.set_bool_val(2); })}),
       ": node 4", "holds a bool varint of 2"},
      {"remote_memory", EtBytes({Typed(2)}), ": node 4", "MEM_LOAD_NODE (remote memory)"},
      {"unsupported_collective", EtBytes({test::Collective(3, 1, 1024)}), ": node 3",
       "comm_type 1 (REDUCE) is not modelled"},
      {"unknown_collective", EtBytes({test::Collective(3, 42, 1024)}), ": node 3",
       "comm_type 42 (an unknown type)"},
      {"float_size", EtBytes({FloatSize()}), ": node 3", "ASTRA-sim converts no floating-point"},
      {"peer_outside", EtBytes({PointToPoint(5, true, 7, 0, 100)}), ": node 5",
       "comm_dst is 7: the fabric has 2 NPUs"},
      {"own_end_wrong", EtBytes({own_source}), ": node 5", "comm_src is 1 in rank 0's file"},
      {"no_tag", EtBytes({[] {
         test::EtNodeProto node = PointToPoint(5, true, 1, 0, 100);
         node.mutable_attr()->erase(node.mutable_attr()->begin() + 1);  // comm_tag
         return node;
       }()}),
       ": node 5", "has no comm_tag attribute"},
      {"unknown_group", EtBytes({[] {
         test::EtNodeProto node = test::Collective(3, 0, 1024);
         auto* pg = node.add_attr();
         pg->set_name("pg_name");
         pg->set_string_val("5");
         return node;
       }()}),
       ": node 3", "pg_name \"5\" names no communicator group"},
      {"short_involved_dim", EtBytes({[] {
         test::EtNodeProto node = test::Collective(3, 0, 1024);
         auto* dims = node.add_attr();
         dims->set_name("involved_dim");
         dims->mutable_bool_list();  // empty
         return node;
       }()}),
       ": node 3", "involved_dim has 0 entries but the fabric has 1 dimensions"},
  };
}

class ChakraBadInput : public testing::TestWithParam<BadCase> {};

TEST_P(ChakraBadInput, IsRefusedNamingTheFileAndTheNode) {
  const BadCase& bad = GetParam();
  TraceDir dir(std::string("bad-") + bad.name);
  WriteBytes(dir.Rank(0), bad.rank0);
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 1)}));
  auto imported = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(imported) << "accepted " << bad.name;
  const UserError& error = imported.Error();
  EXPECT_EQ(error.where.rfind(dir.Rank(0).string(), 0), 0u) << error.ToString();
  EXPECT_NE(error.where.find(bad.where), std::string::npos) << error.ToString();
  EXPECT_NE(error.message.find(bad.what), std::string::npos) << error.ToString();
}

INSTANTIATE_TEST_SUITE_P(Cases, ChakraBadInput, testing::ValuesIn(BadCases()),
                         [](const testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ChakraReader, RankFilesMustMatchTheFabric) {
  TraceDir dir("rank-files");
  for (int r = 0; r < 3; ++r) WriteBytes(dir.Rank(r), EtBytes({Compute(1, 1)}));
  auto missing = ImportChakra(test::Inputs(dir.Prefix()), {4});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.Error().where, dir.Rank(3).string());
  EXPECT_NE(missing.Error().message.find("no such file: the fabric has 4 NPUs"), std::string::npos);
  auto extra = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(extra);
  EXPECT_EQ(extra.Error().where, dir.Rank(2).string());
  EXPECT_NE(extra.Error().message.find("the trace has a rank 2 but the fabric has only 2 NPUs"),
            std::string::npos);
  // Not only the next rank: any rank file beyond the fabric (rank 7 here, with 3 to 6 absent)
  // was ignored; names with a leading zero are no rank's (ASTRA-sim opens PREFIX.RANK.et).
  std::filesystem::remove(dir.Rank(2));
  WriteBytes(dir.Path("trace.07.et"), EtBytes({Compute(1, 1)}));
  ASSERT_TRUE(ImportChakra(test::Inputs(dir.Prefix()), {2}))
      << "trace.07.et is no rank file";
  WriteBytes(dir.Rank(7), EtBytes({Compute(1, 1)}));
  auto far = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(far);
  EXPECT_EQ(far.Error().where, dir.Rank(7).string());
  EXPECT_NE(far.Error().message.find("the trace has a rank 7 but the fabric has only 2 NPUs"),
            std::string::npos)
      << far.Error().ToString();
  // A rank "file" that is a directory is named as one (it was "no such file").
  std::filesystem::remove(dir.Rank(7));
  std::filesystem::remove(dir.Rank(1));
  std::filesystem::create_directories(dir.Rank(1));
  auto directory = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.Error().where, dir.Rank(1).string());
  EXPECT_NE(directory.Error().message.find("is a directory (rank"), std::string::npos)
      << directory.Error().ToString();
}

// hfsim's exporter writes hfsim_sends "eager" or "rendezvous" in every file; any other value
// passed as eager sends, and only rank 0's file was read.
TEST(ChakraReader, HfsimSendsIsCheckedInEveryFile) {
  TraceDir dir("sends");
  auto with_sends = [](const std::string& sends) {
    std::string out;
    hfsim_chakra::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    auto* attr = metadata.add_attr();
    attr->set_name("hfsim_sends");
    attr->set_string_val(sends);
    test::AppendMessage(metadata, out);
    test::AppendMessage(Compute(1, 1), out);
    return out;
  };
  WriteBytes(dir.Rank(0), with_sends("lazy"));
  WriteBytes(dir.Rank(1), with_sends("rendezvous"));
  auto unknown = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.Error().where, dir.Rank(0).string() + ": the metadata record (byte 0)");
  EXPECT_NE(unknown.Error().message.find("attribute \"hfsim_sends\" is \"lazy\"; accepted"),
            std::string::npos)
      << unknown.Error().ToString();
  WriteBytes(dir.Rank(0), with_sends("rendezvous"));
  auto both = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_TRUE(both) << both.Error().ToString();
  EXPECT_EQ(both.Value().graph["sends"], "rendezvous");
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 1)}));  // no hfsim_sends: eager
  auto mixed = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.Error().where, dir.Rank(1).string());
  EXPECT_NE(mixed.Error().message.find("hfsim_sends is none (eager sends) but rank 0's file's is "
                                       "\"rendezvous\""),
            std::string::npos)
      << mixed.Error().ToString();
}

TEST(ChakraReader, CommunicatorGroupsAreChecked) {
  TraceDir dir("groups");
  for (int r = 0; r < 2; ++r) WriteBytes(dir.Rank(r), EtBytes({Compute(1, 1)}));
  const std::pair<const char*, const char*> cases[] = {
      {R"({"1": [0, 9]})", "rank 9 does not exist: the fabric has 2 NPUs"},
      {R"({"0": [0, 1]})", "\"0\" is the default group"},
      {R"({"x": [0]})", "a group id, an integer from 1"},
      {R"({"1": [0, 0]})", "rank 0 is listed twice"},
      {R"({"1": []})", "a non-empty list of ranks"},
      {R"([1, 2])", "expected an object"},
      // ASTRA-sim's std::stoi reads both keys as group 1 (this was kept silently, and a node
      // naming the lost group was blamed).
      {R"({"1": [0], "01": [1]})", "group 1 is also key \"01\""},
  };
  for (const auto& [text, what] : cases) {
    WriteBytes(dir.Path("groups.json"), text);
    const ChakraInputs inputs = test::Inputs(dir.Prefix(), dir.Path("groups.json").string());
    auto imported = ImportChakra(inputs, {2});
    ASSERT_FALSE(imported) << text;
    EXPECT_EQ(imported.Error().where.rfind(dir.Path("groups.json").string(), 0), 0u)
        << imported.Error().ToString();
    EXPECT_NE(imported.Error().message.find(what), std::string::npos)
        << imported.Error().ToString();
  }
}

// A group the node names must hold the rank; a family of disjoint groups is one communicator,
// so ranks in like groups share a program.
TEST(ChakraReader, GroupsNameTheirCommunicator) {
  TraceDir dir("group-use");
  WriteBytes(dir.Path("groups.json"), R"({"1": [0, 1], "2": [2, 3]})");
  auto in_group = [](uint64_t id, const char* pg) {
    test::EtNodeProto node = test::Collective(id, 0, 1 << 20);
    auto* name = node.add_attr();
    name->set_name("pg_name");
    name->set_string_val(pg);
    return node;
  };
  for (int r = 0; r < 4; ++r) WriteBytes(dir.Rank(r), EtBytes({in_group(r, r < 2 ? "1" : "2")}));
  const ChakraInputs inputs = test::Inputs(dir.Prefix(), dir.Path("groups.json").string());
  auto imported = ImportChakra(inputs, {4});
  ASSERT_TRUE(imported) << imported.Error().ToString();
  EXPECT_EQ(imported.Value().graph["programs"].size(), 1u);
  EXPECT_EQ(imported.Value().graph["communicators"][0]["groups"], nlohmann::json({{0, 1}, {2, 3}}));
  // Rank 3 naming group 1, which it is not in.
  WriteBytes(dir.Rank(3), EtBytes({in_group(3, "1")}));
  auto outside = ImportChakra(inputs, {4});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.Error().where, dir.Rank(3).string() + ": node 3");
  EXPECT_NE(outside.Error().message.find("names a group that does not hold rank 3"),
            std::string::npos);
}

// A custom implementation in place of a replicated rank's all-reduce: every rank runs rank 0's
// trace, each at its own position of the implementation (a ring over 2 ranks: send 1 MB to
// the other position, then receive from it; 2 x 500 ns + 20,000 ns each way, at once).
TEST(ChakraReader, ReplicatedTraceWithACustomImplementation) {
  TraceDir dir("replicate-custom");
  WriteBytes(dir.Rank(0), EtBytes({test::Collective(1, 0, 1 << 20)}));
  for (int position = 0; position < 2; ++position) {
    WriteBytes(dir.Path("ring." + std::to_string(position) + ".et"),
               EtBytes({PointToPoint(0, true, 1 - position, 0, 1000000),
                        PointToPoint(1, false, 1 - position, 0, 1000000, {0})}));
  }
  ChakraInputs inputs = test::Inputs(dir.Prefix());
  inputs.replicate = true;
  inputs.custom["all_reduce"] = dir.Path("ring").string();
  const Scenario scenario = test::LoadChakraOrDie(inputs, kSwitch2);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 21000.0);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, 21000.0, 1e-6);
}

// Found by fuzz_chakra: a string that is not UTF-8 (here a node's name, the byte 0xFF) makes
// the record invalid, as protobuf reads proto3 strings; protobuf's own log of it used to go to
// standard error beside hfsim's message. Now only hfsim's message says it.
TEST(ChakraReader, AStringThatIsNotUtf8IsRefusedQuietly) {
  TraceDir dir("utf8");
  WriteBytes(dir.Rank(0), test::EtBytes({}) + std::string("\x03\x12\x01\xff", 4));
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 1)}));
  testing::internal::CaptureStderr();
  auto imported = ImportChakra(test::Inputs(dir.Prefix()), {2});
  const std::string logged = testing::internal::GetCapturedStderr();
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.Error().where, dir.Rank(0).string() + ": record 1 (byte 8, the first node)");
  EXPECT_NE(imported.Error().message.find("a string that is not UTF-8"), std::string::npos);
  EXPECT_EQ(logged, "");
}

// A record that claims more than the limit (64 MiB) is refused by its length before its bytes
// are read: the file used to be read whole first (up to 4 GiB), so a 2 GiB claim cost 2 GiB of
// memory before the refusal. Here a sparse file of 300 MiB whose first record claims 256 MiB:
// at most a block (1 MiB) beyond the length is read, and the refusal names the length.
TEST(ChakraReader, ARecordTooLargeIsRefusedBeforeItIsRead) {
  TraceDir dir("huge-record");
  {
    std::ofstream file(dir.Rank(0), std::ios::binary);
    file << std::string("\x80\x80\x80\x80\x01", 5);  // a varint of 2^28 = 256 MiB
  }
  std::filesystem::resize_file(dir.Rank(0), uint64_t{300} << 20);
  std::string data;
  ASSERT_FALSE(ReadEtBytes(dir.Rank(0).string(), data).has_value());
  EXPECT_LE(data.size(), uint64_t{1} << 20) << "read past a length beyond the limit";
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 1)}));
  auto imported = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.Error().message, "a record of 268435456 bytes; accepted: at most 67108864 bytes");
  // A length within the limit but beyond the file's end is still read to the end and refused
  // as truncated, with what is left.
  WriteBytes(dir.Rank(0), std::string("\x80\x80\x80\x10", 4) + "abc");
  imported = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(imported);
  EXPECT_NE(imported.Error().message.find("the record says 33554432 bytes but the file has only 3 "
                                          "left (truncated)"),
            std::string::npos)
      << imported.Error().message;
}

// A send and its receive pair by their order in the two programs, not by when their streams
// issue them: rank 1's second receive (10,000 B, no dependency) is issued at once, before its
// first (1 MB, after 10 us of compute), yet it pairs with rank 0's second send. The 1 MB send
// arrives at 21,000 ns (2 x 500 + 20,000), the second then leaves (stream 1 is busy until the
// first has arrived) and arrives at 21,000 + 1,000 + 200 = 22,200 ns. Both engines agree.
TEST(ChakraReader, SendsPairWithReceivesInProgramOrder) {
  TraceDir dir("pairing");
  WriteBytes(dir.Rank(0), EtBytes({PointToPoint(1, true, 1, 0, 1000000),
                                   PointToPoint(2, true, 1, 0, 10000, {1})}));
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 10), PointToPoint(2, false, 0, 0, 1000000, {1}),
                                   PointToPoint(3, false, 0, 0, 10000)}));
  const Scenario scenario = test::LoadChakraOrDie(test::Inputs(dir.Prefix()), kSwitch2);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 22200.0);
  EXPECT_NEAR(FlowEngine().Run(scenario).iteration.total_ns, 22200.0, 1e-6);
}

// Ranks naming groups of one family share a program only if their groups are as large: an
// all-gather's hfsim size is comm_size times the group's (3 x 1000 B in group 1, 2 x 1000 B in
// group 2); one program for all would give ranks 3 and 4 the wrong size.
TEST(ChakraReader, AllGathersInGroupsOfOtherSizesKeepTheirSizes) {
  TraceDir dir("uneven-groups");
  WriteBytes(dir.Path("groups.json"), R"({"1": [0, 1, 2], "2": [3, 4]})");
  for (int r = 0; r < 5; ++r) {
    test::EtNodeProto node = test::Collective(1, 2, 1000);
    auto* pg = node.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val(r < 3 ? "1" : "2");
    WriteBytes(dir.Rank(r), EtBytes({node}));
  }
  auto imported = ImportChakra(test::Inputs(dir.Prefix(), dir.Path("groups.json").string()), {5});
  ASSERT_TRUE(imported) << imported.Error().ToString();
  const nlohmann::json& programs = imported.Value().graph["programs"];
  ASSERT_EQ(programs.size(), 2u);
  EXPECT_EQ(programs[0]["ranks"], nlohmann::json({0, 1, 2}));
  EXPECT_EQ(programs[0]["nodes"][0]["size_bytes"], 3000);
  EXPECT_EQ(programs[1]["ranks"], nlohmann::json({3, 4}));
  EXPECT_EQ(programs[1]["nodes"][0]["size_bytes"], 2000);
  // Replicated, rank 0's trace would run in both groups: refused, naming the groups.
  ChakraInputs replicated = test::Inputs(dir.Prefix(), dir.Path("groups.json").string());
  replicated.replicate = true;
  auto refused = ImportChakra(replicated, {5});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.Error().message.find("group 1 has 3 ranks and group 2 has 2"),
            std::string::npos)
      << refused.Error().ToString();
}

// An all-gather's gathered size is checked before it is multiplied: 2^44 + 1 bytes from each of
// 2^20 NPUs wrapped around to 2^20 bytes (a 1 MiB all-gather, accepted) before.
TEST(ChakraReader, AGatheredSizeBeyondTheLimitIsRefusedNotWrapped) {
  TraceDir dir("gather-wrap");
  WriteBytes(dir.Rank(0), EtBytes({test::Collective(1, 2, (int64_t{1} << 44) + 1)}));
  ChakraInputs inputs = test::Inputs(dir.Prefix());
  inputs.replicate = true;
  auto imported = ImportChakra(inputs, {1024, 1024});
  ASSERT_FALSE(imported);
  EXPECT_NE(imported.Error().message.find("the gathered buffer is 17592186044417 bytes x 1048576 "
                                          "NPUs; accepted: at most 2^50 bytes"),
            std::string::npos)
      << imported.Error().ToString();
}

// Groups that overlap so much that they need more families than a graph has communicators are
// refused at once (each family used to cost a flag per rank of the fabric).
TEST(ChakraReader, TooManyFamiliesOfGroupsAreRefused) {
  TraceDir dir("families");
  nlohmann::json groups = nlohmann::json::object();
  for (int id = 1; id <= 1025; ++id) groups[std::to_string(id)] = {0, id};
  WriteBytes(dir.Path("groups.json"), groups.dump());
  for (int r = 0; r < 2; ++r) WriteBytes(dir.Rank(r), EtBytes({Compute(1, 1)}));
  auto imported =
      ImportChakra(test::Inputs(dir.Prefix(), dir.Path("groups.json").string()), {2048});
  ASSERT_FALSE(imported);
  EXPECT_NE(imported.Error().message.find("more than 1024 families of disjoint groups"),
            std::string::npos)
      << imported.Error().ToString();
}

// ctrl_deps count as ASTRA-sim's feeder counts them; --chakra-legacy follows data_deps only.
TEST(ChakraReader, LegacyFollowsDataDependenciesOnly) {
  TraceDir dir("legacy");
  test::EtNodeProto node = Compute(2, 4);
  node.add_ctrl_deps(77);  // a caller id, as Chakra's first PyTorch converter wrote them
  WriteBytes(dir.Rank(0), EtBytes({Compute(1, 3), node}));
  WriteBytes(dir.Rank(1), EtBytes({Compute(1, 1)}));
  auto strict = ImportChakra(test::Inputs(dir.Prefix()), {2});
  ASSERT_FALSE(strict);
  EXPECT_NE(strict.Error().message.find("depends on node 77 (ctrl_deps)"), std::string::npos);
  EXPECT_NE(strict.Error().message.find("--chakra-legacy"), std::string::npos);
  ChakraInputs legacy = test::Inputs(dir.Prefix());
  legacy.legacy = true;
  const Scenario scenario = test::LoadChakraOrDie(legacy, kSwitch2);
  EXPECT_DOUBLE_EQ(AnalyticalEngine().Run(scenario).iteration.total_ns, 7000.0);
}

}  // namespace
}  // namespace hfsim
