// The "aggregation" section of a scenario: the in-network aggregation switch spec
// (models/aggregation/aggregation-spec.h), checked against its Tofino generation's limits.
// Internal to the loader (throws JsonPathError). Keys: docs/aggregation.md.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Reads "aggregation" into scenario.aggregation; a spec that does not fit its Tofino generation
/// fails at the key that drives the first limit exceeded.
void ReadAggregationSection(const JsonCursor& section, Scenario& scenario);
/// The section with every default written out.
nlohmann::json AggregationSectionToJson(const AggregationSwitchSpec& spec);

}  // namespace hfsim
