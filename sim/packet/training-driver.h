// Plays one training iteration (workloads/training-loop.h) on every NPU of the fabric, with
// the collectives run message by message by a CollectiveExecutor.
//
// Each NPU runs its own program, the same order as PlayIteration's timeline:
//   forward, layer by layer:  compute F_l (a timer), then the layer's tensor-parallel
//                             all-reduces, each blocking the NPU's compute stream;
//   backward, in reverse:     compute G_l, its tensor-parallel all-reduces (blocking), compute
//                             W_l, then the data-parallel gradient all-reduce:
//                               OverlapMode::kNone      blocking, like the others;
//                               OverlapMode::kBackward  into the NPU's background FIFO, which
//                                                       runs gradient all-reduces one after
//                                                       another as they become ready while
//                                                       compute goes on.
// An NPU is done when its program and its FIFO are both through. Nothing synchronises NPUs
// except the collectives themselves.
//
// Every collective occurrence (layer, phase, repetition) is one executor collective over the
// group's dimensions (data_dimensions or tensor_dimensions). Parallelism maps onto whole
// dimensions, so the executor's per-dimension groups are exactly the data (tensor) groups: the
// NPUs sharing every coordinate outside those dimensions. One collective per occurrence therefore
// serves every group, and every NPU enters it when its program reaches it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/packet/collective-executor.h"
#include "sim/packet/event-clock.h"
#include "topologies/topology.h"
#include "workloads/training-loop.h"

namespace hfsim {

struct DrivenIteration {
  /// total_ns: from Start until the last NPU finished. The per-phase compute and communication
  /// sums (and weight_grad_comm_exposed_ns) are NPU 0's, as PlayIteration reports one NPU:
  /// a blocking collective counts from the NPU entering it until its part is done; a background
  /// gradient all-reduce likewise into weight_grad_comm_ns; the exposed part is NPU 0's finish
  /// minus the end of its compute stream (kBackward), or all of it (kNone).
  IterationTimeline timeline;
  /// Per NPU, from Start until it finished, ns.
  std::vector<double> npu_total_ns;
  /// Executor collectives this iteration created (one per occurrence).
  uint32_t collectives = 0;
};

class TrainingDriver {
 public:
  /// `executor` must run on `clock` over `topology`. Both must outlive the iteration's events.
  TrainingDriver(const Topology& topology, CollectiveExecutor& executor, EventClock& clock,
                 std::vector<uint32_t> data_dimensions, std::vector<uint32_t> tensor_dimensions);

  /// Starts `iteration` on every NPU now. Run the clock's event loop to the end, then read
  /// Result(). `on_done` runs when the last NPU finishes. Throws std::logic_error when called
  /// twice, std::invalid_argument when a collective needs a group with no dimensions.
  void Start(const TrainingIteration& iteration, std::function<void()> on_done = {});

  bool Finished() const { return m_finished_npus == m_npus.size() && !m_npus.empty(); }
  /// Valid once Finished().
  const DrivenIteration& Result() const { return m_result; }

  /// One collective occurrence of the iteration, for reports: what it was and, once some NPU
  /// reached it, the executor collective that ran it.
  struct OccurrenceView {
    CollectiveKind kind;
    uint64_t size_bytes;
    ParallelGroup group;
    int phase;  ///< 0 forward, 1 input gradients, 2 weight gradients
    std::optional<CollectiveId> id;
    uint32_t layer;  ///< index into the iteration's layers, model order
  };
  std::vector<OccurrenceView> Occurrences() const;

 private:
  enum class Phase { kForward, kInputGrad, kWeightGrad };
  enum class OpKind { kCompute, kBlocking, kBackground };
  struct Op {
    OpKind kind;
    Phase phase;
    double duration_ns = 0.0;  ///< compute only
    uint32_t occurrence = 0;   ///< collectives only
  };
  struct Occurrence {
    CollectiveKind kind;
    uint64_t size_bytes;
    ParallelGroup group;
    Phase phase;
    std::optional<CollectiveId> id;  ///< created when the first NPU reaches it
    uint32_t layer;                  ///< the layer that issues it, model order
  };
  struct NpuState {
    uint32_t pc = 0;  ///< next op
    bool compute_done = false;
    bool background_busy = false;
    bool finished = false;
    std::vector<uint32_t> background;  ///< ready gradient all-reduces, FIFO from `head`
    size_t head = 0;
  };

  void AddComm(const std::optional<CommRequest>& request, Phase phase, OpKind kind, uint32_t layer);
  void RunProgram(uint64_t npu);
  void StartBackground(uint64_t npu);
  void MaybeFinish(uint64_t npu);
  CollectiveId IdOf(uint32_t occurrence);
  /// NPU 0's phase sums (the timeline reports one NPU, as PlayIteration does).
  void RecordCompute(Phase phase, double duration_ns);
  void RecordComm(uint64_t npu, Phase phase, double duration_ns);

  const Topology& m_topology;
  CollectiveExecutor& m_executor;
  EventClock& m_clock;
  std::vector<uint32_t> m_data_dimensions;
  std::vector<uint32_t> m_tensor_dimensions;

  OverlapMode m_overlap = OverlapMode::kNone;
  std::vector<Op> m_ops;  ///< one program, shared by every NPU
  std::vector<Occurrence> m_occurrences;
  std::vector<NpuState> m_npus;
  uint64_t m_finished_npus = 0;
  double m_start_ns = 0.0;
  double m_npu0_compute_end_ns = 0.0;
  std::function<void()> m_on_done;
  DrivenIteration m_result;
};

}  // namespace hfsim
