// Max-min fair rates of flows sharing links, by progressive filling: every flow that is not yet
// frozen gains rate at the same pace until a link runs out of capacity (its flows freeze at
// that rate) or a flow reaches its own cap (it freezes there), and again until every flow is
// frozen. The flow engine re-solves this at each flow arrival and completion, for the flows
// that share links with the change (its connected component), so the solver takes a subset.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace hfsim {

struct FlowDemand {
  /// The links the flow crosses (indices into the capacities), each once.
  std::vector<uint32_t> links;
  /// The most the flow can take (bytes per ns): its sender's or receiver's own limit.
  double cap = std::numeric_limits<double>::infinity();
};

/// Rates (bytes per ns) of `flows` on links of `capacity` (bytes per ns each, > 0). A flow
/// crossing no link takes its cap (infinite caps then stay infinite). Deterministic: the same
/// input gives the same rates bit for bit.
std::vector<double> MaxMinRates(const std::vector<double>& capacity,
                                std::span<const FlowDemand> flows);
inline std::vector<double> MaxMinRates(const std::vector<double>& capacity,
                                       const std::vector<FlowDemand>& flows) {
  return MaxMinRates(capacity, std::span<const FlowDemand>(flows));
}

}  // namespace hfsim
