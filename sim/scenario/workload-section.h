// The "workload" section of a scenario (scenario-parser.cc handles the rest). Internal to the
// loader: throws JsonPathError, which ParseScenario turns into an Expected.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "workload" into scenario (scenario.dimensions must already be read).
void ReadWorkloadSection(const JsonCursor& workload, Scenario& scenario);
/// Reads the "npu" section into the training config (peak and efficiency).
void ReadNpuSection(const JsonCursor* npu, Scenario& scenario);

nlohmann::json WorkloadSectionToJson(const Scenario& scenario);
nlohmann::json NpuSectionToJson(const Scenario& scenario);

}  // namespace hfsim
