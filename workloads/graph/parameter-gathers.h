// ZeRO-3's parameter gathers (FSDP): each layer's parameters are all-gathered before its
// forward and again before its backward. Prefetched (TrainingConfig::prefetch_parameters), a
// layer's gather runs on a stream of its own, one layer ahead: it is issued when the compute of
// the layer before it (in the pass's order) starts, and the layer's compute waits for it, so it
// hides behind that compute (FSDP's forward and backward prefetch). Otherwise each runs on the
// main stream just before its layer, blocking.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/graph/program-writer.h"
#include "workloads/training-loop.h"

namespace hfsim {

class ParameterGathers {
 public:
  ParameterGathers(const std::vector<LayerWork>& layers, bool prefetch, uint32_t stream,
                   ProgramWriter& out)
      : m_layers(layers), m_prefetch(prefetch), m_stream(stream), m_out(out),
        m_gathered(layers.size(), kNoNode) {}

  /// A pass (forward or backward) over layers [first, last) begins: nothing gathered yet.
  void StartPass(bool forward, uint32_t first, uint32_t last);
  /// Before layer i's compute in the pass: its own gather, and with prefetch the next one's.
  void Before(uint32_t i);
  /// Compute node `node` of layer i waits for the layer's prefetched gather.
  void WaitFor(uint32_t i, uint32_t node) { m_out.Wait(node, m_gathered[i]); }

 private:
  void Gather(uint32_t i);

  const std::vector<LayerWork>& m_layers;
  bool m_prefetch;
  uint32_t m_stream;
  ProgramWriter& m_out;
  bool m_forward = true;
  uint32_t m_first = 0, m_last = 0;
  std::vector<uint32_t> m_gathered;  ///< per layer: its prefetched gather in this pass
};

}  // namespace hfsim
