// workload.training.model as {"transformer": {...}} or {"hf_config": "path"}.
#include "sim/scenario/transformer-section.h"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "sim/scenario/json-text.h"
#include "workloads/hf-config.h"

namespace hfsim {
namespace {

using L = TransformerLimits;

const std::vector<std::string_view> kActivations = {"silu", "gelu", "gelu_tanh", "relu"};
const std::vector<std::string_view> kNorms = {"layernorm", "rmsnorm"};
const std::vector<std::string_view> kPositions = {"rotary", "learned"};
const std::vector<std::string_view> kRows = {"llama", "gpt2", "bert"};

// A config.json is a few kilobytes; a megabyte is more than any.
constexpr uint64_t kMaxConfigBytes = uint64_t{1} << 20;

bool ReadBool(const JsonCursor& c, std::string_view key, bool otherwise) {
  const auto node = c.Find(key);
  return node ? node->Bool() : otherwise;
}

uint64_t ReadCount(const JsonCursor& c, std::string_view key, uint64_t min, uint64_t max,
                   uint64_t otherwise) {
  const auto node = c.Find(key);
  return node ? node->Integer(min, max) : otherwise;
}

MoeSpec ReadMoe(const JsonCursor& c, uint32_t layers) {
  c.ExpectObject({"experts", "top_k", "expert_ffn", "shared_experts", "shared_expert_ffn",
                  "first_dense_layers", "layer_frequency", "dense_layers", "router_bias"});
  MoeSpec moe;
  moe.experts = static_cast<uint32_t>(
      c.At("experts", "the number of routed experts").Integer(1, L::kMaxExperts));
  moe.top_k = static_cast<uint32_t>(
      c.At("top_k", "how many experts each token goes to").Integer(1, moe.experts));
  moe.expert_ffn = c.At("expert_ffn", "each routed expert's MLP width").Integer(1, L::kMaxFfn);
  moe.shared_experts =
      static_cast<uint32_t>(ReadCount(c, "shared_experts", 0, L::kMaxSharedExperts, 0));
  moe.shared_expert_ffn = ReadCount(c, "shared_expert_ffn", 1, L::kMaxFfn, moe.expert_ffn);
  if (moe.shared_experts == 0 && c.Has("shared_expert_ffn")) {
    c.Child("shared_expert_ffn").Fail("applies only with shared_experts above 0");
  }
  if (moe.shared_experts == 0) moe.shared_expert_ffn = 0;
  moe.first_dense_layers =
      static_cast<uint32_t>(ReadCount(c, "first_dense_layers", 0, layers - 1, 0));
  moe.layer_frequency = static_cast<uint32_t>(ReadCount(c, "layer_frequency", 1, layers, 1));
  if (const auto list = c.Find("dense_layers")) {
    for (const JsonCursor& entry : list->Elements(0, layers)) {
      moe.dense_layers.push_back(static_cast<uint32_t>(entry.Integer(0, layers - 1)));
    }
  }
  moe.router_bias = ReadBool(c, "router_bias", false);
  return moe;
}

MlaSpec ReadMla(const JsonCursor& c) {
  c.ExpectObject(
      {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  MlaSpec mla;
  mla.q_lora_rank = ReadCount(c, "q_lora_rank", 0, L::kMaxHidden, 0);
  mla.kv_lora_rank =
      c.At("kv_lora_rank", "the rank of the key/value latent").Integer(1, L::kMaxHidden);
  mla.qk_nope_head_dim =
      c.At("qk_nope_head_dim", "each head's query/key width without rotary positions")
          .Integer(0, L::kMaxHeadDim);
  mla.qk_rope_head_dim =
      c.At("qk_rope_head_dim", "each head's rotary query/key width").Integer(1, L::kMaxHeadDim);
  mla.v_head_dim = c.At("v_head_dim", "each head's value width").Integer(1, L::kMaxHeadDim);
  return mla;
}

TransformerSpec ReadSpec(const JsonCursor& c) {
  c.ExpectObject({"name",        "layers",         "hidden",      "ffn",
                  "heads",       "kv_heads",       "head_dim",    "vocab",
                  "gated_mlp",   "activation",     "norm",        "qkv_bias",
                  "output_bias", "mlp_bias",       "qk_norm",     "tied_embeddings",
                  "positions",   "max_positions",  "token_types", "embedding_norm",
                  "causal",      "sliding_window", "rows",        "moe",
                  "mla",         "mtp_layers"});
  TransformerSpec spec;
  spec.name = c.At("name", "a string").String();
  spec.layers =
      static_cast<uint32_t>(c.At("layers", "the number of blocks").Integer(1, L::kMaxLayers));
  spec.hidden = c.At("hidden", "the model width").Integer(1, L::kMaxHidden);
  spec.heads =
      static_cast<uint32_t>(c.At("heads", "the number of query heads").Integer(1, L::kMaxHeads));
  spec.kv_heads = static_cast<uint32_t>(ReadCount(c, "kv_heads", 1, spec.heads, 0));
  spec.head_dim = ReadCount(c, "head_dim", 1, L::kMaxHeadDim, 0);
  spec.vocab = c.At("vocab", "the vocabulary size").Integer(1, L::kMaxVocab);
  if (c.Has("moe")) {
    spec.ffn = ReadCount(c, "ffn", 1, L::kMaxFfn, 0);
  } else {
    spec.ffn = c.At("ffn", "the MLP's width").Integer(1, L::kMaxFfn);
  }
  spec.gated_mlp = ReadBool(c, "gated_mlp", true);
  if (const auto a = c.Find("activation"))
    spec.activation = static_cast<Activation>(a->Choice(kActivations));
  if (const auto n = c.Find("norm")) spec.norm = static_cast<NormKind>(n->Choice(kNorms));
  spec.qkv_bias = ReadBool(c, "qkv_bias", false);
  spec.output_bias = ReadBool(c, "output_bias", false);
  spec.mlp_bias = ReadBool(c, "mlp_bias", false);
  spec.qk_norm = ReadBool(c, "qk_norm", false);
  spec.tied_embeddings = ReadBool(c, "tied_embeddings", false);
  if (const auto p = c.Find("positions"))
    spec.positions = static_cast<PositionKind>(p->Choice(kPositions));
  if (spec.positions == PositionKind::kLearned) {
    spec.max_positions = c.At("max_positions", "the rows of the learned position table")
                             .Integer(1, L::kMaxPositions);
  } else if (c.Has("max_positions")) {
    c.Child("max_positions")
        .Fail(
            "applies to learned positions only (\"positions\": "
            "\"learned\"); rotary positions have no table");
  }
  spec.token_types = ReadCount(c, "token_types", 0, 1024, 0);
  spec.embedding_norm = ReadBool(c, "embedding_norm", false);
  spec.causal = ReadBool(c, "causal", true);
  spec.sliding_window = ReadCount(c, "sliding_window", 0, L::kMaxSequence, 0);
  if (const auto r = c.Find("rows")) spec.rows = static_cast<RowLayout>(r->Choice(kRows));
  if (const auto moe = c.Find("moe")) spec.moe = ReadMoe(*moe, spec.layers);
  if (const auto mla = c.Find("mla")) spec.mla = ReadMla(*mla);
  spec.mtp_layers = static_cast<uint32_t>(ReadCount(c, "mtp_layers", 0, L::kMaxMtpLayers, 0));
  if (auto problem = CheckTransformerSpec(spec)) {
    throw JsonPathError(c.Path() + "." + problem->field, problem->message);
  }
  return spec;
}

// The name of a model read from DIR/config.json is DIR's; from any other file, its stem.
std::string DefaultName(const std::string& path) {
  const std::filesystem::path file(path);
  if (file.filename() == "config.json" && file.has_parent_path()) {
    const std::string directory = file.parent_path().filename().string();
    if (!directory.empty() && directory != "." && directory != "..") return directory;
  }
  return file.stem().string();
}

TransformerSpec ReadHfModel(const JsonCursor& model) {
  model.ExpectObject({"hf_config", "name"});
  const JsonCursor where = model.Child("hf_config");
  const std::string path = where.String();
  std::error_code error;  // a name too long or unreadable is "not there", never a throw
  if (!std::filesystem::is_regular_file(path, error)) {
    where.Fail(
        fmt::format("{} is not a file; accepted: a Hugging Face config.json (a path "
                    "relative to the scenario file)",
                    path));
  }
  auto document = LoadJsonFile(path, "the model's config.json", {kMaxConfigBytes, 64});
  if (!document) where.Fail(document.Error().ToString());
  const std::string name = model.Has("name") ? model.Child("name").String() : DefaultName(path);
  const HfConfigRead read = ReadHfConfig(document.Value(), name);
  if (!read.spec) {
    if (read.problem.field.empty()) where.Fail(fmt::format("{}: {}", path, read.problem.message));
    where.Fail(fmt::format("{}: \"{}\": {}", path, read.problem.field, read.problem.message));
  }
  return *read.spec;
}

}  // namespace

bool GivesTransformer(const JsonCursor& model) {
  return model.Node().is_object() && (model.Has("transformer") || model.Has("hf_config"));
}

TransformerSpec ReadTransformerModel(const JsonCursor& model) {
  if (model.Has("hf_config")) return ReadHfModel(model);
  model.ExpectObject({"transformer"});
  return ReadSpec(model.Child("transformer"));
}

nlohmann::json TransformerSpecToJson(const TransformerSpec& spec) {
  nlohmann::json out = {{"name", spec.name},
                        {"layers", spec.layers},
                        {"hidden", spec.hidden},
                        {"heads", spec.heads},
                        {"vocab", spec.vocab},
                        {"gated_mlp", spec.gated_mlp},
                        {"activation", ToString(spec.activation)},
                        {"norm", ToString(spec.norm)},
                        {"qkv_bias", spec.qkv_bias},
                        {"output_bias", spec.output_bias},
                        {"mlp_bias", spec.mlp_bias},
                        {"qk_norm", spec.qk_norm},
                        {"tied_embeddings", spec.tied_embeddings},
                        {"positions", ToString(spec.positions)},
                        {"token_types", spec.token_types},
                        {"embedding_norm", spec.embedding_norm},
                        {"causal", spec.causal},
                        {"sliding_window", spec.sliding_window},
                        {"rows", ToString(spec.rows)},
                        {"mtp_layers", spec.mtp_layers}};
  if (spec.ffn > 0) out["ffn"] = spec.ffn;
  if (spec.positions == PositionKind::kLearned) out["max_positions"] = spec.max_positions;
  if (spec.mla) {
    const MlaSpec& m = *spec.mla;
    out["mla"] = {{"q_lora_rank", m.q_lora_rank},
                  {"kv_lora_rank", m.kv_lora_rank},
                  {"qk_nope_head_dim", m.qk_nope_head_dim},
                  {"qk_rope_head_dim", m.qk_rope_head_dim},
                  {"v_head_dim", m.v_head_dim}};
  } else {
    out["kv_heads"] = spec.KvHeads();
    out["head_dim"] = spec.HeadDim();
  }
  if (spec.moe) {
    const MoeSpec& m = *spec.moe;
    out["moe"] = {{"experts", m.experts},
                  {"top_k", m.top_k},
                  {"expert_ffn", m.expert_ffn},
                  {"shared_experts", m.shared_experts},
                  {"first_dense_layers", m.first_dense_layers},
                  {"layer_frequency", m.layer_frequency},
                  {"dense_layers", m.dense_layers},
                  {"router_bias", m.router_bias}};
    if (m.shared_experts > 0) out["moe"]["shared_expert_ffn"] = m.shared_expert_ffn;
  }
  return out;
}

void ResolveModelFilePaths(nlohmann::json& document, const std::string& scenario_path) {
  if (!document.is_object()) return;
  auto workload = document.find("workload");
  if (workload == document.end() || !workload->is_object()) return;
  auto training = workload->find("training");
  if (training == workload->end() || !training->is_object()) return;
  auto model = training->find("model");
  if (model == training->end() || !model->is_object()) return;
  auto config = model->find("hf_config");
  if (config == model->end() || !config->is_string()) return;
  const std::filesystem::path path(config->get<std::string>());
  const std::filesystem::path directory = std::filesystem::path(scenario_path).parent_path();
  if (path.is_relative() && !path.empty() && !directory.empty()) {
    *config = (directory / path).lexically_normal().string();
  }
}

}  // namespace hfsim
