#include "sim/analytical/collective-pricing.h"

#include <algorithm>
#include <stdexcept>

#include "models/in-network-allreduce.h"
#include "models/schedule-profile.h"
#include "sim/analytical/astra-sim-pricing.h"
#include "sim/analytical/chunk-pipeline.h"

namespace hfsim {

CollectivePricer::CollectivePricer(const std::vector<Dimension>& dimensions,
                                   const CommunicationSpec& communication,
                                   const std::optional<AggregationSwitchSpec>& aggregation)
    : m_topology(dimensions), m_communication(communication), m_aggregation(aggregation) {}

CollectivePrice CollectivePricer::Price(CollectiveKind kind, uint64_t size_bytes,
                                        const std::vector<uint32_t>& dimensions) const {
  if (m_communication.pricing == PricingModel::kAstraSim) {
    return AstraSimPrice(m_topology, m_communication, kind, size_bytes, dimensions);
  }
  const uint32_t dimension_count = m_topology.DimensionCount();
  CollectivePrice price;
  price.dimension_busy_ns.assign(dimension_count, 0.0);
  price.dimension_traffic_bytes.assign(dimension_count, 0.0);
  const auto stages = ComposeStages(kind, m_communication.scheme, dimensions, m_topology,
                                    m_communication.AlgorithmsFor(kind));
  const double chunks = m_communication.chunks;
  const double size = static_cast<double>(size_bytes);
  ChunkPipeline<double> pipeline(dimension_count);
  for (const CollectiveStage& stage : stages) {
    const Dimension& dim = m_topology.Dim(stage.dimension);
    if (stage.algorithm == CollectiveAlgorithm::kInNetwork) {
      if (!m_aggregation) throw std::logic_error("CollectivePricer: in_network needs a switch spec");
      // The switch sums the chunk's fp32 values (THC: their table indices); each NPU sends its
      // packets and gets the results.
      const uint64_t chunk_bytes =
          static_cast<uint64_t>(stage.buffer_fraction * size / chunks + 0.5);
      const uint64_t values = InNetworkValues(chunk_bytes, *m_aggregation,
                                              m_communication.compression.thc.block);
      const InNetworkAllReducePrice ina =
          PriceInNetworkAllReduce(*m_aggregation, values, dim.bandwidth_Bpns, dim.latency_ns);
      pipeline.AddStage(stage.dimension, ina.time_ns);
      price.dimension_traffic_bytes[stage.dimension] +=
          static_cast<double>(ina.traffic.update_wire_bytes_per_worker) * chunks;
      continue;
    }
    const ScheduleProfile& profile =
        CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind);
    const double stage_ns =
        profile.TimeNs(stage.buffer_fraction * size / chunks, dim.bandwidth_Bpns, dim.latency_ns,
                       m_communication.endpoint_delay_ns, m_communication.reduction_Bpns,
                       m_communication.host);
    pipeline.AddStage(stage.dimension, stage_ns);
    price.dimension_traffic_bytes[stage.dimension] +=
        profile.traffic_coefficient * stage.buffer_fraction * size;
  }
  price.time_ns = pipeline.Total(chunks);
  for (uint32_t d = 0; d < dimension_count; ++d) {
    price.dimension_busy_ns[d] = pipeline.ChunkBusy(d) * chunks;
  }
  return price;
}

}  // namespace hfsim
