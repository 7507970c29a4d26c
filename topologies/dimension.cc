#include "topologies/dimension.h"

namespace hfsim {

std::string_view ToString(DimensionKind kind) {
  switch (kind) {
    case DimensionKind::kRing:
      return "Ring";
    case DimensionKind::kFullyConnected:
      return "FullyConnected";
    case DimensionKind::kSwitch:
      return "Switch";
    case DimensionKind::kClos:
      return "Clos";
  }
  return "?";
}

std::optional<DimensionKind> ParseDimensionKind(std::string_view text) {
  if (text == "Ring") return DimensionKind::kRing;
  if (text == "FullyConnected") return DimensionKind::kFullyConnected;
  if (text == "Switch") return DimensionKind::kSwitch;
  if (text == "Clos") return DimensionKind::kClos;
  return std::nullopt;
}

}  // namespace hfsim
