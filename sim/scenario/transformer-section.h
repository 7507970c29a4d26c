// workload.training.model given by hyper-parameters: {"transformer": {...}} written out, or
// {"hf_config": "path/config.json"} read from a Hugging Face config (workloads/hf-config.h).
// Internal to the loader: throws JsonPathError, which ParseScenario turns into an Expected.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/json-cursor.h"
#include "workloads/transformer-spec.h"

namespace hfsim {

/// Whether `model` (workload.training.model, an object) gives hyper-parameters rather than
/// layers: it has "transformer" or "hf_config".
bool GivesTransformer(const JsonCursor& model);

/// The spec `model` gives: its "transformer" object, every problem named by its JSON path; or
/// its "hf_config" file (and optional "name"), every problem named by the key's path, the file
/// and the config's key.
TransformerSpec ReadTransformerModel(const JsonCursor& model);

/// The spec as a "transformer" object with every key explicit: reading it back builds the same
/// model (so the echo runs without the config file).
nlohmann::json TransformerSpecToJson(const TransformerSpec& spec);

/// In a scenario document read from `scenario_path`: a relative
/// workload.training.model.hf_config made relative to the scenario file's directory, as the
/// file's author meant it (the loader then reads it from the working directory).
void ResolveModelFilePaths(nlohmann::json& document, const std::string& scenario_path);

}  // namespace hfsim
