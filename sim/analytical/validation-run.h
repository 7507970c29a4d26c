// One validation scenario through the analytical engine: its measured quantities next to what
// hfsim predicts for them (`hfsim validate`, docs/validation.md).
#pragma once

#include <string>
#include <vector>

#include "sim/report/validation-report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// How a scenario file fared.
enum class ValidationOutcome {
  kPredicted,  ///< every row predicted
  kSkipped,    ///< no "validation" block: not a validation scenario
  kRefused,    ///< not read or refused by the loader (bad input)
  kRunFailed,  ///< loaded, but the engine failed
};

struct ValidationFile {
  ValidationOutcome outcome = ValidationOutcome::kPredicted;
  std::vector<ValidationRow> rows;
  /// The loader's or the engine's message (refused, run failed).
  std::string message;
};

/// The rows of a loaded scenario with a validation block, named `name`, predicted by the
/// analytical engine whatever the scenario's engine (it throws what the engine throws).
std::vector<ValidationRow> PredictValidation(const std::string& name, const Scenario& scenario);

/// Loads the scenario file at `path` and predicts its rows. A file that fails to load (and
/// holds a validation block, or is not JSON) or to run gives one row per quantity it measures
/// (one row with no quantity when those cannot be read), each with the message.
ValidationFile ValidateScenarioFile(const std::string& path);

/// The device the scenario's job runs on, as the plot labels it: today its dense peak.
std::string DeviceLabel(const Scenario& scenario);

}  // namespace hfsim
