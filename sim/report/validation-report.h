// What `hfsim validate` reports: one row per measured quantity of each validation scenario,
// predicted or failed, as the printed table, validation.csv and their summary (mean |error|,
// worst). Columns and sign conventions: docs/validation.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hfsim {

struct ValidationRow {
  /// The scenario file's name without ".json".
  std::string scenario;
  /// "iteration_s", ... (sim/scenario/validation-spec.h); empty when the file failed before
  /// its quantities could be read.
  std::string quantity;
  std::optional<double> measured;
  std::optional<double> predicted;
  /// The accelerator the job ran on, for the plot's series.
  std::string device;
  /// Why there is no prediction (the loader's or the engine's message); empty when predicted.
  std::string failure;

  /// (predicted - measured) / measured x 100: above 0 when hfsim's figure is the larger (a
  /// slower iteration, or a higher throughput); nullopt without both.
  std::optional<double> ErrorPercent() const;
};

struct ValidationSummary {
  size_t rows = 0;
  size_t predicted = 0;
  size_t failed = 0;
  /// Over the predicted rows.
  double mean_abs_error_percent = 0.0;
  size_t within_5_percent = 0;
  /// The predicted row with the largest |error|, the first of equals; nullopt when none.
  std::optional<size_t> worst;
};

ValidationSummary Summarise(const std::vector<ValidationRow>& rows);

/// validation.csv: scenario,quantity,measured,predicted,error_percent; a failed row leaves
/// what it lacks empty.
std::string ValidationCsv(const std::vector<ValidationRow>& rows);

/// The table `hfsim validate` prints, then its summary lines.
std::string ValidationTable(const std::vector<ValidationRow>& rows);

}  // namespace hfsim
