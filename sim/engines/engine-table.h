// The engine table: every engine hfsim has, in one place. A row names the engine (the scenario's
// "engine", run and sweep --engine, optimize --verify-engine, sweep.engine, the report's "engine"),
// says what it refuses (checked when a scenario is loaded and whenever a command switches a
// scenario to it) and what it offers (a timeline, a progress hook). The factory that makes the
// engine of a row is engine-factory.h: it links every engine, ns-3 included, and the loader,
// which reads this table, must not.
//
// This header is at the bottom of sim/ (it needs no other hfsim header but base/), so that
// every layer can name engines; the rows, which point at each engine's admission checks, are
// compiled in engine-table.cc. Adding an engine: its folder (an Engine of sim/engine.h and its
// admission), a value of EngineKind, a row in engine-table.cc and a case in engine-factory.cc.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"

namespace hfsim {

struct Scenario;

/// The engines, in the table's order.
enum class EngineKind { kAnalytical, kPacket, kFlow };

/// Why an engine does not run `scenario` (JSON path and reason), or nothing when it does.
using EngineRefusal = std::optional<UserError> (*)(const Scenario& scenario);

struct EngineEntry {
  EngineKind kind;
  std::string_view name;
  /// What the engine does not model (workload kinds, algorithms), cheap enough to check while
  /// the scenario is still being read (sweep.engine); nullptr when it models them all.
  EngineRefusal model_refusal;
  /// Every reason the engine refuses a loaded scenario: the above, its limits and its memory
  /// estimate; nullptr when it refuses none.
  EngineRefusal admission;
  /// Whether a run fills Report::timeline when RunOptions::timeline asks (graph workloads).
  bool timeline;
  /// Whether a run calls RunOptions::progress (long runs: a terminal's progress line).
  bool progress;
  /// Whether runs in one process must follow one another (ns-3 keeps one simulator per
  /// process): sweeps then run their points in worker processes instead of threads.
  bool one_run_per_process;
};

/// Every row, in EngineKind's order.
std::span<const EngineEntry> EngineTable();
const EngineEntry& EngineOf(EngineKind kind);
/// The engine's name.
std::string_view ToString(EngineKind kind);
/// The engine called `name`, if any.
std::optional<EngineKind> EngineNamed(std::string_view name);
/// Every engine's name in the table's order: what "engine" and --engine accept.
std::vector<std::string> EngineNames();
/// The first reason `kind` refuses `scenario` (EngineEntry::admission), or nothing.
std::optional<UserError> EngineRefuses(EngineKind kind, const Scenario& scenario);

}  // namespace hfsim
