#include "sim/scenario/sweep-section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

constexpr uint64_t kMaxAxisValues = 1000000;
constexpr size_t kMaxListAllocations = 1000000;
constexpr size_t kMaxParameters = 8;
constexpr size_t kMaxParameterValues = 10000;

double Bandwidth(const JsonCursor& value) {
  return value.Number(ScenarioLimits::kMinBandwidthGBps, ScenarioLimits::kMaxBandwidthGBps, false);
}

double AxisValue(double from, double step, uint64_t i) {
  return RoundSweepValue(from + static_cast<double>(i) * step);
}

std::vector<double> ReadAxis(const JsonCursor& axis) {
  std::vector<double> values;
  if (axis.Node().is_array()) {
    for (const JsonCursor& v : axis.Elements(1, kMaxAxisValues)) values.push_back(Bandwidth(v));
    return values;
  }
  if (!axis.Node().is_object()) {
    axis.Fail(
        fmt::format("got {}; accepted: an array of bandwidths in GB/s, or "
                    "{{\"from\": F, \"to\": T, \"step\": S}}",
                    axis.Shown()));
  }
  axis.ExpectObject({"from", "to", "step"});
  const double from = Bandwidth(axis.At("from", "the first bandwidth in GB/s"));
  const JsonCursor to_cursor = axis.At("to", "the last bandwidth in GB/s");
  const double to = Bandwidth(to_cursor);
  if (to < from) {
    to_cursor.Fail(fmt::format("got {}, below \"from\" {}; accepted: at least {}", to, from, from));
  }
  const JsonCursor step_cursor = axis.At("step", "the spacing in GB/s");
  const double step = step_cursor.Number(0.0, ScenarioLimits::kMaxBandwidthGBps, true);
  // The small slack keeps "to" when (to - from) / step is an integer up to rounding.
  const double count = std::floor((to - from) / step * (1.0 + 1e-12) + 1e-9) + 1.0;
  if (count > static_cast<double>(kMaxAxisValues)) {
    step_cursor.Fail(fmt::format("gives {:.0f} values from {} to {}; accepted: at most {} per axis",
                                 count, from, to, kMaxAxisValues));
  }
  for (uint64_t i = 0; i < static_cast<uint64_t>(count); ++i)
    values.push_back(AxisValue(from, step, i));
  // A step that does not divide the range would silently leave "to" out of the sweep.
  if (std::fabs(values.back() - RoundSweepValue(to)) > 1e-9 * std::max(1.0, std::fabs(to))) {
    step_cursor.Fail(
        fmt::format("got {}, which does not divide the range from {} to {} (the "
                    "values would stop at {}); accepted: a step that divides "
                    "\"to\" - \"from\" = {}",
                    step, from, to, values.back(), to - from));
  }
  return values;
}

void ReadAllocations(const JsonCursor& section, SweepSpec& spec, uint32_t dimension_count) {
  section.ExpectObject({"grid", "split", "list"});
  const int given = static_cast<int>(section.Has("grid")) + static_cast<int>(section.Has("split")) +
                    static_cast<int>(section.Has("list"));
  if (given != 1) {
    section.Fail(
        "give exactly one of \"grid\" (one axis per dimension), \"split\" (every split "
        "of a total) or \"list\" (explicit allocations)");
  }
  if (auto grid = section.Find("grid")) {
    spec.allocations = AllocationSetKind::kGrid;
    double points = 1.0;
    for (const JsonCursor& axis : grid->Elements(dimension_count, dimension_count)) {
      spec.grid.push_back(ReadAxis(axis));
      points *= static_cast<double>(spec.grid.back().size());
    }
    if (points > static_cast<double>(SweepSpec::kMaxPoints)) {
      grid->Fail(
          fmt::format("has {:.0f} points; accepted: at most {}", points, SweepSpec::kMaxPoints));
    }
  } else if (auto split = section.Find("split")) {
    spec.allocations = AllocationSetKind::kSplit;
    split->ExpectObject({"total_GBps", "step_GBps", "min_GBps"});
    SplitSpec& s = spec.split;
    s.total_GBps = split->At("total_GBps", "the total bandwidth per NPU in GB/s")
                       .Number(0.0, ScenarioLimits::kMaxTotalBandwidthGBps, true);
    s.step_GBps = split->At("step_GBps", "the spacing of each dimension's bandwidth in GB/s")
                      .Number(0.0, ScenarioLimits::kMaxTotalBandwidthGBps, true);
    s.min_GBps = s.step_GBps;
    if (auto v = split->Find("min_GBps"))
      s.min_GBps = v->Number(0.0, ScenarioLimits::kMaxTotalBandwidthGBps, true);
    if (s.min_GBps * dimension_count > s.total_GBps) {
      split->Fail(
          fmt::format("{} dimensions x min_GBps {} exceed total_GBps {}: no split exists; "
                      "accepted: min_GBps at most total_GBps / {} = {}",
                      dimension_count, s.min_GBps, s.total_GBps, dimension_count,
                      s.total_GBps / dimension_count));
    }
    if (dimension_count < 2) {
      split->Fail("a split needs at least 2 dimensions; use \"grid\" or \"list\" for one");
    }
    // Points: (D-1)-tuples of steps with sum <= (total - D*min)/step, C(n + D-1, D-1).
    const double units = std::floor(
        (s.total_GBps - dimension_count * s.min_GBps) / s.step_GBps * (1.0 + 1e-12) + 1e-9);
    double points = 1.0;
    for (uint32_t k = 1; k < dimension_count; ++k) points = points * (units + k) / k;
    if (points > static_cast<double>(SweepSpec::kMaxPoints)) {
      split->Fail(fmt::format("has {:.0f} points; accepted: at most {} (use a larger step_GBps)",
                              points, SweepSpec::kMaxPoints));
    }
  } else {
    spec.allocations = AllocationSetKind::kList;
    for (const JsonCursor& entry : section.Child("list").Elements(1, kMaxListAllocations)) {
      std::vector<double> allocation;
      for (const JsonCursor& v : entry.Elements(dimension_count, dimension_count)) {
        allocation.push_back(Bandwidth(v));
      }
      spec.list.push_back(std::move(allocation));
    }
  }
}

void ReadParameters(const JsonCursor& list, SweepSpec& spec) {
  for (const JsonCursor& entry : list.Elements(1, kMaxParameters)) {
    entry.ExpectObject({"path", "values"});
    SweepParameter parameter;
    const JsonCursor path =
        entry.At("path", "a scenario key such as \"workload.collective.size_bytes\"");
    parameter.path = path.String();
    if (!PathToPointer(parameter.path)) {
      path.Fail(
          fmt::format("got \"{}\"; accepted: keys joined by '.', with array indices as "
                      "[i], e.g. \"topology.dimensions[0].size\"",
                      parameter.path));
    }
    const std::string head = parameter.path.substr(0, parameter.path.find_first_of(".["));
    if (head == "sweep") {
      path.Fail(
          fmt::format("got \"{}\": a sweep cannot sweep its own section; accepted: a key "
                      "outside \"sweep\"",
                      parameter.path));
    }
    if (spec.allocations != AllocationSetKind::kTopology &&
        parameter.path.find("bandwidth_GBps") != std::string::npos && head == "topology") {
      path.Fail(
          fmt::format("got \"{}\", but the bandwidths are already swept by "
                      "\"bandwidth_GBps\"; sweep them there, or drop \"bandwidth_GBps\" "
                      "to sweep this key",
                      parameter.path));
    }
    for (const SweepParameter& other : spec.parameters) {
      if (other.path == parameter.path) {
        path.Fail(fmt::format("\"{}\" is swept twice; accepted: each path once", other.path));
      }
    }
    if (head == "engine") {
      path.Fail(
          "got \"engine\": the engine is not a parameter of the points; accepted: "
          "\"sweep.engine\" or `hfsim sweep --engine`, one engine per sweep");
    }
    for (const JsonCursor& v :
         entry.At("values", "an array of values for the key").Elements(1, kMaxParameterValues)) {
      // A value is one CSV cell; a line break would split its row (and --resume reads rows).
      if (v.Node().dump().find_first_of("\n\r") != std::string::npos ||
          (v.Node().is_string() &&
           v.Node().get<std::string>().find_first_of("\n\r") != std::string::npos)) {
        v.Fail("holds a line break; accepted: values without line breaks");
      }
      parameter.values.push_back(v.Node());
    }
    spec.parameters.push_back(std::move(parameter));
  }
}

}  // namespace

double RoundSweepValue(double value) { return std::stod(fmt::format("{:.12g}", value)); }

std::optional<nlohmann::json::json_pointer> PathToPointer(const std::string& path) {
  std::string pointer;
  size_t i = 0;
  bool expect_key = true;
  while (i < path.size()) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1 || i == 0) return std::nullopt;
      const std::string index = path.substr(i + 1, close - i - 1);
      if (index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9) {
        return std::nullopt;
      }
      pointer += "/" + index;
      i = close + 1;
      expect_key = false;
      continue;
    }
    if (!expect_key) {
      if (path[i] != '.') return std::nullopt;
      ++i;
    }
    const size_t end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty() || key.find_first_of("~/]") != std::string::npos) return std::nullopt;
    pointer += "/" + key;
    i = end == std::string::npos ? path.size() : end;
    expect_key = false;
  }
  if (pointer.empty()) return std::nullopt;
  return nlohmann::json::json_pointer(pointer);
}

void ReadSweepSection(const JsonCursor& section, Scenario& scenario) {
  SweepSpec& spec = scenario.sweep;
  spec.given = true;
  spec.source = section.Node();
  section.ExpectObject({"engine", "bandwidth_GBps", "parameters"});
  if (auto v = section.Find("engine")) {
    const std::vector<std::string> names = EngineNames();
    spec.engine = EngineTable()[v->Choice({names.begin(), names.end()})].kind;
    // What the engine does not model, while the rest of the scenario is read; its full
    // admission (memory) waits for the loader's end.
    if (const EngineRefusal refuses = EngineOf(*spec.engine).model_refusal) {
      if (auto refusal = refuses(scenario)) v->Fail(refusal->message);
    }
  }
  if (auto v = section.Find("bandwidth_GBps")) {
    ReadAllocations(*v, spec, static_cast<uint32_t>(scenario.dimensions.size()));
  }
  if (auto v = section.Find("parameters")) ReadParameters(*v, spec);
  if (!section.Has("bandwidth_GBps") && !section.Has("parameters")) {
    section.Fail(
        "nothing to sweep; give \"bandwidth_GBps\" (allocations), \"parameters\" "
        "(other scenario keys) or both");
  }
}

void AddSweepSectionToJson(const SweepSpec& spec, nlohmann::json& out) {
  if (spec.given) out["sweep"] = spec.source;
}

}  // namespace hfsim
