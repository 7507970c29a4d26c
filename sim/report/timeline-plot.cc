#include "sim/report/timeline-plot.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/report/gnuplot-script.h"

namespace hfsim {

namespace {

const char* Colour(const TimelineSpan& span) {
  if (span.category == "compute") return "0x4472c4";
  if (span.track.rfind("dimension ", 0) == 0) return "0xf4b183";  // what a dimension is busy with
  if (span.category == "collective") return "0xed7d31";
  return "0x70ad47";  // send, receive
}

}  // namespace

std::optional<std::string> GanttPlotScript(const Timeline& timeline, const std::string& title,
                                           const std::string& png_name) {
  if (timeline.spans.size() > kMaxGanttSpans) return std::nullopt;
  // Rows in class order, then track order.
  std::map<std::pair<uint32_t, int>, std::string> tracks;
  for (const TimelineSpan& span : timeline.spans) {
    tracks.emplace(std::pair(span.rank_class, TrackOrder(span.track)), span.track);
  }
  if (tracks.empty() || tracks.size() > kMaxGanttRows) return std::nullopt;
  std::map<std::pair<uint32_t, int>, int> row_of;
  std::vector<std::pair<std::string, double>> ticks;
  for (const auto& [key, track] : tracks) {
    const int row = static_cast<int>(row_of.size());
    row_of[key] = row;
    ticks.emplace_back(fmt::format("{}: {}", RanksLabel(timeline.classes[key.first].ranks), track), row);
  }
  std::string rows;
  for (const TimelineSpan& span : timeline.spans) {
    const int row = row_of.at({span.rank_class, TrackOrder(span.track)});
    const double half_ms = span.duration_ns / 2e6;
    rows += fmt::format("{} {} {} 0.35 {}\n", span.start_ns / 1e6 + half_ms, row, half_ms,
                        Colour(span));
  }
  const int height = std::max(300, 120 + 28 * static_cast<int>(tracks.size()));
  return GnuplotHeader(png_name, 1200, height) + DataBlock("spans", rows) +
         fmt::format(
             "set title {}\nset xlabel 'ms'\nset grid xtics\nset key off\n"
             "set yrange [{}:-0.6]\n{}"
             "set xrange [0:{}]\n"
             "plot $spans using 1:2:3:4:5 with boxxyerror fillcolor rgb variable "
             "fillstyle solid 0.85 noborder\n",
             GnuplotQuoted(title), static_cast<double>(tracks.size()) - 0.4,
             TicsLabelled("y", ticks), std::max(timeline.total_ns / 1e6, 1e-9));
}

}  // namespace hfsim
