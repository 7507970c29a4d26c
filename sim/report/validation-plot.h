// validation.png: every predicted row of `hfsim validate` as a point, predicted against measured
// on log-log axes (rows of different units share them: a perfect prediction lies on y = x
// whatever its unit), with the y = x line and the +/-5 % band; points coloured by the device
// the run used and shaped by the quantity.
#pragma once

#include <vector>

#include "sim/report/gnuplot-script.h"
#include "sim/report/validation-report.h"

namespace hfsim {

/// validation.gp drawing validation.png, or a note saying why there is no picture (no row was
/// predicted).
PlotSet ValidationPlot(const std::vector<ValidationRow>& rows);

}  // namespace hfsim
