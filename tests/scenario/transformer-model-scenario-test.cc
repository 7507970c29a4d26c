// workload.training.model given by hyper-parameters: {"transformer": {...}} builds the zoo's own
// rows from the zoo's hyper-parameters, {"hf_config": PATH} reads a config.json relative to the
// scenario file, the echo runs without the file, and every refusal names its JSON path (and for
// a config, the file and its key).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario-parser.h"
#include "sim/scenario/transformer-section.h"
#include "tests/scenario/scenario-test-util.h"
#include "tests/temp-path.h"
#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

using test::ExpectLoadError;
using test::ParseOrDie;

// Llama 3 8B by hand on 8 NPUs (tensor 8), 8,192 tokens.
nlohmann::json LlamaByHand() {
  return nlohmann::json::parse(R"({
    "topology": {"dimensions": [
      {"kind": "Switch", "size": 8, "bandwidth_GBps": 450, "latency_ns": 500}]},
    "workload": {"training": {
      "model": {"transformer": {"name": "llama-by-hand", "layers": 32, "hidden": 4096,
                                "ffn": 14336, "heads": 32, "kv_heads": 8, "vocab": 128256}},
      "sequence_length_tokens": 8192,
      "global_batch_samples": 8,
      "parallelism": {"tensor": 8}}}
  })");
}

TEST(TransformerModelScenario, ByHandBuildsTheZoosRowsAndEchoesThem) {
  const Scenario scenario = ParseOrDie(LlamaByHand());
  EXPECT_EQ(scenario.training.model_name, "llama-by-hand");
  EXPECT_EQ(scenario.training.sequence_length_tokens, 8192u);
  EXPECT_EQ(scenario.training.model.layers, BuildZooModel("llama3_8b")->layers);
  // The echo writes every hyper-parameter out and reads back to the same echo and model.
  const nlohmann::json echo = ScenarioToJson(scenario);
  const nlohmann::json& model = echo["workload"]["training"]["model"]["transformer"];
  EXPECT_EQ(model["kv_heads"], 8);
  EXPECT_EQ(model["head_dim"], 128);
  EXPECT_EQ(model["norm"], "rmsnorm");
  const Scenario again = ParseOrDie(echo);
  EXPECT_EQ(ScenarioToJson(again), echo);
  EXPECT_EQ(again.training.model.layers, scenario.training.model.layers);
}

// Every zoo transformer's spec, written as "transformer", echoes and reads back to its model.
TEST(TransformerModelScenario, EveryZooSpecRoundTripsThroughJson) {
  for (const std::string& name : ModelZooNames()) {
    const auto spec = ZooTransformerSpec(name);
    if (!spec) continue;
    nlohmann::json document = LlamaByHand();
    document["workload"]["training"]["model"] = {{"transformer", TransformerSpecToJson(*spec)}};
    document["workload"]["training"]["sequence_length_tokens"] = 512;
    document["workload"]["training"]["parallelism"] = {{"tensor", 1}};
    const Scenario scenario = ParseOrDie(document);
    EXPECT_EQ(scenario.training.model.layers, BuildZooModel(name, 512)->layers) << name;
  }
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string Fixture(const std::string& name) {
  std::ifstream file(std::string(HFSIM_SOURCE_DIR) + "/tests/workloads/data/hf/" + name);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// A scenario in DIR names "models/mixtral/config.json": it is read from DIR, whatever the
// working directory, and the model is named after its directory.
TEST(TransformerModelScenario, HfConfigIsReadRelativeToTheScenarioFile) {
  const std::filesystem::path dir = test::TempPath("hfsim-hf-config");
  std::filesystem::remove_all(dir);
  WriteFile(dir / "models" / "mixtral" / "config.json", Fixture("mixtral-8x7b-v0.1.json"));
  nlohmann::json document = LlamaByHand();
  document["workload"]["training"]["model"] = {{"hf_config", "models/mixtral/config.json"}};
  document["workload"]["training"]["sequence_length_tokens"] = 4096;
  WriteFile(dir / "scenario.json", document.dump());
  const auto loaded = LoadScenarioFile((dir / "scenario.json").string());
  ASSERT_TRUE(loaded) << loaded.Error().ToString();
  EXPECT_EQ(loaded.Value().training.model_name, "mixtral");
  EXPECT_EQ(loaded.Value().training.model.TotalParams(), 46'702'792'704u);
  EXPECT_EQ(loaded.Value().training.model.layers, BuildZooModel("mixtral_8x7b", 4096)->layers);
  // The echo holds the hyper-parameters, not the path: it parses anywhere.
  const nlohmann::json echo = ScenarioToJson(loaded.Value());
  EXPECT_FALSE(echo["workload"]["training"]["model"].contains("hf_config"));
  EXPECT_EQ(ScenarioToJson(ParseOrDie(echo)), echo);
  // Named in the scenario, the model takes that name.
  document["workload"]["training"]["model"]["name"] = "mine";
  WriteFile(dir / "named.json", document.dump());
  EXPECT_EQ(LoadScenarioFile((dir / "named.json").string()).Value().training.model_name, "mine");
  // A broken config is refused with the key's JSON path, the file and the config's key.
  nlohmann::json config = nlohmann::json::parse(Fixture("mixtral-8x7b-v0.1.json"));
  config["num_key_value_heads"] = 7;
  WriteFile(dir / "models" / "mixtral" / "config.json", config.dump());
  auto refused = LoadScenarioFile((dir / "scenario.json").string());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.Error().ToString(),
            (dir / "scenario.json").string() + ": workload.training.model.hf_config: " +
                (dir / "models" / "mixtral" / "config.json").string() +
                ": \"num_key_value_heads\": got 7, which does not divide the 32 attention heads; "
                "accepted: a divisor of 32");
  WriteFile(dir / "models" / "mixtral" / "config.json", "{\"model_type\": ");
  refused = LoadScenarioFile((dir / "scenario.json").string());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.Error().ToString().find("workload.training.model.hf_config: " +
                                            (dir / "models" / "mixtral" / "config.json").string()),
            std::string::npos)
      << refused.Error().ToString();
  std::filesystem::remove_all(dir);
}

TEST(TransformerModelScenario, RefusalsNameTheJsonPath) {
  const std::string model = "workload.training.model";
  nlohmann::json d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"].erase("hidden");
  ExpectLoadError(d, model + ".transformer.hidden", "missing");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["kv_heads"] = 3;
  ExpectLoadError(d, model + ".transformer.kv_heads",
                  "got 3, which does not divide the 32 attention heads");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["moe"] = {
      {"experts", 8}, {"top_k", 9}, {"expert_ffn", 100}};
  ExpectLoadError(d, model + ".transformer.moe.top_k", "got 9; accepted: an integer from 1 to 8");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["attention"] = "flash";
  ExpectLoadError(d, model + ".transformer.attention", "unknown key \"attention\"");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["norm"] = "batchnorm";
  ExpectLoadError(d, model + ".transformer.norm", "\"layernorm\"");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["rows"] = "gpt2";
  ExpectLoadError(d, model + ".transformer.tied_embeddings", "rows \"gpt2\"");
  d = LlamaByHand();
  d["workload"]["training"].erase("sequence_length_tokens");
  ExpectLoadError(d, "workload.training.sequence_length_tokens", "missing");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["transformer"]["sliding_window"] = 4096;
  ExpectLoadError(d, "workload.training.sequence_length_tokens",
                  "8192 tokens is more than model \"llama-by-hand\"'s sliding window of 4096");
  d = LlamaByHand();
  d["workload"]["training"]["model"]["layers"] = nlohmann::json::array();
  ExpectLoadError(d, model + ".layers", "accepted keys here: \"transformer\"");
  d = LlamaByHand();
  d["workload"]["training"]["model"] = {{"hf_config", "/nonexistent/config.json"}};
  ExpectLoadError(d, model + ".hf_config", "/nonexistent/config.json is not a file");
  d = LlamaByHand();
  d["workload"]["training"]["model"] = {{"hf_config", 7}};
  ExpectLoadError(d, model + ".hf_config", "string");
  // The model's 8 key/value heads do not split over 16 tensor ranks.
  d = LlamaByHand();
  d["topology"]["dimensions"][0]["size"] = 16;
  d["workload"]["training"]["global_batch_samples"] = 16;
  d["workload"]["training"]["parallelism"]["tensor"] = 16;
  ExpectLoadError(d, "workload.training.parallelism.tensor", "8 key/value heads");
}

}  // namespace
}  // namespace hfsim
