// "workload": {"graph": {...}}: an execution graph written by hand (docs/graph.md), for small
// jobs that no generator makes and for checking an engine by hand. Internal to the loader:
// throws JsonPathError naming the node at fault.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "sim/scenario/json-cursor.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Most nodes a graph may hold, per program and in all (the Chakra importer checks it too).
inline constexpr uint64_t kMaxGraphNodes = uint64_t{1} << 22;

/// Reads the graph (scenario.dimensions and the npu section must already be read) and checks
/// what needs no other section: ids, dependencies (no cycle), ranks, groups, matching
/// collectives, sends and receives (workloads/graph/graph-check.h). The rest (algorithms on
/// each group, circular waits, groups the engines can price) needs the whole scenario: the
/// loader places the graph (workloads/graph/placed-graph.h) once every section is read.
ExecutionGraph ReadGraphSection(const JsonCursor& section, const Scenario& scenario);

/// {"graph": {...}} for the report's echo of the scenario: reads back as the same graph.
nlohmann::json GraphSectionToJson(const ExecutionGraph& graph);

}  // namespace hfsim
