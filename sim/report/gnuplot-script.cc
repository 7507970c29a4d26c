#include "sim/report/gnuplot-script.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace hfsim {

std::string GnuplotQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string GnuplotQuotedLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += (out.empty() ? "" : ".\"\\n\".") + GnuplotQuoted(line);
  }
  return out;
}

std::string DataLabel(std::string_view text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? '\'' : c;
  return out + "\"";
}

std::string GnuplotHeader(std::string_view png, int width, int height) {
  return fmt::format("set terminal pngcairo noenhanced size {},{} font 'sans,10'\nset output {}\n",
                     width, height, GnuplotQuoted(png));
}

std::string DataBlock(std::string_view name, std::string_view rows) {
  return fmt::format("${} << EOD\n{}EOD\n", name, rows);
}

namespace {

// `value` with the decimals a tick at a multiple of `unit` needs (none for 500, one for 0.1 or
// 2.5), in exponent form only far from 1.
std::string TickLabel(double value, double unit) {
  const double magnitude = std::abs(value);
  if (magnitude >= 1e9 || (magnitude > 0.0 && magnitude < 1e-4)) {
    return fmt::format("{:.3g}", value);
  }
  int decimals = 0;
  while (decimals < 9 && std::abs(std::round(unit * std::pow(10.0, decimals)) -
                                  unit * std::pow(10.0, decimals)) > 1e-6) {
    ++decimals;
  }
  return fmt::format("{:.{}f}", value, decimals);
}

// A tick at the value its label reads (k x 0.1 is not quite the decimal it prints as).
std::pair<std::string, double> Tick(double value, double unit) {
  std::string label = TickLabel(value, unit);
  const double at = std::stod(label);
  return {std::move(label), at};
}

// Round ticks within [from, to]: on a linear axis the largest step of 1, 2, 2.5 or 5 x 10^k that
// gives at least 4; on a log axis 1, 2 and 5 x 10^k, or the decades alone (every n-th) when
// those are too many.
std::vector<std::pair<std::string, double>> RoundTicks(double from, double to, bool log) {
  std::vector<std::pair<std::string, double>> ticks;
  if (log) {
    for (const std::vector<double>& mantissas : {std::vector<double>{1, 2, 5}, {1}}) {
      ticks.clear();
      const int first = static_cast<int>(std::floor(std::log10(from)));
      const int last = static_cast<int>(std::ceil(std::log10(to)));
      const int every = std::max(1, (last - first + 6) / 7);
      for (int e = first; e <= last; ++e) {
        if (mantissas.size() == 1 && (e - first) % every != 0) continue;
        for (double m : mantissas) {
          const double v = m * std::pow(10.0, e);
          if (v >= from && v <= to) ticks.push_back(Tick(v, v));
        }
      }
      if (ticks.size() <= 7) break;
    }
    return ticks;
  }
  for (int e = static_cast<int>(std::ceil(std::log10(to - from))); ; --e) {
    for (double m : {5.0, 2.5, 2.0, 1.0}) {
      const double step = m * std::pow(10.0, e);
      const double k0 = std::ceil(from / step - 1e-9);
      const double k1 = std::floor(to / step + 1e-9);
      if (k1 - k0 + 1 < 4) continue;
      // At most a few dozen ticks: the first step that gives 4 does, and an integer count
      // cannot stall where adding 1 to a large double changes nothing.
      const auto count = static_cast<int64_t>(std::min(k1 - k0, 64.0));
      for (int64_t i = 0; i <= count; ++i) {
        const double k = k0 + static_cast<double>(i);
        ticks.push_back(Tick(k * step, step));
      }
      return ticks;
    }
  }
}

}  // namespace

std::string AxisScale(std::string_view axis, double low, double high, bool padded) {
  // Values that differ by rounding noise only are one value: ticks a few ulps apart cannot be
  // labelled, and their step would fall below what a double counts in.
  if (!(high - low > 1e-12 * std::max(std::abs(low), std::abs(high)))) {
    const double pad = low != 0.0 ? std::abs(low) / 10 : 1.0;
    return fmt::format("unset logscale {0}\nset {0}range [{1}:{2}]\n", axis, low - pad, low + pad) +
           TicsAt(axis, {low});
  }
  const bool log = low > 0.0 && high >= 10.0 * low;
  double from = low;
  double to = high;
  if (padded && log) {
    const double factor = std::pow(high / low, 0.05);
    from /= factor;
    to *= factor;
  } else if (padded) {
    from -= (high - low) * 0.05;
    to += (high - low) * 0.05;
  }
  return fmt::format("{} {}\nset {}range [{}:{}]\n", log ? "set logscale" : "unset logscale", axis,
                     axis, from, to) +
         TicsLabelled(axis, RoundTicks(from, to, log));
}

std::string LogAxisScale(std::string_view axis, double low, double high) {
  // A little margin either side, at least 10 %: a range of one value has room too.
  const double factor = std::max(std::pow(high / low, 0.05), 1.1);
  const double from = low / factor;
  const double to = high * factor;
  std::vector<std::pair<std::string, double>> ticks = RoundTicks(from, to, true);
  if (ticks.size() < 2) ticks = RoundTicks(from, to, false);
  return fmt::format("set logscale {0}\nset {0}range [{1}:{2}]\n", axis, from, to) +
         TicsLabelled(axis, ticks);
}

std::string TicsAt(std::string_view axis, const std::vector<double>& values) {
  std::vector<std::pair<std::string, double>> ticks;
  for (double v : values) ticks.emplace_back(fmt::format("{}", v), v);
  return TicsLabelled(axis, ticks);
}

std::string TicsLabelled(std::string_view axis,
                         const std::vector<std::pair<std::string, double>>& ticks) {
  std::string list;
  for (const auto& [label, at] : ticks) {
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", GnuplotQuoted(label), at);
  }
  return fmt::format("set {}tics ({})\n", axis, list);
}

}  // namespace hfsim
