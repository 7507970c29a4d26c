#include "sim/scenario/optimize-section.h"

#include <fmt/format.h>

#include <cmath>

#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

constexpr double kMaxPriceUsdPerGBps = 1e9;
constexpr double kMaxBudgetUsd = 1e18;
constexpr double kMaxCoefficient = 1e6;
constexpr double kMaxLinearValueGBps = 1e12;

DimensionCostSpec ReadDimensionCost(const JsonCursor& entry) {
  entry.ExpectObject({"class", "link_usd_per_GBps", "switch_usd_per_GBps", "nic_usd_per_GBps"});
  DimensionCostSpec spec;
  if (auto c = entry.Find("class")) {
    if (entry.Has("link_usd_per_GBps") || entry.Has("switch_usd_per_GBps") ||
        entry.Has("nic_usd_per_GBps")) {
      entry.Fail(
          "give \"class\" (LIBRA's prices) or explicit prices (\"link_usd_per_GBps\", "
          "\"switch_usd_per_GBps\", \"nic_usd_per_GBps\"), not both");
    }
    spec.cost_class = c->Choice(kCostClassNames);
    spec.prices = LibraPrices(*spec.cost_class);
    return spec;
  }
  spec.prices.link_usd_per_GBps =
      entry.At("link_usd_per_GBps", "\"class\" or a link price in $ per GB/s")
          .Number(0.0, kMaxPriceUsdPerGBps, false);
  if (auto v = entry.Find("switch_usd_per_GBps")) {
    spec.prices.switch_usd_per_GBps = v->Number(0.0, kMaxPriceUsdPerGBps, false);
  }
  if (auto v = entry.Find("nic_usd_per_GBps")) {
    spec.prices.nic_usd_per_GBps = v->Number(0.0, kMaxPriceUsdPerGBps, false);
  }
  return spec;
}

void ReadCost(const JsonCursor* section, bool needed, Scenario& scenario) {
  CostSpec& cost = scenario.optimize.cost;
  const auto dimension_count = static_cast<uint32_t>(scenario.dimensions.size());
  cost.given = section != nullptr;
  std::vector<JsonCursor> entries;
  if (section != nullptr) {
    section->ExpectObject({"dimensions"});
    entries = section->At("dimensions", "an array with one cost entry per topology dimension")
                  .Elements(dimension_count, dimension_count);
  }
  for (uint32_t d = 0; d < dimension_count; ++d) {
    DimensionCostSpec spec;
    if (section != nullptr) {
      spec = ReadDimensionCost(entries[d]);
    } else {
      spec.cost_class = DefaultCostClass(d, dimension_count);
      spec.prices = LibraPrices(*spec.cost_class);
    }
    const UnitPrice unit = UnitPriceOf(scenario.dimensions[d], spec.prices);
    if (!unit.error.empty() && cost.unit_error.empty()) {
      const std::string what = spec.cost_class
                                   ? fmt::format("class \"{}\"", ToString(*spec.cost_class))
                                   : std::string("explicit prices without \"switch_usd_per_GBps\"");
      cost.unit_error = fmt::format(
          "dimension {} is a {} priced by {}, which has no switch price; accepted: a class "
          "with a switch (package, node, pod) or explicit prices with \"switch_usd_per_GBps\"",
          d, ToString(scenario.dimensions[d].kind), what);
      // An explicit entry is wrong where it stands; defaults only matter once optimising.
      if (section != nullptr) entries[d].Fail(cost.unit_error);
      if (needed) {
        throw JsonPathError("cost",
                            "missing, and the default classes (by position: pod "
                            "outermost, then node, package, chiplet) cannot price the "
                            "fabric: " +
                                cost.unit_error +
                                "; give \"cost\": "
                                "{\"dimensions\": [...]}");
      }
    }
    cost.dimensions.push_back(spec);
  }
  if (cost.unit_error.empty()) {
    for (uint32_t d = 0; d < dimension_count; ++d) {
      cost.unit_usd_per_GBps.push_back(
          UnitPriceOf(scenario.dimensions[d], cost.dimensions[d].prices).usd_per_GBps);
    }
  }
}

uint32_t ReadDimension(const JsonCursor& entry, uint32_t dimension_count) {
  return static_cast<uint32_t>(
      entry.At("dimension", "a topology dimension index").Integer(0, dimension_count - 1));
}

void ReadOptimize(const JsonCursor& section, Scenario& scenario) {
  OptimizeSpec& spec = scenario.optimize;
  const auto dimension_count = static_cast<uint32_t>(scenario.dimensions.size());
  spec.given = true;
  section.ExpectObject({"objective", "budget_usd", "total_bandwidth_GBps_per_npu", "total",
                        "bounds", "fixed", "linear", "frontier_points", "tolerance"});
  if (auto v = section.Find("objective")) {
    spec.objective = v->Choice(kOptimizeObjectiveNames);
  }
  if (auto v = section.Find("budget_usd")) {
    if (spec.objective != OptimizeObjective::kTimeUnderBudget) {
      v->Fail(
          "a budget applies only to \"objective\": \"time_under_budget\"; remove this key or "
          "change the objective");
    }
    spec.budget_usd = v->Number(0.0, kMaxBudgetUsd, true);
  } else if (spec.objective == OptimizeObjective::kTimeUnderBudget) {
    section.Fail(
        "missing \"budget_usd\"; \"time_under_budget\" needs the network budget in $ "
        "(a number above 0)");
  }
  if (auto v = section.Find("total_bandwidth_GBps_per_npu")) {
    spec.total_bandwidth_GBps_per_npu =
        v->Number(ScenarioLimits::kMinBandwidthGBps, ScenarioLimits::kMaxTotalBandwidthGBps, false);
  }
  if (auto v = section.Find("total")) {
    if (!spec.total_bandwidth_GBps_per_npu) {
      v->Fail(
          "\"total\" says how \"total_bandwidth_GBps_per_npu\" binds, which is not given; add "
          "it or remove this key");
    }
    spec.total = v->Choice(kTotalRelationNames);
  }
  std::vector<bool> bounded(dimension_count, false);
  if (auto list = section.Find("bounds")) {
    for (const JsonCursor& entry : list->Elements(0, dimension_count)) {
      entry.ExpectObject({"dimension", "min_GBps", "max_GBps"});
      BandwidthBound bound;
      bound.dimension = ReadDimension(entry, dimension_count);
      if (bounded[bound.dimension]) {
        entry.Child("dimension")
            .Fail(fmt::format("dimension {} already has bounds; accepted: one entry per dimension",
                              bound.dimension));
      }
      bounded[bound.dimension] = true;
      if (auto v = entry.Find("min_GBps"))
        bound.min_GBps = v->Number(0.0, ScenarioLimits::kMaxTotalBandwidthGBps, false);
      if (auto v = entry.Find("max_GBps"))
        bound.max_GBps = v->Number(ScenarioLimits::kMinBandwidthGBps,
                                   ScenarioLimits::kMaxTotalBandwidthGBps, false);
      if (!bound.min_GBps && !bound.max_GBps) {
        entry.Fail("give \"min_GBps\", \"max_GBps\" or both");
      }
      if (bound.min_GBps && bound.max_GBps && *bound.min_GBps > *bound.max_GBps) {
        entry.Child("max_GBps")
            .Fail(fmt::format("got {}, below min_GBps {}; accepted: at least {}", *bound.max_GBps,
                              *bound.min_GBps, *bound.min_GBps));
      }
      spec.bounds.push_back(bound);
    }
  }
  std::vector<bool> fixed(dimension_count, false);
  if (auto list = section.Find("fixed")) {
    for (const JsonCursor& entry : list->Elements(0, dimension_count)) {
      entry.ExpectObject({"dimension", "bandwidth_GBps"});
      FixedBandwidth pin;
      pin.dimension = ReadDimension(entry, dimension_count);
      if (fixed[pin.dimension]) {
        entry.Child("dimension")
            .Fail(fmt::format("dimension {} is already fixed; accepted: one entry per dimension",
                              pin.dimension));
      }
      fixed[pin.dimension] = true;
      pin.bandwidth_GBps = entry.At("bandwidth_GBps", "the dimension's bandwidth in GB/s per NPU")
                               .Number(ScenarioLimits::kMinBandwidthGBps,
                                       ScenarioLimits::kMaxTotalBandwidthGBps, false);
      spec.fixed.push_back(pin);
    }
  }
  if (auto list = section.Find("linear")) {
    for (const JsonCursor& entry : list->Elements(0, 1000)) {
      entry.ExpectObject({"coefficients", "relation", "value_GBps"});
      LinearConstraint constraint;
      const JsonCursor coefficients =
          entry.At("coefficients",
                   fmt::format("an array of {} numbers, one per dimension", dimension_count));
      bool any = false;
      for (const JsonCursor& c : coefficients.Elements(dimension_count, dimension_count)) {
        constraint.coefficients.push_back(c.Number(-kMaxCoefficient, kMaxCoefficient, false));
        any = any || constraint.coefficients.back() != 0.0;
      }
      if (!any) coefficients.Fail("every coefficient is 0; accepted: at least one non-zero");
      constraint.relation = entry.At("relation", QuotedAlternatives(kLinearRelationNames))
                                .Choice(kLinearRelationNames);
      constraint.value_GBps = entry.At("value_GBps", "the right-hand side in GB/s")
                                  .Number(-kMaxLinearValueGBps, kMaxLinearValueGBps, false);
      spec.linear.push_back(constraint);
    }
  }
  if (auto v = section.Find("frontier_points")) {
    // Only the time_x_cost budget sweep uses it; elsewhere it would be silently ignored.
    if (spec.objective != OptimizeObjective::kTimeXCost) {
      v->Fail(
          fmt::format("got {} with \"objective\": \"{}\", which does not use it (it is the "
                      "number of budgets in the time x cost sweep); accepted only with "
                      "\"objective\": \"time_x_cost\"; remove this key or change the objective",
                      v->Shown(), ToString(spec.objective)));
    }
    spec.frontier_points = static_cast<uint32_t>(v->Integer(2, 1000));
  }
  if (auto v = section.Find("tolerance")) {
    spec.tolerance = v->Number(0.0, OptimizeSpec::kMaxTolerance, true);
    if (spec.tolerance < OptimizeSpec::kMinTolerance) {
      v->Fail(
          fmt::format("got {}, below {}, the smallest gap the solver certifies reliably "
                      "(docs/optimize.md section 8); accepted: a number from {} to {}",
                      v->Shown(), OptimizeSpec::kMinTolerance, OptimizeSpec::kMinTolerance,
                      OptimizeSpec::kMaxTolerance));
    }
  }
}

}  // namespace

void ReadOptimizeSections(const JsonCursor* cost, const JsonCursor* optimize, Scenario& scenario) {
  ReadCost(cost, optimize != nullptr, scenario);
  if (optimize != nullptr) ReadOptimize(*optimize, scenario);
}

void AddOptimizeSectionsToJson(const OptimizeSpec& spec, nlohmann::json& out) {
  if (spec.cost.given) {
    nlohmann::json dims = nlohmann::json::array();
    for (const DimensionCostSpec& d : spec.cost.dimensions) {
      if (d.cost_class) {
        dims.push_back({{"class", ToString(*d.cost_class)}});
        continue;
      }
      nlohmann::json entry = {{"link_usd_per_GBps", d.prices.link_usd_per_GBps}};
      if (d.prices.switch_usd_per_GBps)
        entry["switch_usd_per_GBps"] = *d.prices.switch_usd_per_GBps;
      if (d.prices.nic_usd_per_GBps) entry["nic_usd_per_GBps"] = *d.prices.nic_usd_per_GBps;
      dims.push_back(entry);
    }
    out["cost"] = {{"dimensions", dims}};
  }
  if (!spec.given) return;
  nlohmann::json section = {{"objective", ToString(spec.objective)}, {"tolerance", spec.tolerance}};
  // Echoed where the loader accepts it: with time_x_cost only.
  if (spec.objective == OptimizeObjective::kTimeXCost) {
    section["frontier_points"] = spec.frontier_points;
  }
  if (spec.budget_usd) section["budget_usd"] = *spec.budget_usd;
  if (spec.total_bandwidth_GBps_per_npu) {
    section["total_bandwidth_GBps_per_npu"] = *spec.total_bandwidth_GBps_per_npu;
    section["total"] = ToString(spec.total);
  }
  nlohmann::json bounds = nlohmann::json::array();
  for (const BandwidthBound& b : spec.bounds) {
    nlohmann::json entry = {{"dimension", b.dimension}};
    if (b.min_GBps) entry["min_GBps"] = *b.min_GBps;
    if (b.max_GBps) entry["max_GBps"] = *b.max_GBps;
    bounds.push_back(entry);
  }
  nlohmann::json fixed = nlohmann::json::array();
  for (const FixedBandwidth& f : spec.fixed) {
    fixed.push_back({{"dimension", f.dimension}, {"bandwidth_GBps", f.bandwidth_GBps}});
  }
  nlohmann::json linear = nlohmann::json::array();
  for (const LinearConstraint& l : spec.linear) {
    linear.push_back({{"coefficients", l.coefficients},
                      {"relation", ToString(l.relation)},
                      {"value_GBps", l.value_GBps}});
  }
  section["bounds"] = bounds;
  section["fixed"] = fixed;
  section["linear"] = linear;
  out["optimize"] = section;
}

}  // namespace hfsim
