#include "sim/packet/training-driver.h"

#include <algorithm>
#include <stdexcept>

namespace hfsim {

TrainingDriver::TrainingDriver(const Topology& topology, CollectiveExecutor& executor,
                               EventClock& clock, std::vector<uint32_t> data_dimensions,
                               std::vector<uint32_t> tensor_dimensions)
    : m_topology(topology),
      m_executor(executor),
      m_clock(clock),
      m_data_dimensions(std::move(data_dimensions)),
      m_tensor_dimensions(std::move(tensor_dimensions)) {}

void TrainingDriver::AddComm(const std::optional<CommRequest>& request, Phase phase, OpKind kind,
                             uint32_t layer) {
  if (!request) return;
  const auto& dimensions =
      request->group == ParallelGroup::kData ? m_data_dimensions : m_tensor_dimensions;
  if (dimensions.empty()) {
    throw std::invalid_argument(
        "TrainingDriver: a collective over a parallel group that has no dimensions");
  }
  for (uint32_t i = 0; i < request->count; ++i) {
    m_ops.push_back({kind, phase, 0.0, static_cast<uint32_t>(m_occurrences.size())});
    m_occurrences.push_back(
        {request->kind, request->size_bytes, request->group, phase, std::nullopt, layer});
  }
}

void TrainingDriver::Start(const TrainingIteration& iteration, std::function<void()> on_done) {
  if (!m_npus.empty()) throw std::logic_error("TrainingDriver::Start: called twice");
  m_overlap = iteration.overlap;
  m_on_done = std::move(on_done);
  // The program, in PlayIteration's order.
  for (size_t i = 0; i < iteration.layers.size(); ++i) {
    const LayerWork& layer = iteration.layers[i];
    m_ops.push_back({OpKind::kCompute, Phase::kForward, layer.forward_ns, 0});
    AddComm(layer.forward_comm, Phase::kForward, OpKind::kBlocking, static_cast<uint32_t>(i));
  }
  const OpKind gradient = m_overlap == OverlapMode::kNone ? OpKind::kBlocking : OpKind::kBackground;
  for (size_t i = iteration.layers.size(); i-- > 0;) {
    const LayerWork& layer = iteration.layers[i];
    m_ops.push_back({OpKind::kCompute, Phase::kInputGrad, layer.input_grad_ns, 0});
    AddComm(layer.input_grad_comm, Phase::kInputGrad, OpKind::kBlocking, static_cast<uint32_t>(i));
    m_ops.push_back({OpKind::kCompute, Phase::kWeightGrad, layer.weight_grad_ns, 0});
    AddComm(layer.weight_grad_comm, Phase::kWeightGrad, gradient, static_cast<uint32_t>(i));
  }

  m_npus.assign(m_topology.NpuCount(), NpuState{});
  m_result = DrivenIteration{};
  m_result.npu_total_ns.assign(m_npus.size(), 0.0);
  m_start_ns = m_clock.NowNs();
  for (uint64_t npu = 0; npu < m_npus.size(); ++npu) RunProgram(npu);
}

std::vector<TrainingDriver::OccurrenceView> TrainingDriver::Occurrences() const {
  std::vector<OccurrenceView> views;
  views.reserve(m_occurrences.size());
  for (const Occurrence& o : m_occurrences) {
    views.push_back({o.kind, o.size_bytes, o.group, static_cast<int>(o.phase), o.id, o.layer});
  }
  return views;
}

CollectiveId TrainingDriver::IdOf(uint32_t occurrence) {
  Occurrence& o = m_occurrences[occurrence];
  if (!o.id) {
    o.id = m_executor.Create(
        o.kind, o.size_bytes,
        o.group == ParallelGroup::kData ? m_data_dimensions : m_tensor_dimensions);
    ++m_result.collectives;
  }
  return *o.id;
}

void TrainingDriver::RecordCompute(Phase phase, double duration_ns) {
  IterationTimeline& t = m_result.timeline;
  switch (phase) {
    case Phase::kForward:
      t.forward_compute_ns += duration_ns;
      break;
    case Phase::kInputGrad:
      t.input_grad_compute_ns += duration_ns;
      break;
    case Phase::kWeightGrad:
      t.weight_grad_compute_ns += duration_ns;
      break;
  }
}

void TrainingDriver::RecordComm(uint64_t npu, Phase phase, double duration_ns) {
  if (npu != 0) return;
  IterationTimeline& t = m_result.timeline;
  switch (phase) {
    case Phase::kForward:
      t.forward_comm_ns += duration_ns;
      break;
    case Phase::kInputGrad:
      t.input_grad_comm_ns += duration_ns;
      break;
    case Phase::kWeightGrad:
      t.weight_grad_comm_ns += duration_ns;
      break;
  }
}

void TrainingDriver::RunProgram(uint64_t npu) {
  // Runs ops until one has to wait (a compute timer or a blocking collective). pc moves past an
  // op before anything that may call back into this NPU, because a collective's `done` can run
  // from inside Enter.
  NpuState& state = m_npus[npu];
  while (state.pc < m_ops.size()) {
    const Op op = m_ops[state.pc++];
    switch (op.kind) {
      case OpKind::kCompute: {
        if (npu == 0) RecordCompute(op.phase, op.duration_ns);
        if (op.duration_ns <= 0.0) continue;
        m_clock.ScheduleNs(op.duration_ns, [this, npu] { RunProgram(npu); });
        return;
      }
      case OpKind::kBlocking: {
        const double entered_ns = m_clock.NowNs();
        m_executor.Enter(IdOf(op.occurrence), npu, [this, npu, entered_ns, phase = op.phase] {
          RecordComm(npu, phase, m_clock.NowNs() - entered_ns);
          RunProgram(npu);
        });
        return;
      }
      case OpKind::kBackground:
        state.background.push_back(op.occurrence);
        StartBackground(npu);
        continue;
    }
  }
  if (state.compute_done) return;
  state.compute_done = true;
  if (npu == 0) m_npu0_compute_end_ns = m_clock.NowNs();
  MaybeFinish(npu);
}

void TrainingDriver::StartBackground(uint64_t npu) {
  NpuState& state = m_npus[npu];
  if (state.background_busy || state.head == state.background.size()) return;
  state.background_busy = true;
  const uint32_t occurrence = state.background[state.head++];
  const double entered_ns = m_clock.NowNs();
  m_executor.Enter(IdOf(occurrence), npu, [this, npu, entered_ns] {
    RecordComm(npu, Phase::kWeightGrad, m_clock.NowNs() - entered_ns);
    m_npus[npu].background_busy = false;
    StartBackground(npu);
    MaybeFinish(npu);
  });
}

void TrainingDriver::MaybeFinish(uint64_t npu) {
  NpuState& state = m_npus[npu];
  if (state.finished || !state.compute_done || state.background_busy ||
      state.head != state.background.size()) {
    return;
  }
  state.finished = true;
  const double now = m_clock.NowNs();
  m_result.npu_total_ns[npu] = now - m_start_ns;
  IterationTimeline& t = m_result.timeline;
  if (npu == 0) {
    t.weight_grad_comm_exposed_ns =
        m_overlap == OverlapMode::kNone ? t.weight_grad_comm_ns : now - m_npu0_compute_end_ns;
  }
  if (++m_finished_npus < m_npus.size()) return;
  t.total_ns = *std::max_element(m_result.npu_total_ns.begin(), m_result.npu_total_ns.end());
  if (m_on_done) m_on_done();
}

}  // namespace hfsim
