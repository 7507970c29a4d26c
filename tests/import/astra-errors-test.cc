// Bad ASTRA-sim inputs: every refusal names the file, the key (and YAML line) and what is
// accepted, and nothing huge is allocated first.
#include <fmt/format.h>

#include "tests/import/astra-test-util.h"

namespace hfsim::testing {
namespace {

constexpr const char* kNet = "topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n";

std::string NetworkError(const std::string& yaml) {
  return ImportError(AstraInputs{WriteTemp("net.yml", yaml), WriteTemp("sys.json", System("[\"ring\"]")),
                                 "", "all_reduce", "1MiB"});
}

std::string SystemError(const std::string& json, const std::string& yaml = kNet) {
  return ImportError(AstraInputs{WriteTemp("net.yml", yaml), WriteTemp("sys.json", json), "", "all_reduce", "1MiB"});
}

TEST(AstraErrors, HugeNpusCountIsRefusedBeforeAnything) {
  const std::string error =
      NetworkError("topology: [Ring]\nnpus_count: [1000000000000]\nbandwidth: [100]\nlatency: [50]\n");
  EXPECT_NE(error.find("net.yml: npus_count[0] (line 2): got 1000000000000; accepted: an integer from 2 to 65536"),
            std::string::npos) << error;
  // Beyond 64 bits, and a product over the NPU limit.
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [100000000000000000000000000000]\nbandwidth: [1]\nlatency: [1]\n")
                .find("npus_count[0] (line 2)"), std::string::npos);
  const std::string product = NetworkError(
      "topology: [Ring, Ring, Ring]\nnpus_count: [65536, 65536, 65536]\nbandwidth: [1, 1, 1]\nlatency: [1, 1, 1]\n");
  EXPECT_NE(product.find("npus_count[1] (line 2): the fabric would have more than 1048576 NPUs"), std::string::npos)
      << product;
}

// yaml-cpp keeps both entries of a duplicated key and a lookup returns the first; ASTRA-sim's
// reader could take another. A duplicate is refused, naming its line. So is one in the JSON.
TEST(AstraErrors, DuplicateKeysAreRefused) {
  const std::string yaml = NetworkError(
      "topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\nbandwidth: [200]\n");
  EXPECT_NE(yaml.find("net.yml: line 5: the key 'bandwidth' appears twice"), std::string::npos)
      << yaml;
  const std::string json = SystemError(
      "{\"endpoint-delay\": 10, \"endpoint-delay\": 20, \"preferred-dataset-splits\": 1}");
  EXPECT_NE(json.find("the key \"endpoint-delay\" appears twice"), std::string::npos) << json;
  // Nested aliases share their anchor's node: the duplicate check walks each collection once
  // (walked as a tree, these 10^9 references would take minutes).
  std::string bomb = "a: &a [1, 1]\n";
  for (char level = 'b'; level <= 'j'; ++level) {
    bomb += fmt::format("{}: &{} [", level, level);
    for (int k = 0; k < 10; ++k) bomb += fmt::format("{}*{}", k == 0 ? "" : ", ", char(level - 1));
    bomb += "]\n";
  }
  const std::string aliases = NetworkError(bomb + kNet);
  EXPECT_NE(aliases.find("unknown key \"a\""), std::string::npos) << aliases;
}

TEST(AstraErrors, NetworkValues) {
  EXPECT_NE(NetworkError("topology: [Torus]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n")
                .find("topology[0] (line 1): got Torus; accepted: Ring, FullyConnected, Switch"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [4.0]\nbandwidth: [100]\nlatency: [50]\n")
                .find("npus_count[0] (line 2): got 4.0"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [4]\nbandwidth: [-1]\nlatency: [50]\n")
                .find("bandwidth[0] (line 3): got -1; accepted: a number above 0"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [fast]\n")
                .find("latency[0] (line 4): got fast"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [FullyConnected]\nnpus_count: [2000]\nbandwidth: [1]\nlatency: [1]\n")
                .find("accepted: an integer from 2 to 1024 for FullyConnected"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1000000]\nlatency: [1]\n")
                .find("bandwidth[0] (line 3): got 1000000 per link"), std::string::npos);
}

TEST(AstraErrors, NetworkShape) {
  EXPECT_NE(NetworkError("topology: [Ring]\nnpus_count: [4]\nbandwidth: [100]\n").find("net.yml: latency: missing"),
            std::string::npos);
  EXPECT_NE(NetworkError(std::string(kNet) + "links: 3\n").find("links (line 5): unknown key \"links\"; accepted keys:"),
            std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring, Ring]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [50]\n")
                .find("npus_count (line 2): has 1 entries but topology has 2"), std::string::npos);
  EXPECT_NE(NetworkError("topology: [Ring\n").find("net.yml: not valid YAML (line"), std::string::npos);
  EXPECT_NE(NetworkError("- 1\n- 2\n").find("(top level): got a list"), std::string::npos);
  EXPECT_NE(ImportError(AstraInputs{"/nonexistent/net.yml", "/nonexistent/sys.json", "", "all_reduce", "1MiB"})
                .find("/nonexistent/net.yml: cannot open"), std::string::npos);
}

TEST(AstraErrors, SystemValues) {
  EXPECT_NE(SystemError(System("[\"doubleBinaryTree\"]")).find(
                "sys.json: all-reduce-implementation[0]: got \"doubleBinaryTree\"; accepted: \"ring\", \"direct\", \"halvingDoubling\""),
            std::string::npos) << SystemError(System("[\"doubleBinaryTree\"]"));
  EXPECT_NE(SystemError(System("[\"ring\", \"ring\"]")).find("all-reduce-implementation: array has 2 entries"),
            std::string::npos) << SystemError(System("[\"ring\", \"ring\"]"));
  EXPECT_NE(SystemError(System("[\"halvingDoubling\"]"), "topology: [Ring]\nnpus_count: [6]\nbandwidth: [1]\nlatency: [1]\n")
                .find("all-reduce-implementation[0]: halvingDoubling needs a power-of-two npus_count"),
            std::string::npos);
  EXPECT_NE(SystemError(System("[\"ring\"]", "", 0)).find("preferred-dataset-splits: "), std::string::npos);
  EXPECT_NE(SystemError(System("[\"ring\"]", ", \"boost-mode\": 1")).find("boost-mode: "), std::string::npos);
  EXPECT_NE(SystemError(System("[\"ring\"]", ", \"packet-routing\": \"software\"")).find("unknown key \"packet-routing\""),
            std::string::npos);
  EXPECT_NE(SystemError(System("[\"ring\"]", "", 1, 1, "smart")).find("collective-optimization: got \"smart\""),
            std::string::npos);
  EXPECT_NE(SystemError("{\"endpoint-delay\": }").find("sys.json: not valid JSON (at byte"), std::string::npos);
  EXPECT_NE(SystemError("{}").find("sys.json: scheduling-policy: missing"), std::string::npos) << SystemError("{}");
}

// A system file takes ASTRA-sim's own default for each key it leaves out that ASTRA-sim gives
// one (Sys::Sys: endpoint-delay 10, active-chunks-per-dimension 1), so it prices as the same file
// with those values written; the keys ASTRA-sim leaves undefined or divides by are refused with
// that reason, and a missing implementation list only where a collective of its kind runs.
// (Every one of these keys was required, so ASTRA-sim's own custom_collective.json was refused.)
TEST(AstraErrors, SystemDefaultsAreAstraSims) {
  const std::string minimal =
      R"({"scheduling-policy": "LIFO", "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"]})";
  EXPECT_EQ(CollectiveNs(kNet, minimal, "all_reduce", "1MiB"),
            CollectiveNs(kNet, System("[\"ring\"]"), "all_reduce", "1MiB"));
  auto document = ImportAstraSim(AstraInputs{WriteTemp("net.yml", kNet), WriteTemp("sys.json", minimal),
                                             "", "all_reduce", "1MiB"});
  ASSERT_TRUE(document) << document.Error().ToString();
  EXPECT_EQ(document.Value()["communication"]["endpoint_delay_ns"], 10.0);
  EXPECT_EQ(document.Value()["communication"]["active_chunks_per_dimension"], 1u);
  // An all-gather has no list there: ASTRA-sim would stop on it. Named at the key.
  const std::string sys = WriteTemp("sys.json", minimal);
  auto gather = ImportAstraSim(AstraInputs{WriteTemp("net.yml", kNet), sys, "", "all_gather", "1MiB"});
  ASSERT_TRUE(gather) << gather.Error().ToString();
  auto loaded = ParseScenario(gather.Value());
  ASSERT_TRUE(loaded) << loaded.Error().ToString();
  const auto refused = AstraImplementationRefusal(loaded.Value(), sys);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->where, sys + ": all-gather-implementation");
  EXPECT_NE(refused->message.find("runs the collective all_gather"), std::string::npos) << refused->ToString();
  EXPECT_NE(refused->message.find("No collective implementation found"), std::string::npos);
  EXPECT_FALSE(AstraImplementationRefusal(ParseScenario(document.Value()).Value(), sys));
  // No default in ASTRA-sim: the reason is given.
  EXPECT_NE(SystemError(R"({"scheduling-policy": "LIFO"})").find("ASTRA-sim's default is 0, by which"),
            std::string::npos)
      << SystemError(R"({"scheduling-policy": "LIFO"})");
  const std::string two = "topology: [Ring, Switch]\nnpus_count: [4, 2]\nbandwidth: [100, 50]\nlatency: [50, 500]\n";
  EXPECT_NE(SystemError(minimal, two).find("collective-optimization: missing; expected \"localBWAware\" or "
                                           "\"baseline\": on a network of more than one dimension"),
            std::string::npos)
      << SystemError(minimal, two);
}

TEST(AstraErrors, WorkloadAndSize) {
  const std::string net = WriteTemp("net.yml", kNet);
  const std::string sys = WriteTemp("sys.json", System("[\"ring\"]"));
  EXPECT_NE(ImportError(AstraInputs{net, sys, "", "all_reduce", "64 apples"}).find("--size: got \"64 apples\"; accepted:"),
            std::string::npos);
  EXPECT_NE(ImportError(AstraInputs{net, sys, "", "all_reduce", "0"}).find("--size"), std::string::npos);
  EXPECT_NE(ImportError(AstraInputs{net, sys, "", "all_reduce", "2000TB"}).find("--size"), std::string::npos);
  EXPECT_NE(ImportError(AstraInputs{net, sys, "", "gather", "1MiB"}).find("--collective: got \"gather\""),
            std::string::npos);
  const std::string workload = WriteTemp("w.json", "{\"topology\": {}, \"workload\": {}}");
  EXPECT_NE(ImportError(AstraInputs{net, sys, workload, "", ""}).find("w.json: topology: comes from the ASTRA-sim network file"),
            std::string::npos);
  EXPECT_EQ(64u << 20, ParseByteSize("64MiB").Value());
  EXPECT_EQ(1536u << 20, ParseByteSize("1.5GiB").Value());
  EXPECT_EQ(100000000u, ParseByteSize("100MB").Value());
  EXPECT_EQ(4096u, ParseByteSize("4096").Value());
}

TEST(AstraErrors, LoaderRefusesTreeUnderAstraPricing) {
  const nlohmann::json document = {
      {"topology", {{"dimensions", {{{"kind", "Ring"}, {"size", 4}, {"bandwidth_GBps", 100}, {"latency_ns", 50}}}}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 1024}}}}},
      {"communication", {{"pricing", "astra_sim"}, {"algorithms", {{"all_reduce", "double_binary_tree"}}}}}};
  auto scenario = ParseScenario(document);
  ASSERT_FALSE(scenario);
  EXPECT_EQ("communication.algorithms.all_reduce", scenario.Error().where);
}

}  // namespace
}  // namespace hfsim::testing
