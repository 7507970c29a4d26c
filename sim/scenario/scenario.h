// A scenario: everything one simulation needs, as plain validated data with units normalised
// (ns, bytes, bytes/ns). Built once from JSON by scenario-parser.h and never re-read from JSON.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "models/aggregation/aggregation-spec.h"
#include "models/collective.h"
#include "models/compression/wire-size.h"
#include "models/compute/attention-time.h"
#include "models/compute/device.h"
#include "models/compute/precision.h"
#include "models/host-stack.h"
#include "models/learning/gossip.h"
#include "models/learning/learning-task.h"
#include "models/multi-dim-collective.h"
#include "sim/engines/engine-table.h"  // EngineKind
#include "sim/scenario/optimize-spec.h"
#include "sim/scenario/sweep-spec.h"
#include "sim/scenario/validation-spec.h"
#include "topologies/dimension.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/graph/parallel-layout.h"
#include "workloads/graph/placed-graph.h"
#include "workloads/layer.h"
#include "workloads/memory-estimate.h"
#include "workloads/model-flops.h"
#include "workloads/parameter-server.h"
#include "workloads/training-loop.h"
#include "workloads/transformer-spec.h"

namespace hfsim {

/// kParameterServer: PS-lite style pushes and pulls between workers and server shards
/// (workloads/parameter-server.h, docs/parameter-server.md).
/// kGraph: an execution graph given in the scenario (workload.graph, docs/graph.md).
enum class WorkloadKind { kTraining, kCollective, kParameterServer, kGossip, kGraph };

/// A single collective as the whole workload (for studying one operation).
struct CollectiveWorkload {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t size_bytes = 0;
  /// Dimensions the collective spans, in the order its stages visit them.
  std::vector<uint32_t> dimensions;
};

struct TrainingWorkload {
  /// Zoo name, or the user's own name for a model given layer by layer.
  std::string model_name;
  /// True when the layers came from the scenario rather than the zoo (echoed back in full).
  bool custom_model = false;
  /// The hyper-parameters the model was built from, when the scenario gave them
  /// ("transformer" or "hf_config"; echoed back as "transformer").
  std::optional<TransformerSpec> transformer;
  Model model;
  /// Tokens per sample for transformers (0 for CNNs).
  uint32_t sequence_length_tokens = 0;
  /// Dimensions carrying each kind of parallelism. Each dimension is used by exactly one, unless
  /// tensor_per_dimension splits it.
  std::vector<uint32_t> data_dimensions;
  std::vector<uint32_t> tensor_dimensions;
  /// parallelism.tensor_per_dimension, when it splits some dimension between the two kinds: the
  /// tensor group's NPUs along each dimension (the data group gets size / that). Empty when
  /// every dimension belongs to one kind (the lists above say it all).
  std::vector<uint32_t> tensor_per_dimension;
  /// parallelism.pipeline and its keys: pipeline 1 (the default) is one stage; above 1 the
  /// model is cut into stages (workloads/graph/pipeline-schedule.h).
  PipelineLayout pipeline;
  /// Batch, degrees, precisions, compute rate and overlap.
  TrainingConfig config;
  /// The device's peak in TFLOP/s as the user wrote it (config holds it in FLOP/ns, and the
  /// achieved fraction).
  double peak_TFLOPS = 0.0;
  /// npu.hbm_GiB (0: not given, nothing refused) and npu.allow_memory_overflow.
  double hbm_GiB = 0.0;
  bool allow_memory_overflow = false;
  /// What the rank that needs the most keeps in memory (workloads/memory-estimate.h).
  RankMemory memory;
  /// workload.training.routing as given: a capacity factor, or a skew (0 when not given).
  double capacity_factor = 0.0;
  double expert_skew = 0.0;
  /// workload.training.flop_convention: how the report's model FLOPs count the attention core
  /// (sim/report/throughput.h).
  FlopConvention flop_convention = FlopConvention::kMegatronCausal;
  /// npu.device: the preset it names (nullptr when not given). It sets peak_TFLOPS (at the
  /// training precision), hbm_GiB and the HBM bandwidth unless those are given explicitly.
  const DeviceSpec* device = nullptr;
  /// npu.peak_TFLOPS and npu.compute_efficiency as given explicitly. Without an efficiency a
  /// device runs the kernel-level compute model (config.kernel_model).
  bool peak_TFLOPS_given = false;
  bool compute_efficiency_given = false;
  /// workload.training.precision and .attention when given (echoed only then): the training
  /// precision as Megatron-LM + Transformer Engine mean it (bf16 by default) and the attention
  /// implementation (fused by default).
  std::optional<Precision> precision;
  std::optional<AttentionImpl> attention;
  /// workload.training.bf16_layers when given: how many transformer layers at the start and at
  /// the end of the model stay in BF16 under FP8 (Megatron-LM's first_last_layers_bf16 with
  /// num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16). Marked on the model's layers
  /// (Layer::high_precision).
  struct Bf16Layers {
    uint32_t first = 0, last = 0;
  };
  std::optional<Bf16Layers> bf16_layers;
  Precision TrainingPrecision() const { return precision.value_or(Precision::kBf16); }

  /// Ranks composed from the parallel axes in Megatron's order (or parallelism.order and
  /// placement: a pipeline, expert groups carved out of the data group, context, an order or a
  /// placement given), rather than placed along the dimension lists above
  /// (workloads/graph/rank-placement.h).
  bool megatron_layout = false;
  bool MegatronLayout() const { return megatron_layout; }
};

/// How the analytical engine prices a collective: hfsim's own model (docs/scenario.md §10) or
/// ASTRA-sim's congestion-unaware analytical semantics (docs/astra-sim.md).
enum class PricingModel { kHfsim, kAstraSim };
/// Scenario spellings (communication.pricing, run --pricing).
inline constexpr NameTable<PricingModel, 2> kPricingModelNames = {{
    {PricingModel::kHfsim, "hfsim"},
    {PricingModel::kAstraSim, "astra_sim"},
}};
inline std::string_view ToString(PricingModel pricing) {
  return NameIn(kPricingModelNames, pricing);
}

struct CommunicationSpec {
  MultiDimScheme scheme = MultiDimScheme::kHierarchical;
  PricingModel pricing = PricingModel::kHfsim;
  /// astra_sim pricing only: chunks one dimension works on at once (ASTRA-sim's
  /// active-chunks-per-dimension); later chunks queue for the dimension, first come first served.
  uint32_t active_chunks_per_dimension = 1;
  /// algorithms[kind][d]: the algorithm for collective kind on topology dimension d.
  std::array<std::vector<CollectiveAlgorithm>, 4> algorithms;
  /// Pipeline chunks each collective is split into (>= 1).
  uint32_t chunks = 1;
  /// Fixed cost per schedule step at the endpoints, ns.
  double endpoint_delay_ns = 0.0;
  /// Memory bandwidth for reductions, bytes/ns; 0 = reductions are free.
  double reduction_Bpns = 0.0;
  /// The host side of each message: posting, copies, serialisation, polling
  /// (models/host-stack.h). Kind none with only send_per_message_ns set is the older
  /// `host_overhead_ns_per_message`.
  HostStack host;
  /// How gradients travel (S5, "compression"): parameter_server dense workloads only.
  CompressionChoice compression;

  const std::vector<CollectiveAlgorithm>& AlgorithmsFor(CollectiveKind kind) const {
    return algorithms[static_cast<size_t>(kind)];
  }
};

/// Packet-level options (engine "packet"); the analytical engine ignores them.
enum class CongestionControl { kNone, kDcqcn };
inline constexpr NameTable<CongestionControl, 2> kCongestionControlNames = {{
    {CongestionControl::kNone, "none"},
    {CongestionControl::kDcqcn, "dcqcn"},
}};
/// How messages travel: hfsim's RDMA-style transport on the lean L2 fabric, or ns-3's own TCP
/// over an IPv4 fabric (host-stack baselines).
enum class TransportKind { kRdma, kTcp };
inline constexpr NameTable<TransportKind, 2> kTransportKindNames = {{
    {TransportKind::kRdma, "rdma"},
    {TransportKind::kTcp, "tcp"},
}};
/// ns-3's TCP congestion control (transport "tcp" only).
enum class TcpVariant { kNewReno, kCubic };
inline constexpr NameTable<TcpVariant, 2> kTcpVariantNames = {{
    {TcpVariant::kNewReno, "new_reno"},
    {TcpVariant::kCubic, "cubic"},
}};

/// Packets lost at random on links: on `link` (a fabric link id, see `hfsim topology -o`), on
/// every link of `dimension`, or on every link when neither is given.
struct LinkLoss {
  std::optional<uint32_t> dimension;
  std::optional<uint64_t> link;
  double rate = 0.0;  ///< probability that one packet is lost, in [0, 1)
};

/// A link that drops everything sent on it during [from_ns, until_ns).
struct LinkDown {
  uint64_t link = 0;
  double from_ns = 0.0;
  double until_ns = 0.0;
};

/// The largest queue ns-3 can hold: its QueueSize counts bytes in 32 bits (2^32 would wrap to 0).
inline constexpr uint64_t kMaxPacketQueueBytes = (uint64_t{1} << 32) - 1;

struct PacketSpec {
  uint32_t mtu_bytes = 4096;       ///< payload bytes per data packet
  uint32_t header_bytes = 62;      ///< wire bytes per packet besides payload (RoCEv2 framing)
  uint64_t queue_bytes = 2 << 20;  ///< capacity of each egress port's queue
  uint64_t ecn_threshold_bytes = 256 << 10;  ///< queue depth above which packets are ECN-marked
  CongestionControl congestion_control = CongestionControl::kDcqcn;
  uint32_t ack_every_packets = 8;           ///< the receiver acknowledges every this many packets
  double retransmit_timeout_ns = 500000.0;  ///< with TCP: its minimum retransmission timeout
  TransportKind transport = TransportKind::kRdma;
  TcpVariant tcp_variant = TcpVariant::kNewReno;
  /// A packet run whose estimated memory (sim/packet/packet-memory.h) exceeds this is refused.
  double max_memory_GiB = 16.0;
  bool max_memory_given = false;  ///< echoed only when the scenario sets it
  std::vector<LinkLoss> link_loss;
  std::vector<LinkDown> link_down;
};

/// Decentralised training with gossip exchanges (S3; "gossip", docs/learning.md): workers on
/// chosen NPUs really train a small classifier, and each exchange carries the simulated model's
/// bytes over the fabric.
struct GossipWorkload {
  GossipSpec spec;  ///< spec.workers == worker_npus.size(); spec.model_bytes from the model
  LearningTaskSpec task;
  std::vector<uint32_t> worker_npus;
  uint32_t server_npu = 0;  ///< the elastic-averaging centre ("elastic" only)
  /// The simulated model: a zoo name (its fp32 parameters make model_bytes), or "" when the
  /// scenario gave model_bytes directly.
  std::string model_name;
  double step_compute_ns = 0.0;  ///< one local SGD step of the simulated model
  double target_accuracy = 0.9;  ///< for time-to-accuracy
};

/// Synchronous data-parallel training of a small classifier to a target accuracy, its gradients
/// travelling with the scenario's compression ("workload.parameter_server.convergence", S5's time
/// to accuracy; sim/runs/convergence-run.h). Each step stands for one iteration of the workload.
struct ConvergenceSpec {
  LearningTaskSpec task;
  ClassifierSpec classifier;
  LearningRate learning_rate;
  uint32_t batch = 16;
  uint32_t max_steps = 300;
  uint32_t eval_every = 5;
  double target_accuracy = 0.85;
};

struct Scenario {
  std::string name;
  /// Free text for people; echoed, never interpreted.
  std::string description;
  uint64_t seed = 1;
  EngineKind engine = EngineKind::kAnalytical;
  std::vector<Dimension> dimensions;
  WorkloadKind workload_kind = WorkloadKind::kCollective;
  CollectiveWorkload collective;
  TrainingWorkload training;
  ParameterServerWorkload parameter_server;
  /// Time to accuracy of a parameter_server workload, when given.
  std::optional<ConvergenceSpec> convergence;
  GossipWorkload gossip;
  /// workload.graph: the graph as read (node positions in dependency order, FLOPs turned into
  /// durations).
  ExecutionGraph graph;
  /// The workload's execution graph placed on the fabric, for training, collective and graph
  /// workloads (null for the others): generated and placed once by the loader, from the fields
  /// above (dimensions' kinds and sizes, the workload), then read by the admission checks, every
  /// engine, the progress estimate, the optimiser and sweeps (sim/scenario/scenario-graph.h).
  /// It does not depend on bandwidths or latencies: a copy of the scenario with other
  /// bandwidths shares it. Change what it is made from and the scenario must be loaded again
  /// (sweeps parse each parameter combination anew).
  std::shared_ptr<const PlacedGraph> placed_graph;
  CommunicationSpec communication;
  PacketSpec packet;
  /// Cost model and bandwidth-allocation problem for `hfsim optimize`; runs ignore it.
  OptimizeSpec optimize;
  /// Allocations and parameters for `hfsim sweep`; runs ignore it.
  SweepSpec sweep;
  /// The in-network aggregation switch ("aggregation", docs/aggregation.md), when given.
  std::optional<AggregationSwitchSpec> aggregation;
  /// What a real run of this job measured, for `hfsim validate`; runs ignore it (and echo it).
  std::optional<ValidationSpec> validation;
};

inline std::string_view ToString(CongestionControl control) {
  return NameIn(kCongestionControlNames, control);
}
inline std::string_view ToString(TransportKind transport) {
  return NameIn(kTransportKindNames, transport);
}
inline std::string_view ToString(TcpVariant variant) { return NameIn(kTcpVariantNames, variant); }

}  // namespace hfsim
