#include "sim/sweep/sweep-plan.h"

#include <fmt/format.h>

#include "sim/scenario-parser.h"
#include "sim/sweep-section.h"

namespace hfsim {

namespace {

std::string CsvCell(const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// The parameter's path in the sweep section, for errors about one of its values.
std::string ValuePath(size_t parameter, size_t value) {
  return fmt::format("sweep.parameters[{}].values[{}]", parameter, value);
}

}  // namespace

Expected<SweepPlan> SweepPlan::Build(const nlohmann::json& document, const Scenario& scenario) {
  const SweepSpec& spec = scenario.sweep;
  if (!spec.given) {
    return UserError{"sweep", "missing; `hfsim sweep` needs a \"sweep\" section with "
                              "\"bandwidth_GBps\" and/or \"parameters\" (docs/sweep.md)"};
  }
  SweepPlan plan{AllocationSpace(spec, scenario.dimensions)};
  plan.m_parameters = spec.parameters;
  plan.m_engine = spec.engine.value_or(scenario.engine);
  uint64_t combinations = 1;
  for (const SweepParameter& p : spec.parameters) combinations *= p.values.size();
  if (static_cast<double>(combinations) * static_cast<double>(plan.m_space.Count()) >
      static_cast<double>(SweepSpec::kMaxPoints)) {
    return UserError{"sweep", fmt::format("{} parameter combinations x {} allocations exceed {} "
                                          "points", combinations, plan.m_space.Count(),
                                          SweepSpec::kMaxPoints)};
  }
  // Each combination is the document with its values written in, parsed again: the loader
  // checks every value where it lands, exactly as if the user had written that file.
  for (uint64_t c = 0; c < combinations; ++c) {
    nlohmann::json variant = document;
    SweepCombination combination;
    uint64_t rest = c;
    std::vector<size_t> chosen(spec.parameters.size());
    for (size_t p = spec.parameters.size(); p-- > 0;) {
      chosen[p] = rest % spec.parameters[p].values.size();
      rest /= spec.parameters[p].values.size();
    }
    for (size_t p = 0; p < spec.parameters.size(); ++p) {
      const SweepParameter& parameter = spec.parameters[p];
      const nlohmann::json& value = parameter.values[chosen[p]];
      const auto pointer = *PathToPointer(parameter.path);
      const auto parent = pointer.parent_pointer();
      if (!variant.contains(parent) ||
          !(variant[parent].is_object() ||
            (variant[parent].is_array() && variant.contains(pointer)))) {
        return UserError{fmt::format("sweep.parameters[{}].path", p),
                         fmt::format("\"{}\" is not in the scenario; accepted: a key of an "
                                     "object the scenario has, or an existing array entry",
                                     parameter.path)};
      }
      variant[pointer] = value;
      combination.cells.push_back(CsvCell(value));
    }
    auto parsed = ParseScenario(variant);
    if (!parsed) {
      // Blame the value that was written in, and say what the loader found wrong.
      std::string where = "sweep.parameters";
      if (!spec.parameters.empty()) {
        where = ValuePath(spec.parameters.size() - 1, chosen.back());
        for (size_t p = 0; p < spec.parameters.size(); ++p) {
          if (parsed.Error().where.rfind(spec.parameters[p].path, 0) == 0) {
            where = ValuePath(p, chosen[p]);
          }
        }
      }
      return UserError{where, fmt::format("makes a bad scenario: {}", parsed.Error().ToString())};
    }
    combination.scenario = std::move(parsed).Value();
    if (combination.scenario.dimensions.size() != plan.m_space.DimensionCount()) {
      return UserError{"sweep.parameters",
                       fmt::format("combination {} has {} dimensions but the allocations have {}",
                                   c, combination.scenario.dimensions.size(),
                                   plan.m_space.DimensionCount())};
    }
    const CostSpec& cost = combination.scenario.optimize.cost;
    if (!cost.unit_usd_per_GBps.empty()) {
      uint64_t npus = 1;
      for (const Dimension& d : combination.scenario.dimensions) npus *= d.size;
      combination.cost.emplace(cost.unit_usd_per_GBps, npus);
    }
    plan.m_combinations.push_back(std::move(combination));
  }
  return plan;
}

}  // namespace hfsim
