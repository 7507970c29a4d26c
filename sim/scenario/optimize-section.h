// The "cost" and "optimize" sections of a scenario (sim/scenario/optimize-spec.h). Internal to the
// loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "cost" and "optimize" (either may be null: defaults). scenario.dimensions must be read.
void ReadOptimizeSections(const JsonCursor* cost, const JsonCursor* optimize, Scenario& scenario);
/// Adds "cost" and "optimize" to the echo `out`, each only when the scenario gave it.
void AddOptimizeSectionsToJson(const OptimizeSpec& spec, nlohmann::json& out);

}  // namespace hfsim
