#include "workloads/hf-config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace hfsim {
namespace {

using nlohmann::json;

// The types read, with the class their "architectures" names (transformers' *ForCausalLM).
const std::vector<std::pair<std::string, std::string>>& Types() {
  static const std::vector<std::pair<std::string, std::string>> types = {
      {"llama", "LlamaForCausalLM"},
      {"mistral", "MistralForCausalLM"},
      {"mixtral", "MixtralForCausalLM"},
      {"qwen2", "Qwen2ForCausalLM"},
      {"qwen3", "Qwen3ForCausalLM"},
      {"qwen3_moe", "Qwen3MoeForCausalLM"},
      {"deepseek_v3", "DeepseekV3ForCausalLM"},
  };
  return types;
}

// A non-negative JSON integer (a parser makes it unsigned, a program may make it signed).
std::optional<uint64_t> Count(const json& node) {
  if (node.is_number_unsigned()) return node.get<uint64_t>();
  if (node.is_number_integer() && node.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(node.get<int64_t>());
  }
  return std::nullopt;
}

struct Refusal {
  std::string key;
  std::string message;
};

// Reads keys of one config, refusing (by throwing a Refusal, caught in ReadHfConfig) a value
// of the wrong type; remembers which key gave each spec field, so that CheckTransformerSpec's
// problems can name it.
class Reader {
 public:
  explicit Reader(const json& config) : m_config(config) {}

  bool Has(const char* key) const { return m_config.contains(key) && !m_config[key].is_null(); }

  uint64_t Required(const char* key, const char* field) {
    if (!Has(key)) throw Refusal{key, "missing; accepted: a non-negative integer"};
    return Integer(key, field);
  }
  uint64_t Optional(const char* key, const char* field, uint64_t otherwise) {
    if (!Has(key)) return otherwise;
    return Integer(key, field);
  }
  bool Bool(const char* key, bool otherwise) const {
    if (!Has(key)) return otherwise;
    if (!m_config[key].is_boolean()) {
      throw Refusal{key, fmt::format("got {}; accepted: true or false", Shown(key))};
    }
    return m_config[key].get<bool>();
  }
  std::optional<std::string> String(const char* key) const {
    if (!Has(key)) return std::nullopt;
    if (!m_config[key].is_string()) {
      throw Refusal{key, fmt::format("got {}; accepted: a string", Shown(key))};
    }
    return m_config[key].get<std::string>();
  }
  std::vector<uint32_t> IndexList(const char* key) const {
    std::vector<uint32_t> list;
    if (!Has(key)) return list;
    const json& node = m_config[key];
    if (!node.is_array()) throw Refusal{key, fmt::format("got {}; accepted: a list", Shown(key))};
    for (const json& entry : node) {
      if (!Count(entry) || *Count(entry) > (uint64_t{1} << 31)) {
        throw Refusal{key, fmt::format("holds {}; accepted: layer indices", entry.dump())};
      }
      list.push_back(static_cast<uint32_t>(*Count(entry)));
    }
    return list;
  }
  void Origin(const char* field, const char* key) { m_origin[field] = key; }
  std::string KeyOf(const std::string& field) const {
    auto it = m_origin.find(field);
    return it == m_origin.end() ? field : it->second;
  }
  std::string Shown(const char* key) const {
    std::string text = m_config[key].dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }

 private:
  // A JSON integer (not 4096.0, not a string) below 2^32, which every count here is.
  uint64_t Integer(const char* key, const char* field) {
    const std::optional<uint64_t> value = Count(m_config[key]);
    if (!value || *value > UINT32_MAX) {
      throw Refusal{
          key, fmt::format("got {}; accepted: an integer from 0 to {}", Shown(key), UINT32_MAX)};
    }
    if (field != nullptr) m_origin[field] = key;
    return *value;
  }

  const json& m_config;
  std::map<std::string, std::string> m_origin;
};

Activation ReadActivation(const Reader& r) {
  const std::optional<std::string> name = r.String("hidden_act");
  if (!name || *name == "silu" || *name == "swish") return Activation::kSilu;
  if (*name == "gelu") return Activation::kGelu;
  if (*name == "gelu_new" || *name == "gelu_pytorch_tanh" || *name == "gelu_fast") {
    return Activation::kGeluTanh;
  }
  if (*name == "relu") return Activation::kRelu;
  throw Refusal{"hidden_act", fmt::format("got \"{}\"; accepted: \"silu\", \"gelu\", \"gelu_new\", "
                                          "\"gelu_pytorch_tanh\", \"gelu_fast\" or \"relu\"",
                                          *name)};
}

// What the Llama-family types share: hidden size, layers, heads, grouped key/value heads (none
// given: as many as heads, as Llama 1), head width, vocabulary, the MLP's width and function,
// RMSNorm, rotary positions and a tied or untied head.
TransformerSpec ReadLlamaLike(Reader& r, const std::string& type, uint64_t default_head_dim) {
  TransformerSpec spec;
  spec.hidden = r.Required("hidden_size", "hidden");
  spec.layers = static_cast<uint32_t>(r.Required("num_hidden_layers", "layers"));
  spec.heads = static_cast<uint32_t>(r.Required("num_attention_heads", "heads"));
  spec.kv_heads = static_cast<uint32_t>(r.Optional("num_key_value_heads", "kv_heads", 0));
  spec.head_dim = r.Optional("head_dim", "head_dim", default_head_dim);
  spec.vocab = r.Required("vocab_size", "vocab");
  spec.ffn = r.Required("intermediate_size", "ffn");
  spec.activation = ReadActivation(r);
  spec.tied_embeddings = r.Bool("tie_word_embeddings", false);
  if (type == "qwen2") {
    spec.qkv_bias = true;  // Qwen2Attention: q, k and v with biases, o without
  } else if (type != "mistral" && type != "mixtral") {
    spec.qkv_bias = spec.output_bias = r.Bool("attention_bias", false);
  }
  if (type == "llama") spec.mlp_bias = r.Bool("mlp_bias", false);
  if (type == "qwen3" || type == "qwen3_moe") spec.qk_norm = true;
  if (type == "mistral" || type == "mixtral") {
    spec.sliding_window = r.Optional("sliding_window", nullptr, 0);
    r.Origin("sliding_window", "sliding_window");
  }
  if ((type == "qwen2" || type == "qwen3" || type == "qwen3_moe") &&
      r.Bool("use_sliding_window", false)) {
    throw Refusal{"use_sliding_window",
                  "true: sliding-window attention on some layers (max_window_layers) is not "
                  "modelled; accepted: false"};
  }
  return spec;
}

void ReadMixtral(Reader& r, TransformerSpec& spec) {
  MoeSpec& moe = spec.moe.emplace();
  moe.experts = static_cast<uint32_t>(r.Required("num_local_experts", "moe.experts"));
  moe.top_k = static_cast<uint32_t>(r.Required("num_experts_per_tok", "moe.top_k"));
  moe.expert_ffn = spec.ffn;  // intermediate_size is each expert's width
  r.Origin("moe.expert_ffn", "intermediate_size");
  spec.ffn = 0;
}

// Qwen3-MoE (Qwen3MoeDecoderLayer): layer i has experts when it is not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0; the others a dense MLP of intermediate_size.
void ReadQwen3Moe(Reader& r, TransformerSpec& spec) {
  const uint64_t experts = r.Optional("num_experts", "moe.experts", 0);
  if (experts == 0) return;  // a dense model
  MoeSpec& moe = spec.moe.emplace();
  moe.experts = static_cast<uint32_t>(experts);
  moe.top_k = static_cast<uint32_t>(r.Required("num_experts_per_tok", "moe.top_k"));
  moe.expert_ffn = r.Required("moe_intermediate_size", "moe.expert_ffn");
  const uint64_t step = r.Optional("decoder_sparse_step", nullptr, 1);
  if (step == 0) throw Refusal{"decoder_sparse_step", "got 0; accepted: 1 or more"};
  moe.dense_layers = r.IndexList("mlp_only_layers");
  for (uint32_t i = 0; i < spec.layers; ++i) {
    const bool listed =
        std::find(moe.dense_layers.begin(), moe.dense_layers.end(), i) != moe.dense_layers.end();
    if ((i + 1) % step != 0 && !listed) moe.dense_layers.push_back(i);
  }
  std::sort(moe.dense_layers.begin(), moe.dense_layers.end());
  r.Origin("moe.dense_layers", "mlp_only_layers");
  r.Origin("moe", "mlp_only_layers");
}

// DeepSeek-V3 (DeepseekV3ForCausalLM): latent attention, dense layers before
// first_k_dense_replace, then every moe_layer_freq-th layer with shared and routed experts.
TransformerSpec ReadDeepSeekV3(Reader& r) {
  TransformerSpec spec;
  spec.hidden = r.Required("hidden_size", "hidden");
  spec.layers = static_cast<uint32_t>(r.Required("num_hidden_layers", "layers"));
  spec.heads = static_cast<uint32_t>(r.Required("num_attention_heads", "heads"));
  spec.kv_heads = static_cast<uint32_t>(r.Optional("num_key_value_heads", "kv_heads", 0));
  spec.vocab = r.Required("vocab_size", "vocab");
  spec.ffn = r.Required("intermediate_size", "ffn");
  spec.activation = ReadActivation(r);
  spec.tied_embeddings = r.Bool("tie_word_embeddings", false);
  if (r.Bool("attention_bias", false)) {
    throw Refusal{"attention_bias",
                  "true: biases in latent attention are not modelled; "
                  "accepted: false"};
  }
  MlaSpec& mla = spec.mla.emplace();
  mla.q_lora_rank = r.Optional("q_lora_rank", "mla.q_lora_rank", 0);
  mla.kv_lora_rank = r.Required("kv_lora_rank", "mla.kv_lora_rank");
  mla.qk_nope_head_dim = r.Required("qk_nope_head_dim", "mla.qk_nope_head_dim");
  mla.qk_rope_head_dim = r.Required("qk_rope_head_dim", "mla.qk_rope_head_dim");
  mla.v_head_dim = r.Required("v_head_dim", "mla.v_head_dim");
  MoeSpec& moe = spec.moe.emplace();
  moe.experts = static_cast<uint32_t>(r.Required("n_routed_experts", "moe.experts"));
  moe.top_k = static_cast<uint32_t>(r.Required("num_experts_per_tok", "moe.top_k"));
  moe.expert_ffn = r.Required("moe_intermediate_size", "moe.expert_ffn");
  moe.shared_experts =
      static_cast<uint32_t>(r.Optional("n_shared_experts", "moe.shared_experts", 0));
  moe.shared_expert_ffn = moe.expert_ffn;
  r.Origin("moe.shared_expert_ffn", "moe_intermediate_size");
  moe.first_dense_layers =
      static_cast<uint32_t>(r.Optional("first_k_dense_replace", "moe.first_dense_layers", 0));
  moe.layer_frequency =
      static_cast<uint32_t>(r.Optional("moe_layer_freq", "moe.layer_frequency", 1));
  r.Origin("moe", "first_k_dense_replace");
  // The router's per-expert bias of the auxiliary-loss-free balancing (e_score_correction_bias)
  // comes with topk_method "noaux_tc", which transformers' own DeepseekV3 always has.
  const std::optional<std::string> method = r.String("topk_method");
  if (method && *method != "noaux_tc" && *method != "greedy" && *method != "group_limited_greedy") {
    throw Refusal{"topk_method", fmt::format("got \"{}\"; accepted: \"noaux_tc\", \"greedy\" or "
                                             "\"group_limited_greedy\"",
                                             *method)};
  }
  moe.router_bias = !method || *method == "noaux_tc";
  spec.mtp_layers = static_cast<uint32_t>(r.Optional("num_nextn_predict_layers", "mtp_layers", 0));
  return spec;
}

// The model type: "model_type", checked against "architectures" when both are given.
std::string ReadType(const json& config, const Reader& r) {
  std::optional<std::string> type = r.String("model_type");
  std::optional<std::string> architecture;
  if (r.Has("architectures")) {
    const json& list = config["architectures"];
    if (!list.is_array() || list.empty() || !list[0].is_string()) {
      throw Refusal{"architectures", fmt::format("got {}; accepted: a list of class names",
                                                 r.Shown("architectures"))};
    }
    architecture = list[0].get<std::string>();
  }
  std::vector<std::string> accepted;
  for (const auto& [name, _] : Types()) accepted.push_back(fmt::format("\"{}\"", name));
  if (!type) {
    if (!architecture) {
      throw Refusal{"model_type", fmt::format("missing (and no \"architectures\"); accepted: {}",
                                              fmt::join(accepted, ", "))};
    }
    for (const auto& [name, class_name] : Types()) {
      if (class_name == *architecture) type = name;
    }
    if (!type) {
      throw Refusal{"architectures",
                    fmt::format("\"{}\" is not a model hfsim reads (and \"model_type\" is "
                                "missing); accepted model types: {}",
                                *architecture, fmt::join(accepted, ", "))};
    }
  }
  auto it = std::find_if(Types().begin(), Types().end(),
                         [&](const auto& entry) { return entry.first == *type; });
  if (it == Types().end()) {
    throw Refusal{"model_type", fmt::format("got \"{}\", which hfsim does not read; accepted: {}",
                                            *type, fmt::join(accepted, ", "))};
  }
  if (architecture && *architecture != it->second) {
    throw Refusal{"architectures",
                  fmt::format("got \"{}\"; accepted for model_type \"{}\": \"{}\" (the causal "
                              "language model, whose LM head hfsim counts)",
                              *architecture, *type, it->second)};
  }
  return *type;
}

TransformerSpec Read(const json& config, Reader& r) {
  if (!config.is_object()) throw Refusal{"", "is not a JSON object; accepted: a config.json"};
  const std::string type = ReadType(config, r);
  if (type == "deepseek_v3") return ReadDeepSeekV3(r);
  // transformers' Qwen3Config and Qwen3MoeConfig default head_dim to 128; the others to
  // hidden_size / num_attention_heads.
  const bool qwen3 = type == "qwen3" || type == "qwen3_moe";
  TransformerSpec spec = ReadLlamaLike(r, type, qwen3 ? 128 : 0);
  if (type == "mixtral") ReadMixtral(r, spec);
  if (type == "qwen3_moe") ReadQwen3Moe(r, spec);
  return spec;
}

}  // namespace

const std::vector<std::string>& HfModelTypes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const auto& [name, _] : Types()) result.push_back(name);
    return result;
  }();
  return names;
}

HfConfigRead ReadHfConfig(const nlohmann::json& config, const std::string& name) {
  Reader reader(config);
  HfConfigRead result;
  try {
    TransformerSpec spec = Read(config, reader);
    spec.name = name;
    if (std::optional<SpecProblem> problem = CheckTransformerSpec(spec)) {
      result.problem = {reader.KeyOf(problem->field), problem->message};
      return result;
    }
    result.spec = std::move(spec);
  } catch (const Refusal& refusal) {
    result.problem = {refusal.key, refusal.message};
  }
  return result;
}

}  // namespace hfsim
