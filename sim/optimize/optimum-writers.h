// What `hfsim optimize` prints and writes: the summary table, optimum.json and frontier.csv
// (its picture: optimum-plots.h). Times in ns (the table in ms), money in $, bandwidth in
// GB/s per NPU.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/optimize/optimizer.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Per dimension the optimal and equal-split GB/s, then time, cost, bound, gap and speedup.
std::string OptimumTable(const OptimizeOutcome& outcome, const Scenario& scenario);
/// Allocation, time, cost, bound, gap, objective, equal-split comparison, frontier and the
/// scenario echo (sim/scenario/scenario-parser.h, ScenarioToJson).
nlohmann::json OptimumToJson(const OptimizeOutcome& outcome, const Scenario& scenario);
/// Header cost_usd,time_ns,time_x_cost_ns_usd,B0_GBps,...; one row per frontier point (for objectives
/// other than time_x_cost, the single optimum).
std::string FrontierCsv(const OptimizeOutcome& outcome, const Scenario& scenario);

}  // namespace hfsim
