// The engine table's factory column (engine-table.h): the engine of a row, ready to run. Apart
// from the table's rows so that what only names or admits engines (the loader, the command
// line's definition) does not link them all, ns-3 included.
#pragma once

#include <memory>

#include "sim/engine.h"
#include "sim/engines/engine-table.h"

namespace hfsim {

/// A new engine of `kind`.
std::unique_ptr<Engine> MakeEngine(EngineKind kind);

}  // namespace hfsim
