// The "sweep" section of a scenario (sim/scenario/sweep-spec.h). Internal to the loader (throws
// JsonPathError).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "sweep"; scenario.dimensions must be read.
void ReadSweepSection(const JsonCursor& section, Scenario& scenario);
/// Adds "sweep" to the echo `out` when the scenario gave it.
void AddSweepSectionToJson(const SweepSpec& spec, nlohmann::json& out);

/// `value` rounded to 12 significant digits, so that 0.1 + 2 * 0.1 is 0.3 and every run (and
/// every MPI rank) computes the same allocation values.
double RoundSweepValue(double value);

/// Splits a path in the loader's form ("topology.dimensions[0].size") into a JSON pointer
/// ("/topology/dimensions/0/size"); nullopt when it is malformed.
std::optional<nlohmann::json::json_pointer> PathToPointer(const std::string& path);

}  // namespace hfsim
