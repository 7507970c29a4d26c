#include "sim/report/validation-plot.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/report/number-text.h"
#include "sim/scenario/validation-spec.h"

namespace hfsim {

namespace {

// Filled circle, square, triangle and diamond, one per quantity in enum order.
constexpr std::array<int, 4> kQuantityPoints = {7, 5, 9, 13};

int PointType(const std::string& quantity) {
  for (size_t q = 0; q < kValidationQuantityNames.size(); ++q) {
    if (kValidationQuantityNames[q] == quantity) return kQuantityPoints[q];
  }
  return 6;  // an open circle: a quantity this picture does not know
}

}  // namespace

PlotSet ValidationPlot(const std::vector<ValidationRow>& rows) {
  PlotSet set;
  // The devices in order of first appearance (rows come in file order), one series each.
  std::vector<std::string> devices;
  std::vector<std::string> blocks;
  std::vector<bool> quantities_seen(kValidationQuantityNames.size() + 1, false);
  Span values;
  for (const ValidationRow& row : rows) {
    if (!row.ErrorPercent()) continue;
    auto at = std::find(devices.begin(), devices.end(), row.device);
    if (at == devices.end()) {
      devices.push_back(row.device);
      blocks.emplace_back();
      at = devices.end() - 1;
    }
    blocks[static_cast<size_t>(at - devices.begin())] +=
        fmt::format("{} {} {} {} {}\n", DataLabel(row.scenario), DataLabel(row.quantity),
                    NumberText(*row.measured), NumberText(*row.predicted), PointType(row.quantity));
    values.Add(*row.measured);
    values.Add(*row.predicted);
    const auto q =
        std::find(kValidationQuantityNames.begin(), kValidationQuantityNames.end(), row.quantity) -
        kValidationQuantityNames.begin();
    quantities_seen[static_cast<size_t>(q)] = true;
  }
  if (devices.empty()) {
    set.notes.push_back("no validation.png: no row was predicted");
    return set;
  }
  const ValidationSummary summary = Summarise(rows);
  std::string script = GnuplotHeader("validation.png", 900, 820);
  script += fmt::format(
      "set title {}\n",
      GnuplotQuotedLines(
          {"hfsim validate: predicted against measured",
           fmt::format("{} row{}, mean |error| {:.1f} %, worst {:+.1f} %, {} within 5 %",
                       summary.predicted, summary.predicted == 1 ? "" : "s",
                       summary.mean_abs_error_percent, *rows[*summary.worst].ErrorPercent(),
                       summary.within_5_percent)}));
  script +=
      "set xlabel 'measured (iteration_s: s; tokens_per_s_per_gpu: tokens/s; "
      "model_tflops_per_gpu: TFLOP/s; busbw_GBps: GB/s)'\n"
      "set ylabel 'predicted by hfsim (the same unit)'\n"
      "set size ratio -1\nset grid\nset key top left box opaque\nset samples 400\n";
  // Both axes span every value, so y = x is the diagonal.
  script += LogAxisScale("x", values.low, values.high);
  script += LogAxisScale("y", values.low, values.high);
  for (size_t d = 0; d < devices.size(); ++d) {
    script += DataBlock(fmt::format("device{}", d), blocks[d]);
  }
  script +=
      "plot '+' using 1:($1*0.95):($1*1.05) with filledcurves fillcolor rgb '#d9d9d9' "
      "title 'within 5 %', \\\n"
      "     x with lines dashtype 2 linecolor rgb '#404040' title 'y = x'";
  // Each device's points take their quantity's shape (pointtype variable), which gnuplot's key
  // cannot draw (it shows a dot): the key gets one filled circle per device instead.
  for (size_t d = 0; d < devices.size(); ++d) {
    script += fmt::format(
        ", \\\n     $device{} using 3:4:5 with points pointtype variable pointsize 1.6 "
        "linecolor rgb '{}' notitle",
        d, kSeriesColours[d % kSeriesColours.size()]);
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    script += fmt::format(
        ", \\\n     keyentry with points pointtype 7 pointsize 1.6 linecolor rgb '{}' title {}",
        kSeriesColours[d % kSeriesColours.size()],
        GnuplotQuoted(devices[d].empty() ? "device not given" : devices[d]));
  }
  for (size_t q = 0; q < kValidationQuantityNames.size(); ++q) {
    if (!quantities_seen[q]) continue;
    script += fmt::format(
        ", \\\n     keyentry with points pointtype {} pointsize 1.6 linecolor rgb '#000000' "
        "title {}",
        kQuantityPoints[q], GnuplotQuoted(kValidationQuantityNames[q]));
  }
  script += "\n";
  set.plots.push_back({"validation.gp", "validation.png", std::move(script)});
  return set;
}

}  // namespace hfsim
