#include "sim/report/validation-report.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/report/number-text.h"
#include "sim/report/report-csv.h"

namespace hfsim {

std::optional<double> ValidationRow::ErrorPercent() const {
  if (!measured || !predicted) return std::nullopt;
  return (*predicted - *measured) / *measured * 100.0;
}

ValidationSummary Summarise(const std::vector<ValidationRow>& rows) {
  ValidationSummary s;
  s.rows = rows.size();
  double sum = 0.0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::optional<double> error = rows[i].ErrorPercent();
    if (!error) {
      ++s.failed;
      continue;
    }
    ++s.predicted;
    sum += std::abs(*error);
    if (std::abs(*error) <= 5.0) ++s.within_5_percent;
    if (!s.worst || std::abs(*error) > std::abs(*rows[*s.worst].ErrorPercent())) s.worst = i;
  }
  if (s.predicted > 0) s.mean_abs_error_percent = sum / static_cast<double>(s.predicted);
  return s;
}

std::string ValidationCsv(const std::vector<ValidationRow>& rows) {
  std::string out = "scenario,quantity,measured,predicted,error_percent\n";
  auto number = [](const std::optional<double>& v) { return v ? NumberText(*v) : std::string(); };
  for (const ValidationRow& row : rows) {
    out += fmt::format("{},{},{},{},{}\n", CsvField(row.scenario), row.quantity,
                       number(row.measured), number(row.predicted), number(row.ErrorPercent()));
  }
  return out;
}

std::string ValidationTable(const std::vector<ValidationRow>& rows) {
  size_t name_width = 9;
  for (const ValidationRow& row : rows) name_width = std::max(name_width, row.scenario.size() + 2);
  std::string out = fmt::format("{:<{}}{:<22}{:>12}{:>12}{:>10}\n", "scenario", name_width,
                                "quantity", "measured", "predicted", "error");
  auto number = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.4g}", *v) : std::string("-");
  };
  for (const ValidationRow& row : rows) {
    const std::optional<double> error = row.ErrorPercent();
    out += fmt::format("{:<{}}{:<22}{:>12}{:>12}{:>10}\n", row.scenario, name_width,
                       row.quantity.empty() ? "-" : row.quantity, number(row.measured),
                       number(row.predicted),
                       error ? fmt::format("{:+.1f} %", *error) : std::string("failed"));
  }
  const ValidationSummary s = Summarise(rows);
  out += "\n";
  if (s.worst) {
    const ValidationRow& worst = rows[*s.worst];
    out += fmt::format(
        "{} row{} predicted: mean |error| {:.1f} %, worst {:+.1f} % ({}, {}), {} within 5 %\n",
        s.predicted, s.predicted == 1 ? "" : "s", s.mean_abs_error_percent, *worst.ErrorPercent(),
        worst.scenario, worst.quantity, s.within_5_percent);
  }
  if (s.failed > 0) {
    out += fmt::format("{} row{} failed:\n", s.failed, s.failed == 1 ? "" : "s");
    for (const ValidationRow& row : rows) {
      if (row.ErrorPercent()) continue;
      out += fmt::format("  {}{}: {}\n", row.scenario,
                         row.quantity.empty() ? "" : " " + row.quantity, row.failure);
    }
  }
  return out;
}

}  // namespace hfsim
