#include "workloads/graph/stage-program.h"

#include <algorithm>

#include "workloads/graph/parameter-gathers.h"
#include "workloads/graph/program-writer.h"

namespace hfsim {

namespace {

// The streams of each form (stage-program.h). The layer loop has no sends and no ring.
constexpr ProgramStreams kLoopStreams{kNoNode, kNoNode, 1,       2,       3,      4,
                                      kNoNode, kNoNode, kNoNode, kNoNode, kNoNode};
constexpr ProgramStreams kMegatronStreams{1, 2, 3, 8, 9, 10, 4, 5, 6, 7, 11};

class StageWriter {
 public:
  StageWriter(const StageWork& work, uint32_t stage, const StagePeers& peers,
              std::vector<GraphNode>& program)
      : m_work(work),
        m_layers(work.micro->layers),
        m_stage(stage),
        m_peers(peers),
        m_loop(work.form == ProgramForm::kLayerLoop),
        m_streams(m_loop ? kLoopStreams : kMegatronStreams),
        m_out(program, m_loop),
        m_gathers(m_layers, work.micro->prefetch_parameters, m_streams.gather, m_out),
        m_last_weight_grad(m_layers.size(), kNoNode),
        m_step_gathered(m_layers.size(), kNoNode) {
    if (work.overlap_options.parameter_gather) GatherUpdatedParameters();
  }

  void Step(const StageStep& step) {
    const uint32_t k = step.chunk * m_work.pipeline + m_stage;  // the model chunk
    if (step.forward) {
      Forward(k);
    } else {
      Backward(k);
    }
  }

  // Combined 1F1B (OverlapOptions::expert_all_to_all, Megatron's
  // overlap_moe_expert_parallel_comm): forward step `fs` and the backward step `bs` after it run
  // merged, layer by layer, as megatron/core/models/common/model_chunk_schedule_plan.py runs
  // them (TransformerModelChunkSchedulePlan.run: the forward chunk's layer j with the backward
  // chunk's j-th from the end, then the backward's remaining layers, then the forward's).
  // Megatron's form only (the layer loop has one micro-batch, so nothing to merge), without
  // ZeRO-3 or ring attention (neither runs with micro-batches and experts).
  void Merged(const StageStep& fs, const StageStep& bs) {
    const uint32_t kf = fs.chunk * m_work.pipeline + m_stage;
    const uint32_t kb = bs.chunk * m_work.pipeline + m_stage;
    const uint32_t flo = m_work.boundary[kf], fhi = m_work.boundary[kf + 1];
    const uint32_t blo = m_work.boundary[kb], bhi = m_work.boundary[kb + 1];
    const uint32_t f_received =
        kf > 0 ? Receive(PreviousRank(kf), 2 * uint64_t{kf}, flo - 1) : kNoNode;
    const uint32_t b_received =
        kb + 1 < Chunks() ? Receive(NextRank(kb), 2 * (uint64_t{kb} + 1) + 1, bhi - 1) : kNoNode;
    // The step starts once both messages are in and the stage's earlier work is done (run's
    // phase 0 waits for both receives; each plan records the compute stream before its first
    // node, record_current_stream), on either stream.
    const uint32_t start = m_out.Compute(GraphPhase::kForward, kNoLayer, 0.0, false);
    m_out.Wait(start, f_received);
    m_out.Wait(start, b_received);
    WaitForPendingSend(start);
    Chain f{start, kMainStream}, b{start, kMainStream};
    const uint32_t nf = fhi - flo, nb = bhi - blo, both = std::min(nf, nb);
    for (uint32_t j = 0; j < both; ++j) MergedLayers(flo + j, bhi - 1 - j, f, b);
    for (uint32_t j = both; j < nb; ++j) MergedLayers(kNoLayer, bhi - 1 - j, f, b);
    for (uint32_t j = both; j < nf; ++j) MergedLayers(flo + j, kNoLayer, f, b);
    // The step ends when both micro-batches are done (the chunk plan's run ends with the
    // compute stream waiting on both plans' events, wait_current_stream).
    const uint32_t end = m_out.Compute(GraphPhase::kForward, kNoLayer, 0.0, false);
    if (f.stream != kMainStream) m_out.Wait(end, f.last);
    if (b.stream != kMainStream) m_out.Wait(end, b.last);
    if (kf + 1 < Chunks()) {
      Send(NextRank(kf), 2 * (uint64_t{kf} + 1), fhi - 1, f.last);
      // Blocking sends: the stage waits for this one before it posts the next.
      HoldForPendingSend(GraphPhase::kForward);
    }
    if (kb > 0) Send(PreviousRank(kb), 2 * uint64_t{kb} + 1, blo - 1, b.last);
  }

  // After the last step: Megatron's form reduces every layer's gradients here, last layer first
  // (the order backward finishes them). Then ZeRO-1/2's gathers of the updated parameters on the
  // main stream, once every gradient is reduced.
  void Finish() {
    if (!m_loop) {
      for (uint32_t i = static_cast<uint32_t>(m_layers.size()); i-- > 0;) {
        if (m_last_weight_grad[i] != kNoNode) ReduceGradients(i);
      }
    }
    // A stage's last blocking send holds it until the send is done (Megatron's blocking
    // _communicate), before it reduces its gradients.
    HoldForPendingSend(GraphPhase::kWeightGrad);
    // With parameter_gather overlap the gathers ran at the start (GatherUpdatedParameters).
    if (m_work.overlap_options.parameter_gather) return;
    for (uint32_t i = 0; i < m_layers.size(); ++i) {
      if (m_last_weight_grad[i] == kNoNode) continue;
      for (const auto* request : {&m_layers[i].step_gather, &m_layers[i].expert_step_gather}) {
        if (!*request) continue;
        const uint32_t at =
            m_out.Collective(GraphPhase::kWeightGrad, i, **request, kMainStream, false);
        if (m_work.overlap) m_out.Wait(at, m_last_gradient);
        m_last_gradient = kNoNode;
      }
    }
  }

 private:
  uint32_t Chunks() const { return static_cast<uint32_t>(m_work.boundary.size() - 1); }
  uint32_t Send(uint32_t peer, uint64_t tag, uint32_t layer, uint32_t after) {
    const uint32_t sent = m_out.PointToPoint(GraphNodeKind::kSend, peer, tag,
                                             m_work.boundary_bytes[layer], m_streams.send);
    m_out.Wait(sent, after);
    // Without overlap the stage's next compute waits for the send (Megatron's _communicate
    // waits on every request it issued, wait_on_reqs, unless overlap_p2p_comm).
    if (!m_work.overlap_options.pipeline_sends) m_pending_send = sent;
    return sent;
  }
  uint32_t Receive(uint32_t peer, uint64_t tag, uint32_t layer) {
    const uint32_t received = m_out.PointToPoint(GraphNodeKind::kRecv, peer, tag,
                                                 m_work.boundary_bytes[layer], m_streams.recv);
    // Without overlap a receive is posted when the stage reaches its step, not ahead.
    if (!m_work.overlap_options.pipeline_sends) m_out.Wait(received, m_out.LastMain());
    return received;
  }
  // The stage before chunk k's and the one after (activations into chunk k travel with tag 2k,
  // gradients out of chunk k with 2k + 1).
  uint32_t PreviousRank(uint32_t k) const {
    return m_peers.stage_rank[(k + Chunks() - 1) % Chunks() % m_work.pipeline];
  }
  uint32_t NextRank(uint32_t k) const { return m_peers.stage_rank[(k + 1) % m_work.pipeline]; }
  // The first compute of a layer waits for what the step received.
  void WaitForReceive(uint32_t node) {
    m_out.Wait(node, m_received);
    m_received = kNoNode;
    WaitForPendingSend(node);
  }
  // Without pipeline-send overlap, `node` (the stage's next compute) waits for the blocking
  // send issued last, once.
  void WaitForPendingSend(uint32_t node) {
    m_out.Wait(node, m_pending_send);
    m_pending_send = kNoNode;
  }
  // The same where no compute follows: a node of no time holds the stage until the send is done.
  void HoldForPendingSend(GraphPhase phase) {
    if (m_pending_send == kNoNode) return;
    WaitForPendingSend(m_out.Compute(phase, kNoLayer, 0.0, false));
  }

  // Parameter-gather overlap: the gathers of the parameters the last step updated run at the
  // start of the iteration on a stream of their own, in the order forward needs them; the first
  // forward of each layer waits for its own (FirstForwardWaits). Megatron's distributed
  // optimizer with overlap_param_gather launches them after the step and waits for each bucket
  // in the forward pre-hook of its first use (megatron/core/distributed/
  // distributed_data_parallel.py, _make_forward_pre_hook; param_and_grad_buffer.py,
  // start_param_sync / finish_param_sync).
  void GatherUpdatedParameters() {
    for (uint32_t k = m_stage; k < Chunks(); k += m_work.pipeline) {
      for (uint32_t i = m_work.boundary[k]; i < m_work.boundary[k + 1]; ++i) {
        for (const auto* request : {&m_layers[i].step_gather, &m_layers[i].expert_step_gather}) {
          if (!*request) continue;
          m_step_gathered[i] = m_out.Collective(GraphPhase::kWeightGrad, i, **request,
                                                m_streams.step_gather, false);
        }
      }
    }
  }
  void FirstForwardWaits(uint32_t i, uint32_t node) {
    m_out.Wait(node, m_step_gathered[i]);
    m_step_gathered[i] = kNoNode;
  }

  // Layer i's pass as compute and its tensor-parallel collective `comm`: blocking, or with
  // tensor-parallel overlap pipelined in chunks (Megatron's --tp-comm-overlap, Transformer
  // Engine's userbuffers): the pass's non-GEMM share first, then its GEMM share in
  // tensor_chunks chunks on the main stream, chunk j's collective (1 / chunks of the buffer) on
  // the tensor stream once chunk j is computed. Returns the pass's first compute node and its
  // last tensor collective (kNoNode when blocking).
  struct PassNodes {
    uint32_t first, comm;
  };
  PassNodes ChunkedPass(GraphPhase phase, uint32_t i, double compute_ns, double gemm_share,
                        const CommRequest& comm) {
    const uint32_t chunks = m_work.tensor_chunks;
    const double gemm_ns = compute_ns * gemm_share;
    uint32_t first = kNoNode;
    if (compute_ns - gemm_ns > 0) first = m_out.Compute(phase, i, compute_ns - gemm_ns, false);
    CommRequest part = comm;
    part.size_bytes = (comm.size_bytes + chunks - 1) / chunks;
    const uint32_t split = SplitKinds(part).size();
    uint32_t sent = kNoNode;
    for (uint32_t j = 0; j < chunks; ++j) {
      const uint32_t gemm = m_out.Compute(phase, i, gemm_ns / chunks, false);
      if (first == kNoNode) first = gemm;
      sent = m_out.Collective(phase, i, part, m_streams.tensor, false);
      // The chunk's first collective (of a split pair, the all-gather) waits for the chunk's
      // compute; the layer loop's writer already chains it there.
      if (!m_out.Chained()) m_out.Wait(sent + 1 - split, gemm);
    }
    return {first, sent};
  }
  // The GEMMs' share of `rest_ns`, the part of a pass of `pass_ns` that runs beside no ring
  // attention (the GEMMs are all in it).
  static double GemmShareOf(double pass_ns, double gemm_share, double rest_ns) {
    if (rest_ns <= 0) return 0.0;
    return std::min(1.0, pass_ns * gemm_share / rest_ns);
  }
  bool Chunked(const std::optional<CommRequest>& comm, double share) const {
    return m_work.overlap_options.tensor_parallel && comm &&
           comm->group == ParallelGroup::kTensor && share > 0 && m_work.tensor_chunks > 1;
  }

  void Forward(uint32_t k) {
    const uint32_t lo = m_work.boundary[k], hi = m_work.boundary[k + 1];
    if (k > 0) m_received = Receive(PreviousRank(k), 2 * uint64_t{k}, lo - 1);
    m_gathers.StartPass(true, lo, hi);
    uint32_t last = kNoNode;
    for (uint32_t i = lo; i < hi; ++i) {
      const LayerWork& work = m_layers[i];
      const bool ring = work.context_kv_bytes > 0;
      m_gathers.Before(i);
      // With ring attention the core runs apart, after the rest of the layer's compute.
      const double rest_ns = work.forward_ns - (ring ? work.attention_forward_ns : 0.0);
      const double share = GemmShareOf(work.forward_ns, work.forward_gemm_share, rest_ns);
      const bool chunked = Chunked(work.forward_comm, share);
      uint32_t tensor_comm = kNoNode;
      if (chunked) {
        const PassNodes pass =
            ChunkedPass(GraphPhase::kForward, i, rest_ns, share, *work.forward_comm);
        last = pass.first;
        tensor_comm = pass.comm;
      } else {
        last = m_out.Compute(GraphPhase::kForward, i, rest_ns, false);
      }
      m_gathers.WaitFor(i, last);
      WaitForReceive(last);
      FirstForwardWaits(i, last);
      if (ring) {
        last = WriteAttentionRing(m_out, m_streams, work, i, true, m_out.LastMain(),
                                  m_work.context, m_peers.ring);
      }
      if (chunked) {
        // The layer's output is whole once its last chunk's collective is done.
        last = m_out.Compute(GraphPhase::kForward, i, 0.0, false);
        m_out.Wait(last, tensor_comm);
      } else if (work.forward_comm) {
        last = m_out.Collective(GraphPhase::kForward, i, *work.forward_comm, kMainStream, !ring);
      }
      if (work.forward_expert) {
        last = m_out.Collective(GraphPhase::kForward, i, *work.forward_expert, kMainStream, true);
      }
    }
    if (k + 1 < Chunks()) Send(NextRank(k), 2 * (uint64_t{k} + 1), hi - 1, last);
  }

  void Backward(uint32_t k) {
    const uint32_t lo = m_work.boundary[k], hi = m_work.boundary[k + 1];
    if (k + 1 < Chunks()) m_received = Receive(NextRank(k), 2 * (uint64_t{k} + 1) + 1, hi - 1);
    m_gathers.StartPass(false, lo, hi);
    uint32_t last = kNoNode;
    for (uint32_t i = hi; i-- > lo;) {
      const LayerWork& work = m_layers[i];
      const bool ring = work.context_kv_bytes > 0;
      m_gathers.Before(i);
      bool continues = false;
      uint32_t tensor_comm = kNoNode;
      if (ring) {
        // The attention core's blocks first, then the rest once the key/value gradients are
        // home.
        const uint32_t start = m_out.Compute(GraphPhase::kInputGrad, i, 0.0, false);
        m_gathers.WaitFor(i, start);
        WaitForReceive(start);
        const uint32_t home = WriteAttentionRing(m_out, m_streams, work, i, false, start,
                                                 m_work.context, m_peers.ring);
        const double rest_ns = work.input_grad_ns - work.attention_input_grad_ns;
        const double share =
            GemmShareOf(work.input_grad_ns, work.input_grad_gemm_share, rest_ns);
        if (Chunked(work.input_grad_comm, share)) {
          const PassNodes pass =
              ChunkedPass(GraphPhase::kInputGrad, i, rest_ns, share, *work.input_grad_comm);
          m_out.Wait(pass.first, home);
          tensor_comm = pass.comm;
        } else {
          last = m_out.Compute(GraphPhase::kInputGrad, i, rest_ns, false);
          m_out.Wait(last, home);
        }
      } else if (Chunked(work.input_grad_comm, work.input_grad_gemm_share)) {
        const PassNodes pass = ChunkedPass(GraphPhase::kInputGrad, i, work.input_grad_ns,
                                           work.input_grad_gemm_share, *work.input_grad_comm);
        m_gathers.WaitFor(i, pass.first);
        WaitForReceive(pass.first);
        tensor_comm = pass.comm;
      } else {
        last = m_out.Compute(GraphPhase::kInputGrad, i, work.input_grad_ns, false);
        m_gathers.WaitFor(i, last);
        WaitForReceive(last);
        continues = true;
      }
      if (tensor_comm != kNoNode) {
        // Chunked: the weight gradients compute while the last chunks' collectives run (as
        // Transformer Engine's bulk overlaps run them beside wgrad); the expert exchange and
        // the layer below wait for the collectives.
        if (work.input_grad_expert) {
          const uint32_t ready = m_out.Compute(GraphPhase::kInputGrad, i, 0.0, false);
          m_out.Wait(ready, tensor_comm);
          tensor_comm = kNoNode;
        }
      } else if (work.input_grad_comm) {
        last = m_out.Collective(GraphPhase::kInputGrad, i, *work.input_grad_comm, kMainStream,
                                continues);
      }
      if (work.input_grad_expert) {
        last = m_out.Collective(GraphPhase::kInputGrad, i, *work.input_grad_expert, kMainStream,
                                true);
      }
      last = m_out.Compute(GraphPhase::kWeightGrad, i, work.weight_grad_ns, continues);
      m_last_weight_grad[i] = last;
      if (m_loop) ReduceGradients(i);
      if (tensor_comm != kNoNode) {
        last = m_out.Compute(GraphPhase::kInputGrad, i, 0.0, false);
        m_out.Wait(last, tensor_comm);
      }
    }
    if (k > 0) Send(PreviousRank(k), 2 * uint64_t{k} + 1, lo - 1, last);
  }

  // A micro-batch's last node in a merged step, and its stream: the next node of the same
  // micro-batch on another stream waits for it (Megatron's ScheduleNode waits on and records one
  // CUDA event per micro-batch and chunk, megatron/core/pipeline_parallel/utils.py,
  // stream_acquire_context, so each micro-batch's nodes run in the order they are issued).
  struct Chain {
    uint32_t last;
    uint32_t stream;
  };
  void Follow(Chain& chain, uint32_t node, uint32_t stream) {
    if (chain.stream != stream) m_out.Wait(node, chain.last);
    chain = {node, stream};
  }
  uint32_t MergedCompute(Chain& chain, GraphPhase phase, uint32_t layer, double ns) {
    const uint32_t at = m_out.Compute(phase, layer, ns, false);
    WaitForPendingSend(at);
    Follow(chain, at, kMainStream);
    return at;
  }
  // One of the two all-to-alls (dispatch or combine) of `request`, on the expert stream.
  void MergedExchange(Chain& chain, GraphPhase phase, uint32_t layer,
                      const CommRequest& request) {
    CommRequest one = request;
    one.count = 1;
    Follow(chain, m_out.Collective(phase, layer, one, m_streams.expert, false), m_streams.expert);
  }
  void MergedBlocking(Chain& chain, GraphPhase phase, uint32_t layer,
                      const std::optional<CommRequest>& comm) {
    if (comm) Follow(chain, m_out.Collective(phase, layer, *comm, kMainStream, false), kMainStream);
  }
  // Forward layer fi beside backward layer bi (either kNoLayer), in the order of
  // TransformerLayerSchedulePlan.run (model_chunk_schedule_plan.py):
  //   expert stream: combine's gradient (b) | dispatch (f) | dispatch's gradient (b) | combine (f)
  //   main stream:   pre-dispatch (f) | experts' backward (b) | experts (f) | pre-dispatch's
  //                  backward (b)
  // The pre-dispatch part is everything but the routed experts (attention, router, shared
  // experts: fine_grained_callables.py, submodule_pre_dispatch_forward), with the layer's
  // blocking tensor-parallel collectives. Weight gradients follow their input gradients inside
  // each backward part, as Megatron runs them without delay_wgrad_compute (its default): the
  // dispatch's gradient waits for the experts' weight gradients, the next layer's combine
  // gradient for the pre-dispatch ones. A layer without an expert exchange is its pre-dispatch
  // part alone.
  void MergedLayers(uint32_t fi, uint32_t bi, Chain& f, Chain& b) {
    const LayerWork* fw = fi != kNoLayer ? &m_layers[fi] : nullptr;
    const LayerWork* bw = bi != kNoLayer ? &m_layers[bi] : nullptr;
    const bool f_exchange = fw && fw->forward_expert, b_exchange = bw && bw->input_grad_expert;
    if (b_exchange) MergedExchange(b, GraphPhase::kInputGrad, bi, *bw->input_grad_expert);
    if (fw) {
      const uint32_t pre = MergedCompute(f, GraphPhase::kForward, fi,
                                         fw->forward_ns - fw->expert_forward_ns);
      FirstForwardWaits(fi, pre);
      MergedBlocking(f, GraphPhase::kForward, fi, fw->forward_comm);
    }
    if (b_exchange) {
      MergedCompute(b, GraphPhase::kInputGrad, bi, bw->expert_input_grad_ns);
      MergedCompute(b, GraphPhase::kWeightGrad, bi, bw->expert_weight_grad_ns);
    }
    if (f_exchange) MergedExchange(f, GraphPhase::kForward, fi, *fw->forward_expert);
    if (b_exchange) MergedExchange(b, GraphPhase::kInputGrad, bi, *bw->input_grad_expert);
    if (f_exchange) {
      MergedCompute(f, GraphPhase::kForward, fi, fw->expert_forward_ns);
      MergedExchange(f, GraphPhase::kForward, fi, *fw->forward_expert);
    }
    if (bw) {
      MergedCompute(b, GraphPhase::kInputGrad, bi, bw->input_grad_ns - bw->expert_input_grad_ns);
      MergedBlocking(b, GraphPhase::kInputGrad, bi, bw->input_grad_comm);
      m_last_weight_grad[bi] = MergedCompute(b, GraphPhase::kWeightGrad, bi,
                                             bw->weight_grad_ns - bw->expert_weight_grad_ns);
    }
  }

  // Layer i's gradients: its own over the data group, its routed experts' over the expert-data
  // group. On a background stream they wait for the layer's last weight-gradient compute.
  void ReduceGradients(uint32_t i) {
    const LayerWork& work = m_layers[i];
    for (const auto* request : {&work.weight_grad_comm, &work.expert_grad_comm}) {
      if (!*request) continue;
      const uint32_t stream = m_work.overlap ? m_streams.gradient : kMainStream;
      const uint32_t at = m_out.Collective(GraphPhase::kWeightGrad, i, **request, stream, false);
      if (m_work.overlap && !m_loop) m_out.Wait(at, m_last_weight_grad[i]);
      m_last_gradient = at;
    }
  }

  const StageWork& m_work;
  const std::vector<LayerWork>& m_layers;
  uint32_t m_stage;
  const StagePeers& m_peers;
  bool m_loop;
  ProgramStreams m_streams;
  ProgramWriter m_out;
  ParameterGathers m_gathers;
  std::vector<uint32_t> m_last_weight_grad;  ///< per layer of this stage: its last one
  uint32_t m_received = kNoNode;             ///< what the current step received, until used
  uint32_t m_last_gradient = kNoNode;        ///< the last gradient collective written
  std::vector<uint32_t> m_step_gathered;     ///< per layer: its overlapped step gather, until used
  uint32_t m_pending_send = kNoNode;         ///< a blocking send the next compute waits for
};

}  // namespace

uint64_t LayerLoopNodeCount(const TrainingIteration& work) {
  auto nodes_of = [](const std::optional<CommRequest>& comm) -> uint64_t {
    return comm ? SplitKinds(*comm).size() : 0;
  };
  uint64_t count = 0;
  for (const LayerWork& layer : work.layers) {
    count += 3 + nodes_of(layer.forward_comm) + nodes_of(layer.input_grad_comm) +
             nodes_of(layer.weight_grad_comm) + nodes_of(layer.forward_gather) +
             nodes_of(layer.backward_gather) + nodes_of(layer.step_gather);
  }
  return count;
}

void WriteStageProgram(const StageWork& work, uint32_t stage, const std::vector<StageStep>& steps,
                       const StagePeers& peers, std::vector<GraphNode>& program) {
  StageWriter writer(work, stage, peers, program);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].paired && i + 1 < steps.size()) {
      writer.Merged(steps[i], steps[i + 1]);
      ++i;
    } else {
      writer.Step(steps[i]);
    }
  }
  writer.Finish();
}

}  // namespace hfsim
