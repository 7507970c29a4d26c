// The resource report written next to the generated program: every Tofino limit the spec is
// checked against (TofinoResourceTable, models/aggregation/tofino-resources.h), used versus
// available, plus the layout figures behind them. p4c's front end does not know these limits, so
// this report is what says the program will fit before anyone compiles it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

/// A fixed-width text table: limit, used, available, fits, and the explanation of each line.
std::string ResourceReportText(const AggregationSwitchSpec& spec);
/// The same as JSON: {"generation", "fits", "limits": [...], "layout": {...}}.
nlohmann::json ResourceReportJson(const AggregationSwitchSpec& spec);

}  // namespace hfsim
