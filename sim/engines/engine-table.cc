#include "sim/engines/engine-table.h"

#include <array>
#include <stdexcept>

#include "sim/flow/flow-refusal.h"
#include "sim/packet/packet-refusal.h"

namespace hfsim {

namespace {

// The flow engine's refusals say what they refuse, not where: the scenario's "engine" key.
std::optional<UserError> AtEngine(std::optional<std::string> refusal) {
  if (!refusal) return std::nullopt;
  return UserError{"engine", std::move(*refusal)};
}

constexpr std::array<EngineEntry, 3> kEngines = {{
    // kind, name, model refusal, admission, timeline, progress, one run per process
    {EngineKind::kAnalytical, "analytical", nullptr, nullptr, true, false, false},
    {EngineKind::kPacket, "packet", nullptr, &PacketRunRefusal, true, true, true},
    {EngineKind::kFlow, "flow",
     [](const Scenario& scenario) { return AtEngine(FlowModelRefusal(scenario)); },
     [](const Scenario& scenario) { return AtEngine(FlowRefusal(scenario)); }, true, true, false},
}};

}  // namespace

std::span<const EngineEntry> EngineTable() { return kEngines; }

const EngineEntry& EngineOf(EngineKind kind) {
  for (const EngineEntry& entry : kEngines) {
    if (entry.kind == kind) return entry;
  }
  throw std::logic_error("EngineOf: an EngineKind without a row in the engine table");
}

std::string_view ToString(EngineKind kind) { return EngineOf(kind).name; }

std::optional<EngineKind> EngineNamed(std::string_view name) {
  for (const EngineEntry& entry : kEngines) {
    if (entry.name == name) return entry.kind;
  }
  return std::nullopt;
}

std::vector<std::string> EngineNames() {
  std::vector<std::string> names;
  for (const EngineEntry& entry : kEngines) names.emplace_back(entry.name);
  return names;
}

std::optional<UserError> EngineRefuses(EngineKind kind, const Scenario& scenario) {
  const EngineEntry& entry = EngineOf(kind);
  return entry.admission ? entry.admission(scenario) : std::nullopt;
}

}  // namespace hfsim
