// The scenario loader: valid files load with defaults filled and round-trip through their echo;
// every class of bad input is refused with the JSON path, the value and what is accepted.
#include <filesystem>

#include <gtest/gtest.h>

#include "sim/scenario/scenario-parser.h"
#include "tests/scenario/scenario-test-util.h"

namespace hfsim {
namespace {

using test::BaseTrainingScenario;
using test::ParseOrDie;

TEST(ScenarioParser, ShippedConfigsLoadAndRoundTrip) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(HFSIM_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".json") continue;
    auto scenario = LoadScenarioFile(entry.path().string());
    ASSERT_TRUE(scenario) << scenario.Error().ToString();
    // The echo is a complete scenario: parsing it gives the same echo again.
    const nlohmann::json echo = ScenarioToJson(scenario.Value());
    auto again = ParseScenario(echo);
    ASSERT_TRUE(again) << entry.path() << ": " << again.Error().ToString();
    EXPECT_EQ(ScenarioToJson(again.Value()), echo) << entry.path();
    ++loaded;
  }
  EXPECT_GE(loaded, 4);
}

TEST(ScenarioParser, DefaultsAreFilledAndEchoed) {
  const Scenario scenario = ParseOrDie(BaseTrainingScenario());
  EXPECT_EQ(scenario.seed, 1u);
  EXPECT_EQ(scenario.engine, EngineKind::kAnalytical);
  EXPECT_EQ(scenario.communication.chunks, 1u);
  EXPECT_EQ(scenario.training.sequence_length_tokens, 1024u);  // GPT-2's context
  // Tensor 4 takes the leading dimension (Ring 4), data the rest.
  EXPECT_EQ(scenario.training.tensor_dimensions, std::vector<uint32_t>({0}));
  EXPECT_EQ(scenario.training.data_dimensions, std::vector<uint32_t>({1}));
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(echo["communication"]["algorithms"]["all_reduce"], nlohmann::json({"ring", "ring"}));
  EXPECT_EQ(echo["npu"]["peak_TFLOPS"], 312.0);
  EXPECT_EQ(echo["workload"]["training"]["overlap"], "none");
  // 1 TFLOP/s = 1000 FLOP/ns.
  EXPECT_DOUBLE_EQ(scenario.training.config.peak_flops_per_ns, 312e3);
}

TEST(ScenarioParser, FullyConnectedDefaultsToDirect) {
  nlohmann::json doc = BaseTrainingScenario();
  doc["topology"]["dimensions"][1]["kind"] = "FullyConnected";
  const Scenario scenario = ParseOrDie(doc);
  EXPECT_EQ(scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce)[1],
            CollectiveAlgorithm::kDirect);
}

TEST(ScenarioParser, UnitsAreNormalised) {
  nlohmann::json doc = test::CollectiveScenario(
      {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 50}, {"latency_ns", 7}}}, "all_gather", 1);
  doc["workload"]["collective"].erase("size_bytes");
  doc["workload"]["collective"]["size_MiB"] = 1.5;
  const Scenario scenario = ParseOrDie(doc);
  EXPECT_EQ(scenario.collective.size_bytes, 1572864u);  // 1.5 * 2^20
  EXPECT_DOUBLE_EQ(scenario.dimensions[0].bandwidth_Bpns, 50.0);  // GB/s = bytes/ns
  EXPECT_EQ(scenario.collective.dimensions, std::vector<uint32_t>({0}));
}

TEST(ScenarioParser, DegreesFollowFromDimensionLists) {
  nlohmann::json doc = BaseTrainingScenario();
  doc["workload"]["training"]["model"] = "gpt2_medium";  // 16 heads: tensor 8 splits them
  doc["workload"]["training"]["parallelism"] = {{"tensor_dimensions", {1}}};
  const Scenario scenario = ParseOrDie(doc);
  EXPECT_EQ(scenario.training.config.tensor_parallel, 8u);
  EXPECT_EQ(scenario.training.config.data_parallel, 4u);
  EXPECT_EQ(scenario.training.data_dimensions, std::vector<uint32_t>({0}));
}

TEST(ScenarioParser, CustomModelLayersAreRead) {
  nlohmann::json doc = BaseTrainingScenario();
  doc["workload"]["training"]["model"] = {
      {"name", "tiny"},
      {"layers",
       {{{"name", "a"}, {"params", 1000}, {"forward_ns", 10.0}, {"tensor_parallel_all_reduces", 1},
         {"output_elements_per_sample", 64}}}}};
  const Scenario scenario = ParseOrDie(doc);
  ASSERT_EQ(scenario.training.model.layers.size(), 1u);
  EXPECT_EQ(scenario.training.model.layers[0].params, 1000u);
  EXPECT_EQ(scenario.training.model.layers[0].forward_ns, 10.0);
  EXPECT_FALSE(scenario.training.model.layers[0].input_grad_ns.has_value());
}

// One bad-input case: a mutation of the base scenario, the JSON path the error must name, and a
// fragment of the message (the value found or what is accepted).
struct BadInput {
  std::string name;
  std::function<void(nlohmann::json&)> mutate;
  std::string path;
  std::string fragment;
};

// ctest lists a parameterised test with its printed parameter: print the case's name, not its bytes.
void PrintTo(const BadInput& input, std::ostream* out) { *out << input.name; }

class BadScenario : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadScenario, IsRefusedWithPathAndReason) {
  nlohmann::json doc = BaseTrainingScenario();
  GetParam().mutate(doc);
  auto result = ParseScenario(doc);
  ASSERT_FALSE(result) << "accepted: " << doc.dump();
  EXPECT_EQ(result.Error().where, GetParam().path) << result.Error().ToString();
  EXPECT_NE(result.Error().message.find(GetParam().fragment), std::string::npos)
      << result.Error().ToString();
}

nlohmann::json& Dim(nlohmann::json& doc, int d) { return doc["topology"]["dimensions"][d]; }
nlohmann::json& Training(nlohmann::json& doc) { return doc["workload"]["training"]; }

INSTANTIATE_TEST_SUITE_P(
    Classes, BadScenario,
    ::testing::Values(
        BadInput{"UnknownTopLevelKey", [](auto& d) { d["topolgy"] = 1; }, "topolgy",
                 "unknown key \"topolgy\""},
        BadInput{"UnknownDimensionKey", [](auto& d) { Dim(d, 0)["bandwidth_Gbps"] = 1; },
                 "topology.dimensions[0].bandwidth_Gbps", "accepted keys here"},
        BadInput{"MissingTopology", [](auto& d) { d.erase("topology"); }, "topology", "missing"},
        BadInput{"MissingBandwidth", [](auto& d) { Dim(d, 1).erase("bandwidth_GBps"); },
                 "topology.dimensions[1].bandwidth_GBps", "missing"},
        BadInput{"ZeroSize", [](auto& d) { Dim(d, 1)["size"] = 0; }, "topology.dimensions[1].size",
                 "got 0; accepted: an integer from 2 to 65536"},
        BadInput{"NegativeSize", [](auto& d) { Dim(d, 0)["size"] = -4; },
                 "topology.dimensions[0].size", "got -4"},
        BadInput{"FractionalSize", [](auto& d) { Dim(d, 0)["size"] = 4.5; },
                 "topology.dimensions[0].size", "got a number 4.5"},
        BadInput{"HugeSize", [](auto& d) { Dim(d, 0)["size"] = 1000000000000; },
                 "topology.dimensions[0].size", "got 1000000000000"},
        BadInput{"TooManyNpus",
                 [](auto& d) {
                   Dim(d, 0)["size"] = 65536;
                   Dim(d, 1)["size"] = 65536;
                 },
                 "topology.dimensions[1].size", "more than 1048576 NPUs"},
        BadInput{"ZeroBandwidth", [](auto& d) { Dim(d, 0)["bandwidth_GBps"] = 0; },
                 "topology.dimensions[0].bandwidth_GBps", "accepted: a number from 0.001"},
        BadInput{"NegativeLatency", [](auto& d) { Dim(d, 0)["latency_ns"] = -1; },
                 "topology.dimensions[0].latency_ns", "got -1"},
        BadInput{"WrongTypeBandwidth", [](auto& d) { Dim(d, 0)["bandwidth_GBps"] = "fast"; },
                 "topology.dimensions[0].bandwidth_GBps", "got a string \"fast\""},
        BadInput{"UnknownKind", [](auto& d) { Dim(d, 0)["kind"] = "Torus"; },
                 "topology.dimensions[0].kind",
                 "got \"Torus\"; accepted: \"Ring\", \"FullyConnected\", \"Switch\""},
        BadInput{"NoDimensions", [](auto& d) { d["topology"]["dimensions"] = nlohmann::json::array(); },
                 "topology.dimensions", "array has 0 entries; accepted: 1 to 8"},
        BadInput{"ParallelismProduct",
                 [](auto& d) { Training(d)["parallelism"] = {{"data", 4}, {"tensor", 4}}; },
                 "workload.training.parallelism", "data (4) x tensor (4) = 16, but the fabric has 32"},
        BadInput{"ParallelismNotDividing",
                 [](auto& d) { Training(d)["parallelism"] = {{"data", 5}}; },
                 "workload.training.parallelism.data", "does not divide the fabric's 32 NPUs"},
        BadInput{"TensorDimensionsMismatch",
                 [](auto& d) {
                   Training(d)["parallelism"] = {{"data", 4}, {"tensor", 8}, {"tensor_dimensions", {0}}};
                 },
                 "workload.training.parallelism.tensor_dimensions", "hold 4 NPUs, but tensor is 8"},
        BadInput{"DimensionUsedTwice",
                 [](auto& d) {
                   Training(d)["parallelism"] = {{"tensor_dimensions", {0}}, {"data_dimensions", {0, 1}}};
                 },
                 "workload.training.parallelism.data_dimensions", "dimension 0 is also in"},
        BadInput{"DimensionIndexOutOfRange",
                 [](auto& d) { Training(d)["parallelism"] = {{"tensor_dimensions", {2}}}; },
                 "workload.training.parallelism.tensor_dimensions[0]", "got 2; accepted: an integer from 0 to 1"},
        BadInput{"UnknownModel", [](auto& d) { Training(d)["model"] = "gpt5"; },
                 "workload.training.model", "unknown model \"gpt5\""},
        BadInput{"BatchNotSplitting", [](auto& d) { Training(d)["global_batch_samples"] = 63; },
                 "workload.training.global_batch_samples", "does not split evenly over 8"},
        BadInput{"MissingBatch", [](auto& d) { Training(d).erase("global_batch_samples"); },
                 "workload.training.global_batch_samples", "missing"},
        BadInput{"TensorOnCnn",
                 [](auto& d) {
                   Training(d)["model"] = "resnet50";
                   Training(d).erase("sequence_length_tokens");
                 },
                 "workload.training.parallelism.tensor", "has no tensor-parallel layers"},
        BadInput{"SequenceLengthOnCnn",
                 [](auto& d) {
                   Training(d)["model"] = "vgg16";
                   Training(d)["sequence_length_tokens"] = 128;
                 },
                 "workload.training.sequence_length_tokens", "not a sequence model"},
        BadInput{"BothWorkloads",
                 [](auto& d) { d["workload"]["collective"] = {{"kind", "all_reduce"}, {"size_bytes", 1}}; },
                 "workload", "exactly one of"},
        BadInput{"BothSizes",
                 [](auto& d) {
                   d["workload"] = {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1}, {"size_MiB", 1}}}};
                 },
                 "workload.collective", "exactly one of \"size_bytes\""},
        BadInput{"UnknownAlgorithm",
                 [](auto& d) { d["communication"] = {{"algorithms", {{"all_reduce", "butterfly"}}}}; },
                 "communication.algorithms.all_reduce", "got \"butterfly\""},
        BadInput{"AlgorithmListLength",
                 [](auto& d) { d["communication"] = {{"algorithms", {{"all_reduce", {"ring"}}}}}; },
                 "communication.algorithms.all_reduce", "array has 1 entries; accepted: 2 to 2"},
        BadInput{"HalvingDoublingOnNonPowerOfTwo",
                 [](auto& d) {
                   Dim(d, 1)["size"] = 6;
                   Training(d)["global_batch_samples"] = 48;
                   Training(d)["parallelism"] = {{"data", 6}, {"tensor", 4}};
                   d["communication"] = {{"algorithms", {{"all_reduce", {"ring", "halving_doubling"}}}}};
                 },
                 "communication.algorithms.all_reduce[1]", "power-of-two"},
        BadInput{"TreeOnReduceScatterStage",
                 [](auto& d) {
                   Training(d)["parallelism"] = {{"data", 32}, {"tensor", 1}};
                   d["communication"] = {{"algorithms", {{"all_reduce", "double_binary_tree"}}}};
                 },
                 "communication.algorithms.all_reduce", "reduce_scatter stage"},
        BadInput{"TreeInListOnReduceScatterStage",
                 [](auto& d) {
                   Training(d)["parallelism"] = {{"data", 32}, {"tensor", 1}};
                   d["communication"] = {
                       {"algorithms", {{"all_reduce", {"double_binary_tree", "ring"}}}}};
                 },
                 "communication.algorithms.all_reduce[0]", "supports all_reduce only"},
        BadInput{"ZeroChunks", [](auto& d) { d["communication"] = {{"chunks", 0}}; },
                 "communication.chunks", "got 0; accepted: an integer from 1 to 4096"},
        BadInput{"EfficiencyAboveOne", [](auto& d) { d["npu"] = {{"compute_efficiency", 1.5}}; },
                 "npu.compute_efficiency", "at most 1"},
        BadInput{"EngineUnknown", [](auto& d) { d["engine"] = "quantum"; }, "engine",
                 "accepted: \"analytical\", \"packet\""},
        BadInput{"QueueSmallerThanPacket", [](auto& d) { d["packet"] = {{"queue_bytes", 1000}}; },
                 "packet.queue_bytes", "cannot hold one packet of 4096 + 62 bytes"},
        // 2^32 used to wrap to 0 in ns-3's 32-bit queue size (277 drops, a 5x slower run).
        BadInput{"QueueOf4GiBWouldWrap",
                 [](auto& d) { d["packet"] = {{"queue_bytes", uint64_t{1} << 32}}; },
                 "packet.queue_bytes", "got 4294967296"},
        // Two entries for one scope would leave the loss to their order.
        BadInput{"LossOfOneDimensionTwice",
                 [](auto& d) {
                   d["packet"] = {{"faults", {{"link_loss", {{{"dimension", 1}, {"rate", 0.01}},
                                                             {{"rate", 0.02}},
                                                             {{"dimension", 1}, {"rate", 0.1}}}}}}};
                 },
                 "packet.faults.link_loss[2]", "sets the loss of dimension 1 a second time"},
        BadInput{"LossOfTheWholeFabricTwice",
                 [](auto& d) {
                   d["packet"] = {{"faults", {{"link_loss", {{{"rate", 0.01}}, {{"rate", 0.02}}}}}}};
                 },
                 "packet.faults.link_loss[1]", "the whole fabric a second time"},
        // Tiny positive rates made every time inf or null with exit 0.
        BadInput{"SubnormalBandwidth", [](auto& d) { Dim(d, 0)["bandwidth_GBps"] = 5e-324; },
                 "topology.dimensions[0].bandwidth_GBps", "accepted: a number from 0.001"},
        BadInput{"TinyPeakFlops",
                 [](auto& d) { d["npu"] = {{"peak_TFLOPS", 1e-300}}; },
                 "npu.peak_TFLOPS", "accepted: a number from 0.001"},
        BadInput{"TinyComputeEfficiency",
                 [](auto& d) { d["npu"] = {{"compute_efficiency", 1e-320}}; },
                 "npu.compute_efficiency", "accepted: a number from 0.001 and at most 1"},
        // Ignored under hfsim pricing, and left out of the echo, with exit 0.
        BadInput{"ActiveChunksUnderHfsimPricing",
                 [](auto& d) { d["communication"] = {{"active_chunks_per_dimension", 2}}; },
                 "communication.active_chunks_per_dimension",
                 "which only \"pricing\": \"astra_sim\" uses"},
        BadInput{"HostCostUnderAstraPricing",
                 [](auto& d) {
                   d["communication"] = {{"pricing", "astra_sim"},
                                         {"host_overhead_ns_per_message", 500}};
                 },
                 "communication.host_overhead_ns_per_message",
                 "which \"pricing\": \"astra_sim\" does not charge"},
        BadInput{"TinyReductionBandwidth",
                 [](auto& d) { d["communication"] = {{"reduction_memory_bandwidth_GBps", 1e-300}}; },
                 "communication.reduction_memory_bandwidth_GBps", "0 (reductions are free) or from 0.001"},
        BadInput{"LossRateTooHigh",
                 [](auto& d) { d["packet"] = {{"faults", {{"link_loss", {{{"rate", 0.9}}}}}}}; },
                 "packet.faults.link_loss[0].rate", "got 0.9"},
        BadInput{"LinkIdOutOfRange",
                 [](auto& d) {
                   d["packet"] = {{"faults", {{"link_down", {{{"link", 999999}, {"from_ns", 0}, {"until_ns", 5}}}}}}};
                 },
                 "packet.faults.link_down[0].link", "got 999999"},
        BadInput{"LinkNeverComesBack",
                 [](auto& d) {
                   d["packet"] = {{"faults", {{"link_down", {{{"link", 0}, {"from_ns", 10}, {"until_ns", 5}}}}}}};
                 },
                 "packet.faults.link_down[0].until_ns", "not after from_ns"},
        BadInput{"TransportUnknown", [](auto& d) { d["packet"] = {{"transport", "udp"}}; },
                 "packet.transport", "got \"udp\"; accepted: \"rdma\", \"tcp\""},
        BadInput{"TcpVariantUnknown", [](auto& d) { d["packet"] = {{"tcp_variant", "TcpVegas"}}; },
                 "packet.tcp_variant", "accepted: \"new_reno\", \"cubic\""},
        BadInput{"TcpRouteLongerThanTtl",
                 [](auto& d) {
                   d["workload"] = {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}};
                   Dim(d, 1) = {{"kind", "Ring"}, {"size", 600}, {"bandwidth_GBps", 25},
                                {"latency_ns", 500}};
                   d["packet"] = {{"transport", "tcp"}};
                 },
                 "packet.transport", "the longest route here takes 302"},
        BadInput{"TcpAddressesDoNotFit",
                 [](auto& d) {
                   // 7 x 3 bits + 4 bits = 25 bits for 703125 NPUs.
                   auto dim = [](const char* kind, int size) {
                     return nlohmann::json{{"kind", kind}, {"size", size}, {"bandwidth_GBps", 25},
                                           {"latency_ns", 500}};
                   };
                   nlohmann::json dims = nlohmann::json::array();
                   for (int i = 0; i < 7; ++i) dims.push_back(dim("Ring", 5));
                   dims.push_back(dim("Switch", 9));
                   d["topology"]["dimensions"] = dims;
                   d["workload"] = {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}};
                   d["packet"] = {{"transport", "tcp"}};
                 },
                 "packet.transport", "these dimensions need 25 bits"},
        BadInput{"TopLevelNotObject", [](auto& d) { d = nlohmann::json::array(); }, "(top level)",
                 "expected an object"}),
    [](const auto& info) { return info.param.name; });

// A custom layer says whether full recomputation reruns it; the echo keeps it (only when false).
TEST(ScenarioParser, CheckpointedIsReadEchoedAndChecked) {
  nlohmann::json doc = BaseTrainingScenario();
  doc["workload"]["training"]["model"] = nlohmann::json::parse(R"({"name": "custom", "layers": [
    {"name": "a", "params": 10, "forward_flops_per_sample": 1e6,
     "output_elements_per_sample": 64, "tensor_parallel_all_reduces": 2},
    {"name": "b", "params": 10, "forward_flops_per_sample": 1e6, "checkpointed": false}]})");
  const Scenario scenario = ParseOrDie(doc);
  EXPECT_TRUE(scenario.training.model.layers[0].checkpointed);
  EXPECT_FALSE(scenario.training.model.layers[1].checkpointed);
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
  const nlohmann::json& layers = echo["workload"]["training"]["model"]["layers"];
  EXPECT_FALSE(layers[0].contains("checkpointed"));
  EXPECT_EQ(layers[1]["checkpointed"], false);
  doc["workload"]["training"]["model"]["layers"][1]["checkpointed"] = "no";
  auto bad = ParseScenario(doc);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.Error().where, "workload.training.model.layers[1].checkpointed");
}

TEST(ScenarioParser, StatedLayerCollectivesAreReadEchoedAndChecked) {
  nlohmann::json doc = BaseTrainingScenario();
  doc["workload"]["training"]["model"] = nlohmann::json::parse(R"({"name": "trace", "layers": [
    {"name": "a", "params": 0, "forward_ns": 10,
     "forward_comm": {"kind": "all_gather", "size_bytes": 4096},
     "weight_grad_comm": {"kind": "all_reduce", "size_bytes": 1000}}]})");
  const Scenario scenario = ParseOrDie(doc);
  const Layer& layer = scenario.training.model.layers[0];
  EXPECT_EQ(layer.forward_comm, (LayerComm{CollectiveKind::kAllGather, 4096}));
  EXPECT_FALSE(layer.input_grad_comm.has_value());
  EXPECT_EQ(layer.weight_grad_comm, (LayerComm{CollectiveKind::kAllReduce, 1000}));
  // tensor 4 is accepted: the layer has a stated forward collective.
  EXPECT_EQ(scenario.training.config.tensor_parallel, 4u);
  const nlohmann::json echo = ScenarioToJson(scenario);
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
  EXPECT_EQ(echo["workload"]["training"]["model"]["layers"][0]["forward_comm"]["kind"], "all_gather");

  doc["workload"]["training"]["model"]["layers"][0]["forward_comm"]["kind"] = "allgather";
  auto bad = ParseScenario(doc);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.Error().where, "workload.training.model.layers[0].forward_comm.kind");
  doc["workload"]["training"]["model"]["layers"][0]["forward_comm"] = {{"kind", "all_gather"},
                                                                      {"size_bytes", 0}};
  bad = ParseScenario(doc);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.Error().where, "workload.training.model.layers[0].forward_comm.size_bytes");
}

TEST(ScenarioParser, SyntaxErrorNamesFileAndOffset) {
  auto result = ParseScenarioText("{\"name\": \"x\",, }", "broken.json");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.Error().where, "broken.json");
  EXPECT_NE(result.Error().message.find("at byte 14"), std::string::npos) << result.Error().message;
}

TEST(ScenarioParser, MissingFileIsAUserError) {
  auto result = LoadScenarioFile("/nonexistent/scenario.json");
  ASSERT_FALSE(result);
  EXPECT_NE(result.Error().message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
