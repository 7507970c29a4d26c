#include "sim/scenario/scenario.h"

namespace hfsim {

std::string_view ToString(EngineKind engine) {
  switch (engine) {
    case EngineKind::kAnalytical:
      return "analytical";
    case EngineKind::kPacket:
      return "packet";
    case EngineKind::kFlow:
      return "flow";
  }
  return "?";
}

}  // namespace hfsim
