#include "sim/sweep/sweep-plan.h"

#include <fmt/format.h>

#include "sim/scenario/scenario-parser.h"
#include "sim/scenario/sweep-section.h"

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

/// The parameter value to blame for a combination (values `chosen`) that the loader refused at
/// `where`: the one written where the problem was found, else the first one the scenario refuses
/// on its own (a Switch of 3 NPUs breaks the parallelism degrees), else the last one.
std::string BlamedValue(const nlohmann::json& document, const SweepSpec& spec,
                        const std::vector<size_t>& chosen, const std::string& where) {
  if (spec.parameters.empty()) return "sweep.parameters";
  for (size_t p = spec.parameters.size(); p-- > 0;) {
    const std::string& path = spec.parameters[p].path;
    if (where.rfind(path, 0) == 0 &&
        (where.size() == path.size() || where[path.size()] == '.' || where[path.size()] == '[')) {
      return ValuePath(p, chosen[p]);
    }
  }
  for (size_t p = 0; p < spec.parameters.size(); ++p) {
    nlohmann::json alone = document;
    alone[*PathToPointer(spec.parameters[p].path)] = spec.parameters[p].values[chosen[p]];
    if (!ParseScenario(alone)) return ValuePath(p, chosen[p]);
  }
  return ValuePath(spec.parameters.size() - 1, chosen.back());
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
  plan.m_topology_bandwidths = spec.allocations == AllocationSetKind::kTopology;
  // Counted in doubles: 8 parameters of up to 10,000 values would wrap a 64-bit count.
  double combinations_counted = 1.0;
  for (const SweepParameter& p : spec.parameters) {
    combinations_counted *= static_cast<double>(p.values.size());
  }
  if (combinations_counted * static_cast<double>(plan.m_space.Count()) >
      static_cast<double>(SweepSpec::kMaxPoints)) {
    return UserError{"sweep", fmt::format("{:.0f} parameter combinations x {} allocations exceed "
                                          "{} points", combinations_counted, plan.m_space.Count(),
                                          SweepSpec::kMaxPoints)};
  }
  const auto combinations = static_cast<uint64_t>(combinations_counted);
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
      return UserError{BlamedValue(document, spec, chosen, parsed.Error().where),
                       fmt::format("makes a bad scenario: {}", parsed.Error().ToString())};
    }
    combination.scenario = std::move(parsed).Value();
    if (combination.scenario.dimensions.size() != plan.m_space.DimensionCount()) {
      return UserError{"sweep.parameters",
                       fmt::format("combination {} has {} dimensions but the allocations have {}",
                                   c, combination.scenario.dimensions.size(),
                                   plan.m_space.DimensionCount())};
    }
    for (const Dimension& d : combination.scenario.dimensions) {
      combination.topology_GBps.push_back(d.bandwidth_Bpns);
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

const std::vector<double>& SweepPlan::Bandwidths(AllocationWalker& walker, uint64_t point) const {
  if (m_topology_bandwidths) return m_combinations[point / AllocationCount()].topology_GBps;
  return walker.At(point % AllocationCount());
}

}  // namespace hfsim
