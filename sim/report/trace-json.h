// Writes a Timeline as Chrome trace-event JSON ("X" complete events in microseconds, one
// process per rank class named after the ranks it stands for, one thread per track), the
// format Perfetto (ui.perfetto.dev) and chrome://tracing open.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/report/timeline.h"

namespace hfsim {

nlohmann::json TraceJson(const Timeline& timeline);

}  // namespace hfsim
