// What hfsim's gnuplot scripts share (run's breakdown, sweep's and optimize's pictures): the
// terminal line, quoting, inline data blocks, series colours and explicit tick lists. Each
// script holds its data inline, so it stays self-contained next to its picture.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hfsim {

struct PlotScript {
  std::string script_name;  ///< "heatmap.gp"
  std::string png_name;     ///< "heatmap.png"
  std::string script;
};

/// The pictures a command draws and, for each one it could not draw meaningfully, a sentence
/// saying why (the command prints it instead of writing a picture).
struct PlotSet {
  std::vector<PlotScript> plots;
  std::vector<std::string> notes;
};

/// `text` as a gnuplot string literal: single-quoted, a quote inside doubled.
std::string GnuplotQuoted(std::string_view text);

/// Lines of text as one gnuplot string expression ('first'."\n".'second'): a title on
/// several lines.
std::string GnuplotQuotedLines(const std::vector<std::string>& lines);

/// `text` as a string column of an inline data block: double-quoted (gnuplot's data files know
/// no single quotes and no escapes, so a double quote inside becomes a single one).
std::string DataLabel(std::string_view text);

/// The terminal and output lines. noenhanced for every text: titles and labels carry
/// identifiers (time_x_cost, size_MiB, scenario names) that enhanced text would typeset with
/// subscripts and superscripts.
std::string GnuplotHeader(std::string_view png, int width, int height);

/// `$name << EOD`, the rows (each ending in a newline), `EOD`.
std::string DataBlock(std::string_view name, std::string_view rows);

/// Colours of successive series (lines, point sets), in order.
inline constexpr std::array<const char*, 8> kSeriesColours = {
    "#4472c4", "#ed7d31", "#70ad47", "#7030a0", "#c00000", "#00b0f0", "#806000", "#404040"};

/// The least and the greatest of the values added: an axis's data range.
struct Span {
  double low = 0.0;
  double high = 0.0;
  bool empty = true;
  void Add(double v) {
    low = empty ? v : (v < low ? v : low);
    high = empty ? v : (v > high ? v : high);
    empty = false;
  }
};

/// Scale, range and ticks of an axis of positive values from `low` to `high`: logarithmic when
/// they span a factor of 10 or more, linear otherwise; with `padded` a little margin either side
/// (a range of one value is always widened, so gnuplot has a range to draw). Ticks are explicit
/// round numbers (1, 2, 5 x 10^k on a log axis; 4 to 7 evenly spaced on a linear one): gnuplot's
/// own leave a narrow log range (a colour bar over 1.0 to 1.5 ms) with one label or none.
std::string AxisScale(std::string_view axis, double low, double high, bool padded = true);

/// As AxisScale, but logarithmic whatever the span (values above 0): axes that must stay
/// logarithmic, as validate's predicted-against-measured (a row can be any unit). A span too
/// narrow for 1, 2, 5 x 10^k ticks gets round linear-step ticks on the log axis.
std::string LogAxisScale(std::string_view axis, double low, double high);

/// `set <axis>tics (...)` with one tick at each of `values` (the cells of an uneven grid),
/// labelled with the value as written.
std::string TicsAt(std::string_view axis, const std::vector<double>& values);

/// `set <axis>tics (...)` with one tick at each position, labelled with the text beside it.
std::string TicsLabelled(std::string_view axis,
                         const std::vector<std::pair<std::string, double>>& ticks);

}  // namespace hfsim
