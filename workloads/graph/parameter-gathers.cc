#include "workloads/graph/parameter-gathers.h"

#include <algorithm>

namespace hfsim {

void ParameterGathers::StartPass(bool forward, uint32_t first, uint32_t last) {
  m_forward = forward;
  m_first = first;
  m_last = last;
  std::fill(m_gathered.begin(), m_gathered.end(), kNoNode);
}

void ParameterGathers::Gather(uint32_t i) {
  const std::optional<CommRequest>& request =
      m_forward ? m_layers[i].forward_gather : m_layers[i].backward_gather;
  if (!request || m_gathered[i] != kNoNode) return;
  if (m_prefetch) {
    // Issued when the main stream reaches this point: it waits for the main stream's last node.
    m_gathered[i] = m_out.Collective(GraphPhase::kCollective, i, *request, m_stream, false);
    if (!m_out.Chained()) m_out.Wait(m_gathered[i], m_out.LastMain());
  } else {
    m_out.Collective(GraphPhase::kCollective, i, *request, kMainStream, false);
  }
}

void ParameterGathers::Before(uint32_t i) {
  Gather(i);
  if (!m_prefetch) return;
  if (m_forward) {
    for (uint32_t j = i + 1; j < m_last; ++j) {
      if (m_layers[j].forward_gather) {
        Gather(j);
        return;
      }
    }
  } else {
    for (uint32_t j = i; j-- > m_first;) {
      if (m_layers[j].backward_gather) {
        Gather(j);
        return;
      }
    }
  }
}

}  // namespace hfsim
