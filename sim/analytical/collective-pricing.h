// Closed-form price of one (possibly multi-dimensional) collective on the fabric.
//
// The collective is split into per-dimension stages (models/multi-dim-collective.h) and into C
// pipelined chunks (communication.chunks). Stage s on dimension d(s) takes t_s for one chunk
// (models/schedule-profile.h with a buffer of fraction_s * S / C). Chunks flow through the stages
// as a pipeline in which each dimension is one resource shared by all stages placed on it, so
//
//   time = sum_s t_s  +  (C - 1) * max_d W_d,      W_d = sum of t_s over stages on d
//
// the first chunk's trip through every stage (fill and drain) plus the remaining chunks paced by
// the busiest dimension. With C = 1 this is the plain sum of stage times; as C grows (and
// latency is small) it tends to max_d W_d, which is max_d(traffic_d / B_d) -- the bound LIBRA
// optimises -- whenever each dimension's algorithm keeps all of the NPU's links busy (ring on a
// FullyConnected dimension, for one, does not).
//
// A collective over a process group that covers part of a dimension is priced as if that
// dimension had the group's size there (workloads/graph/group-shape.h): same kind and link
// latency, and the share of the per-NPU bandwidth the group's links carry (BandwidthShare).
//
// Pricing is split in two so that one definition serves the engine and the optimiser: Plan()
// composes the stages once (bandwidth-independent), TimeNs() prices a plan at any bandwidths
// on any timeline number type (double, or one carrying a gradient).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/multi-dim-collective.h"
#include "models/schedule-profile.h"
#include "sim/analytical/chunk-pipeline.h"
#include "sim/scenario/scenario.h"
#include "topologies/topology.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {

struct CollectivePrice {
  double time_ns = 0.0;
  /// Per topology dimension: time it is busy with this collective (ns) and bytes one NPU sends.
  std::vector<double> dimension_busy_ns;
  std::vector<double> dimension_traffic_bytes;
};

/// A collective composed into stages on the fabric, ready to price at any bandwidths.
struct CollectivePlan {
  struct Stage {
    uint32_t dimension = 0;
    const ScheduleProfile* profile = nullptr;  ///< nullptr for an in-network stage
    double chunk_buffer_bytes = 0.0;           ///< one chunk's buffer
    /// The stage's per-NPU bandwidth as a fraction of the dimension's (BandwidthShare).
    double bandwidth_share = 1.0;
    uint64_t in_network_values = 0;            ///< values one chunk carries (in-network only)
  };
  std::vector<Stage> stages;
  /// Bytes one NPU sends into each dimension per occurrence.
  std::vector<double> traffic_bytes;
  /// astra_sim pricing: the price at the scenario's bandwidths, which is all it is defined for.
  std::optional<CollectivePrice> fixed;
};

class CollectivePricer {
 public:
  /// `aggregation`: the switch spec that prices "in_network" stages (models/in-network-allreduce.h);
  /// the loader guarantees it is present whenever an algorithm is "in_network".
  CollectivePricer(const std::vector<Dimension>& dimensions, const CommunicationSpec& communication,
                   const std::optional<AggregationSwitchSpec>& aggregation = std::nullopt);

  /// The collective over a group of `shape` (an empty shape: a group of one rank, priced 0).
  CollectivePlan Plan(CollectiveKind kind, uint64_t size_bytes, const GroupShape& shape) const;

  /// The plan's time with bandwidth_Bpns[d] on dimension d. Time = double gives the engine's
  /// price; another number type also carries d time / d B_d (set through
  /// SetBandwidthDerivative), for host-based stages under hfsim pricing.
  template <typename Time>
  Time TimeNs(const CollectivePlan& plan, const std::vector<double>& bandwidth_Bpns,
              std::vector<double>* busy_ns = nullptr) const;

  /// Plan and price at the scenario's bandwidths, with per-dimension busy time and traffic.
  CollectivePrice Price(const CollectivePlan& plan) const;
  /// A whole-dimension collective over `dimensions`, in the order its stages visit them.
  CollectivePrice Price(CollectiveKind kind, uint64_t size_bytes,
                        const std::vector<uint32_t>& dimensions) const;

  const std::vector<double>& Bandwidths() const { return m_bandwidth_Bpns; }

 private:
  double InNetworkStageNs(const CollectivePlan::Stage& stage, double bandwidth_Bpns) const;

  Topology m_topology;
  CommunicationSpec m_communication;
  std::optional<AggregationSwitchSpec> m_aggregation;
  std::vector<double> m_bandwidth_Bpns;
};

template <typename Time>
Time CollectivePricer::TimeNs(const CollectivePlan& plan, const std::vector<double>& bandwidth_Bpns,
                              std::vector<double>* busy_ns) const {
  if (plan.fixed) return Time(plan.fixed->time_ns);
  const CommunicationSpec& comm = m_communication;
  const uint32_t dimension_count = m_topology.DimensionCount();
  ChunkPipeline<Time> pipeline(dimension_count);
  for (const CollectivePlan::Stage& stage : plan.stages) {
    const double bandwidth = bandwidth_Bpns[stage.dimension] * stage.bandwidth_share;
    if (stage.profile == nullptr) {
      pipeline.AddStage(stage.dimension, Time(InNetworkStageNs(stage, bandwidth)));
      continue;
    }
    Time stage_ns = stage.profile->TimeNs(stage.chunk_buffer_bytes, bandwidth,
                                          m_topology.Dim(stage.dimension).latency_ns,
                                          comm.endpoint_delay_ns, comm.reduction_Bpns, comm.host);
    // d/dB of coefficient x buffer / (share x B), B the dimension's bandwidth.
    SetBandwidthDerivative(stage_ns, stage.dimension,
                           -stage.profile->bandwidth_coefficient * stage.chunk_buffer_bytes /
                               (stage.bandwidth_share * bandwidth_Bpns[stage.dimension] *
                                bandwidth_Bpns[stage.dimension]));
    pipeline.AddStage(stage.dimension, stage_ns);
  }
  if (busy_ns != nullptr) {
    if constexpr (std::is_same_v<Time, double>) {
      busy_ns->assign(dimension_count, 0.0);
      for (uint32_t d = 0; d < dimension_count; ++d) {
        (*busy_ns)[d] = pipeline.ChunkBusy(d) * comm.chunks;
      }
    }
  }
  return pipeline.Total(comm.chunks);
}

}  // namespace hfsim
