#include "sim/optimize/time-model.h"

#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "models/multi-dim-collective.h"
#include "sim/analytical/chunk-pipeline.h"
#include "topologies/topology.h"

namespace hfsim {

std::optional<UserError> TimeModelRefusal(const Scenario& scenario) {
  if (scenario.workload_kind != WorkloadKind::kTraining &&
      scenario.workload_kind != WorkloadKind::kCollective) {
    return UserError{"workload", fmt::format(
        "a {} workload has no closed-form model in the bandwidths; accepted by optimize: a "
        "training or collective workload (hfsim sweep evaluates any workload)",
        scenario.workload_kind == WorkloadKind::kGossip ? "gossip" : "parameter_server")};
  }
  if (scenario.communication.pricing == PricingModel::kAstraSim) {
    return UserError{"communication.pricing", "got \"astra_sim\", which truncates every message "
                     "to whole ns, so the time is a step function of the bandwidths and no "
                     "optimum can be certified; accepted by optimize: \"hfsim\" (hfsim sweep "
                     "evaluates astra_sim pricing)"};
  }
  for (const CollectiveKind kind : kAllCollectiveKinds) {
    for (const CollectiveAlgorithm algorithm : scenario.communication.AlgorithmsFor(kind)) {
      if (algorithm == CollectiveAlgorithm::kInNetwork) {
        return UserError{fmt::format("communication.algorithms.{}", ToString(kind)),
                         "in_network: the switch's aggregation is priced per packet, not by a "
                         "bandwidth model; accepted by optimize: host-based algorithms (hfsim "
                         "sweep evaluates in_network)"};
      }
    }
  }
  return std::nullopt;
}

TimeModel::TimeModel(const Scenario& scenario)
    : m_dimensions(scenario.dimensions),
      m_communication(scenario.communication),
      m_dimension_count(static_cast<uint32_t>(scenario.dimensions.size())),
      m_training(scenario.workload_kind == WorkloadKind::kTraining),
      m_traffic_bytes(scenario.dimensions.size(), 0.0) {
  if (m_dimension_count > kMaxGradientDimensions) {
    throw std::invalid_argument("TimeModel: more dimensions than TimeGradient holds");
  }
  if (const auto refusal = TimeModelRefusal(scenario)) {
    throw std::invalid_argument("TimeModel: " + refusal->ToString());
  }
  if (!m_training) {
    const CollectiveWorkload& c = scenario.collective;
    AddCollective(c.kind, c.size_bytes, c.dimensions, 1);
    return;
  }
  const TrainingWorkload& training = scenario.training;
  m_iteration = BuildTrainingIteration(training.model, training.config);
  m_layers.resize(m_iteration.layers.size());
  for (size_t i = 0; i < m_iteration.layers.size(); ++i) {
    const LayerWork& layer = m_iteration.layers[i];
    const std::optional<CommRequest>* requests[3] = {&layer.forward_comm, &layer.input_grad_comm,
                                                     &layer.weight_grad_comm};
    for (int phase = 0; phase < 3; ++phase) {
      if (!*requests[phase]) continue;
      const CommRequest& request = **requests[phase];
      const auto& dims = request.group == ParallelGroup::kData ? training.data_dimensions
                                                               : training.tensor_dimensions;
      m_layers[i].collective[phase] =
          AddCollective(request.kind, request.size_bytes, dims, request.count);
      m_layers[i].count[phase] = request.count;
    }
  }
}

int32_t TimeModel::AddCollective(CollectiveKind kind, uint64_t size_bytes,
                                 const std::vector<uint32_t>& dimensions, uint32_t count) {
  // Stages and traffic as CollectivePricer::Price computes them.
  const Topology topology(m_dimensions);
  const CommunicationSpec& comm = m_communication;
  const double chunks = comm.chunks;
  const double size = static_cast<double>(size_bytes);
  const auto stages =
      ComposeStages(kind, comm.scheme, dimensions, topology, comm.AlgorithmsFor(kind));
  for (const CollectiveStage& stage : stages) {
    const Dimension& dim = topology.Dim(stage.dimension);
    const ScheduleProfile& profile = CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind);
    m_traffic_bytes[stage.dimension] +=
        profile.traffic_coefficient * stage.buffer_fraction * size * count;
  }
  for (size_t i = 0; i < m_keys.size(); ++i) {
    if (m_keys[i].kind == kind && m_keys[i].size_bytes == size_bytes &&
        m_keys[i].dimensions == dimensions) {
      return static_cast<int32_t>(i);
    }
  }
  Collective collective;
  for (const CollectiveStage& stage : stages) {
    const Dimension& dim = topology.Dim(stage.dimension);
    collective.stages.push_back(
        Stage{stage.dimension, &CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind),
              stage.buffer_fraction * size / chunks});
  }
  m_collectives.push_back(std::move(collective));
  m_keys.push_back(Key{kind, size_bytes, dimensions});
  return static_cast<int32_t>(m_collectives.size() - 1);
}

template <typename Time>
Time TimeModel::CollectiveTime(const Collective& collective,
                               const std::vector<double>& bandwidth_Bpns) const {
  const CommunicationSpec& comm = m_communication;
  ChunkPipeline<Time> pipeline(m_dimension_count);
  for (const Stage& stage : collective.stages) {
    const double bandwidth = bandwidth_Bpns[stage.dimension];
    const double latency = m_dimensions[stage.dimension].latency_ns;
    Time stage_ns = stage.profile->TimeNs(stage.buffer_bytes, bandwidth, latency,
                                          comm.endpoint_delay_ns, comm.reduction_Bpns,
                                          comm.host);
    if constexpr (std::is_same_v<Time, TimeGradient>) {
      stage_ns.gradient[stage.dimension] =
          -stage.profile->bandwidth_coefficient * stage.buffer_bytes / (bandwidth * bandwidth);
    }
    pipeline.AddStage(stage.dimension, stage_ns);
  }
  return pipeline.Total(comm.chunks);
}

template <typename Time>
Time TimeModel::Play(const std::vector<double>& bandwidth_Bpns) const {
  std::vector<Time> prices;
  prices.reserve(m_collectives.size());
  for (const Collective& c : m_collectives) prices.push_back(CollectiveTime<Time>(c, bandwidth_Bpns));
  if (!m_training) return prices[0];
  std::vector<BasicLayerCommTimes<Time>> comm(m_layers.size());
  for (size_t i = 0; i < m_layers.size(); ++i) {
    const LayerComm& layer = m_layers[i];
    Time* phases[3] = {&comm[i].forward_ns, &comm[i].input_grad_ns, &comm[i].weight_grad_ns};
    for (int phase = 0; phase < 3; ++phase) {
      if (layer.collective[phase] < 0) continue;
      *phases[phase] = prices[layer.collective[phase]] * static_cast<double>(layer.count[phase]);
    }
  }
  return PlayIteration<Time>(m_iteration, comm).total_ns;
}

double TimeModel::TimeNs(const std::vector<double>& bandwidth_Bpns) const {
  return Play<double>(bandwidth_Bpns);
}

TimeGradient TimeModel::Evaluate(const std::vector<double>& bandwidth_Bpns) const {
  return Play<TimeGradient>(bandwidth_Bpns);
}

}  // namespace hfsim
