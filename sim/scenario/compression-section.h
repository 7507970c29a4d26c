// "communication.compression" (S5; docs/compression.md): how gradients travel. Applies to
// parameter_server workloads with a dense model (the software parameter server of S5): every
// key's values are pushed and pulled at the scheme's wire sizes (models/compression/wire-size.h),
// in both engines. Internal to the loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "models/compression/wire-size.h"
#include "sim/scenario/json-cursor.h"

namespace hfsim {

struct Scenario;

/// Reads the object: "scheme" ("none", "fp16", "top_k", "thc"), "top_k_fraction", and "thc"
/// ({"bits", "granularity", "clip", "block"}).
CompressionChoice ReadCompression(const JsonCursor& section);
nlohmann::json CompressionToJson(const CompressionChoice& choice);

/// Refuses compression where it does not apply (any workload but a dense parameter_server one
/// without an "aggregation" section) and, where it does, makes the workload's keys travel at the
/// compressed sizes.
void ApplyCompression(const JsonCursor& root, Scenario& scenario);

}  // namespace hfsim
