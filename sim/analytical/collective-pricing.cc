#include "sim/analytical/collective-pricing.h"

#include <stdexcept>

#include "models/in-network-allreduce.h"
#include "sim/analytical/astra-sim-pricing.h"

namespace hfsim {

CollectivePricer::CollectivePricer(const std::vector<Dimension>& dimensions,
                                   const CommunicationSpec& communication,
                                   const std::optional<AggregationSwitchSpec>& aggregation)
    : m_topology(dimensions), m_communication(communication), m_aggregation(aggregation) {
  m_bandwidth_Bpns.reserve(dimensions.size());
  for (const Dimension& dim : dimensions) m_bandwidth_Bpns.push_back(dim.bandwidth_Bpns);
}

CollectivePlan CollectivePricer::Plan(CollectiveKind kind, uint64_t size_bytes,
                                      const GroupShape& shape) const {
  CollectivePlan plan;
  const uint32_t dimension_count = m_topology.DimensionCount();
  plan.traffic_bytes.assign(dimension_count, 0.0);
  if (shape.dimensions.empty()) return plan;  // a group of one has nothing to exchange
  // A group covering part of a dimension sees a smaller dimension of the same kind.
  bool partial = false;
  for (size_t i = 0; i < shape.dimensions.size(); ++i) {
    partial |= shape.sizes[i] != m_topology.Dim(shape.dimensions[i]).size;
  }
  std::optional<Topology> resized;
  if (partial) resized.emplace(DimensionsSeenBy(m_topology.Dimensions(), shape));
  const Topology& seen = partial ? *resized : m_topology;
  if (m_communication.pricing == PricingModel::kAstraSim) {
    if (!partial) {
      plan.fixed = AstraSimPrice(seen, m_communication, kind, size_bytes, shape.dimensions);
    } else {
      // ASTRA-sim's formulas read the bandwidth from the dimension: give it the group's share.
      std::vector<Dimension> dims = seen.Dimensions();
      for (uint32_t d = 0; d < dims.size(); ++d) {
        dims[d].bandwidth_Bpns *= BandwidthShare(m_topology.Dim(d), dims[d].size);
      }
      plan.fixed =
          AstraSimPrice(Topology(dims), m_communication, kind, size_bytes, shape.dimensions);
    }
    plan.traffic_bytes = plan.fixed->dimension_traffic_bytes;
    return plan;
  }
  const auto stages = ComposeStages(kind, m_communication.scheme, shape.dimensions, seen,
                                    m_communication.AlgorithmsFor(kind));
  const double chunks = m_communication.chunks;
  const double size = static_cast<double>(size_bytes);
  plan.stages.reserve(stages.size());
  for (const CollectiveStage& stage : stages) {
    const Dimension& dim = seen.Dim(stage.dimension);
    CollectivePlan::Stage planned;
    planned.dimension = stage.dimension;
    planned.chunk_buffer_bytes = stage.buffer_fraction * size / chunks;
    planned.bandwidth_share = BandwidthShare(m_topology.Dim(stage.dimension), dim.size);
    if (stage.algorithm == CollectiveAlgorithm::kInNetwork) {
      if (!m_aggregation)
        throw std::logic_error("CollectivePricer: in_network needs a switch spec");
      // The switch sums the chunk's fp32 values (THC: their table indices); each NPU sends its
      // packets and gets the results.
      const uint64_t chunk_bytes =
          static_cast<uint64_t>(stage.buffer_fraction * size / chunks + 0.5);
      planned.in_network_values =
          InNetworkValues(chunk_bytes, *m_aggregation, m_communication.compression.thc.block);
      const InNetworkAllReducePrice ina =
          PriceInNetworkAllReduce(*m_aggregation, planned.in_network_values,
                                  dim.bandwidth_Bpns * planned.bandwidth_share, dim.latency_ns);
      plan.traffic_bytes[stage.dimension] +=
          static_cast<double>(ina.traffic.update_wire_bytes_per_worker) * chunks;
    } else {
      planned.profile = &CachedProfile(stage.kind, stage.algorithm, dim);
      plan.traffic_bytes[stage.dimension] +=
          planned.profile->traffic_coefficient * stage.buffer_fraction * size;
    }
    plan.stages.push_back(planned);
  }
  return plan;
}

double CollectivePricer::InNetworkStageNs(const CollectivePlan::Stage& stage,
                                          double bandwidth_Bpns) const {
  return PriceInNetworkAllReduce(*m_aggregation, stage.in_network_values, bandwidth_Bpns,
                                 m_topology.Dim(stage.dimension).latency_ns)
      .time_ns;
}

CollectivePrice CollectivePricer::Price(const CollectivePlan& plan) const {
  if (plan.fixed) return *plan.fixed;
  CollectivePrice price;
  price.time_ns = TimeNs<double>(plan, m_bandwidth_Bpns, &price.dimension_busy_ns);
  price.dimension_traffic_bytes = plan.traffic_bytes;
  return price;
}

CollectivePrice CollectivePricer::Price(CollectiveKind kind, uint64_t size_bytes,
                                        const std::vector<uint32_t>& dimensions) const {
  GroupShape shape;
  shape.dimensions = dimensions;
  for (const uint32_t d : dimensions) shape.sizes.push_back(m_topology.Dim(d).size);
  return Price(Plan(kind, size_bytes, shape));
}

}  // namespace hfsim
