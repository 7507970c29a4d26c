#include "sim/engines/engine-factory.h"

#include <stdexcept>

#include "sim/analytical/analytical-engine.h"
#include "sim/flow/flow-engine.h"
#include "sim/packet/packet-engine.h"

namespace hfsim {

std::unique_ptr<Engine> MakeEngine(EngineKind kind) {
  switch (kind) {
    case EngineKind::kAnalytical:
      return std::make_unique<AnalyticalEngine>();
    case EngineKind::kPacket:
      return std::make_unique<PacketEngine>();
    case EngineKind::kFlow:
      return std::make_unique<FlowEngine>();
  }
  throw std::logic_error("MakeEngine: an EngineKind without a case here (engine-table.h)");
}

}  // namespace hfsim
