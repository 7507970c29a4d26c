#include "topologies/dimension-kinds.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <stdexcept>

namespace hfsim {

// Each kind's file in topologies/kinds/ defines its entry.
const DimensionKindEntry& RingKindEntry();
const DimensionKindEntry& FullyConnectedKindEntry();
const DimensionKindEntry& SwitchKindEntry();
const DimensionKindEntry& ClosKindEntry();
const DimensionKindEntry& Torus2DKindEntry();

namespace {

// Indexed by DimensionKind.
const std::array<const DimensionKindEntry*, kDimensionKindNames.size()>& Table() {
  static const std::array<const DimensionKindEntry*, kDimensionKindNames.size()> table = [] {
    const std::array<const DimensionKindEntry*, kDimensionKindNames.size()> entries = {
        &RingKindEntry(),
        &FullyConnectedKindEntry(),
        &SwitchKindEntry(),
        &ClosKindEntry(),
        &Torus2DKindEntry(),
    };
    for (size_t i = 0; i < entries.size(); ++i) {
      if (static_cast<size_t>(entries[i]->kind) != i) {
        throw std::logic_error("dimension-kinds.cc: the table is not in DimensionKind order");
      }
    }
    return entries;
  }();
  return table;
}

std::string Shown(double value, bool integer) {
  return integer ? fmt::format("{}", static_cast<int64_t>(value)) : fmt::format("{}", value);
}

}  // namespace

const DimensionKindEntry& KindEntry(DimensionKind kind) {
  const auto index = static_cast<size_t>(kind);
  if (index >= Table().size()) throw std::invalid_argument("KindEntry: not a dimension kind");
  return *Table()[index];
}

std::span<const DimensionKindEntry* const> AllDimensionKinds() { return Table(); }

std::optional<std::string> DimensionProblem(const Dimension& dim) {
  const auto index = static_cast<size_t>(dim.kind);
  if (index >= Table().size()) return std::string("not a dimension kind");
  const DimensionKindEntry& entry = *Table()[index];
  const std::string_view name = ToString(dim.kind);
  if (dim.size < entry.min_size || dim.size > entry.max_size) {
    return fmt::format("a {} dimension has {} to {} NPUs, not {}", name, entry.min_size,
                       entry.max_size, dim.size);
  }
  for (size_t i = 0; i < entry.parameters.size(); ++i) {
    const ShapeParameter& parameter = entry.parameters[i];
    const double value = dim.parameters[i];
    const ParameterRange range = parameter.range(dim);
    const bool below = range.min_exclusive ? !(value > range.min) : !(value >= range.min);
    if (below || !(value <= range.max) || (parameter.integer && std::floor(value) != value)) {
      return fmt::format("{} {} of a {} dimension of {} NPUs is outside {} to {}", parameter.key,
                         Shown(value, parameter.integer), name, dim.size,
                         Shown(range.min, parameter.integer), Shown(range.max, parameter.integer));
    }
    if (entry.check) {
      if (auto problem = entry.check(dim, i)) {
        return fmt::format("{} of a {} dimension: {}", parameter.key, name, *problem);
      }
    }
  }
  for (size_t i = entry.parameters.size(); i < kMaxShapeParameters; ++i) {
    if (dim.parameters[i] != 0.0) {
      return fmt::format("a {} dimension has {} parameters, and parameter {} is set", name,
                         entry.parameters.size(), i);
    }
  }
  return std::nullopt;
}

std::unique_ptr<const DimensionShape> MakeShape(const Dimension& dim) {
  if (auto problem = DimensionProblem(dim)) throw std::invalid_argument("MakeShape: " + *problem);
  return KindEntry(dim.kind).make(dim);
}

}  // namespace hfsim
