#include "topologies/dimension-shape.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

uint32_t DimensionShape::SwitchNextLink(uint32_t, uint32_t, uint64_t) const {
  throw std::logic_error("DimensionShape::SwitchNextLink: this kind has no switches");
}

double DimensionShape::RouteShare(uint32_t a, uint32_t b) const {
  double share = 1.0;
  bool first = true;
  Route(a, b, 0).ForEachLink([&](uint32_t local, uint32_t) {
    const double fraction = LinkFraction(local);
    share = first ? fraction : std::min(share, fraction);
    first = false;
  });
  return share;
}

LinkRun CycleArc(uint32_t a, uint32_t b, uint32_t n, uint32_t forward_base,
                 uint32_t backward_base) {
  const uint32_t forward = (b + n - a) % n;  // clockwise distance
  const uint32_t backward = n - forward;
  if (forward <= backward) return LinkRun{forward_base, forward_base, a, forward, n, false};
  return LinkRun{backward_base, backward_base, a, backward, n, true};
}

}  // namespace hfsim
