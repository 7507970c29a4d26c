// The report as CSV tables, for spreadsheets and for appending runs of a sweep together:
//   summary.csv      one row: the scenario's name and the iteration's totals
//   dimensions.csv   one row per topology dimension
//   collectives.csv  one row per distinct collective
//   links.csv        (packet and flow engines) one row per directed fabric link
// Columns are documented in docs/report.md; numbers are written in full precision.
#pragma once

#include <string>
#include <string_view>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// `text` as a CSV field: as is, or double-quoted (a quote inside doubled) when it holds a
/// separator, quote or line break.
std::string CsvField(std::string_view text);

std::string SummaryCsv(const Report& report, const Scenario& scenario);
std::string DimensionsCsv(const Report& report);
std::string CollectivesCsv(const Report& report);
/// Packet engine only: one row per directed fabric link (links.csv).
std::string LinksCsv(const PacketReport& packet);
/// Flow engine only: one row per directed fabric link (links.csv): bytes, utilisation and the
/// most flows that shared it.
std::string LinksCsv(const FlowReport& flow);

}  // namespace hfsim
