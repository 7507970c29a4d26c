// "workload.parameter_server.convergence" (S5's time to accuracy; docs/compression.md): the
// learning task, classifier and schedule the workers train to a target accuracy, with the
// scenario's compression. Internal to the loader (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads the object (scenario.seed and parameter_server must already be read).
ConvergenceSpec ReadConvergenceSection(const JsonCursor& section, const Scenario& scenario);
nlohmann::json ConvergenceToJson(const ConvergenceSpec& convergence);

}  // namespace hfsim
