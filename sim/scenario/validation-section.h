// The "validation" block of a scenario (sim/scenario/validation-spec.h). Internal to the loader
// (throws JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "validation"; the workload must be read (what is measured must be something the
/// workload has).
void ReadValidationSection(const JsonCursor& section, Scenario& scenario);

/// The block as the echo writes it.
nlohmann::json ValidationSectionToJson(const ValidationSpec& spec);

}  // namespace hfsim
