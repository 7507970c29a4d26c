#include "sim/messages/ps-driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace hfsim {

PsDriver::PsDriver(EventClock& clock, MessageTransport& transport,
                   const ParameterServerWorkload& workload, std::vector<PsIterationTraffic> traffic,
                   double reduction_Bpns)
    : m_clock(clock),
      m_transport(transport),
      m_workload(workload),
      m_traffic(std::move(traffic)),
      m_reduction_Bpns(reduction_Bpns) {
  if (m_traffic.size() != workload.iterations) {
    throw std::invalid_argument("PsDriver: one traffic per iteration is needed");
  }
  const uint32_t shards = workload.Shards();
  m_pulls_pending.assign(workload.Workers(), 0);
  m_reduction_free_ns.assign(shards, 0.0);
  m_shard_pushes.assign(shards, 0);
  m_shard_keys.assign(shards, 0);
  m_workers_through.assign(workload.iterations, 0);
  m_iteration_end_ns.assign(workload.iterations, 0.0);
  m_shards.resize(workload.iterations);
  for (uint32_t i = 0; i < workload.iterations; ++i) {
    m_shards[i].resize(shards);
    for (uint32_t m = 0; m < shards; ++m) {
      m_shards[i][m].expected = m_traffic[i].PushersOf(m);
      m_pushes_planned += m_shards[i][m].expected;
    }
  }
  m_transport.SetHandlers({[this](uint64_t id) { OnDelivered(id); }, [](uint64_t) {}});
}

void PsDriver::Start() {
  for (uint32_t w = 0; w < m_workload.Workers(); ++w) StartIteration(w, 0);
}

void PsDriver::StartIteration(uint32_t worker, uint32_t iteration) {
  if (iteration == m_workload.iterations) {
    ++m_workers_done;
    return;
  }
  if (m_workload.worker_compute_ns > 0.0) {
    m_clock.ScheduleNs(m_workload.worker_compute_ns,
                       [this, worker, iteration] { SendPushes(worker, iteration); });
  } else {
    SendPushes(worker, iteration);
  }
}

void PsDriver::SendPushes(uint32_t worker, uint32_t iteration) {
  const PsIterationTraffic& traffic = m_traffic[iteration];
  uint32_t pulls = 0;
  for (uint32_t m = 0; m < traffic.shards; ++m) pulls += traffic.SliceKeys(worker, m) > 0 ? 1 : 0;
  m_pulls_pending[worker] = pulls;
  if (pulls == 0) {
    // Every key of this worker is hot (or it has none): nothing to wait for. Through the clock,
    // so that many such iterations do not nest calls.
    m_clock.ScheduleNs(0.0, [this, worker, iteration] {
      OnPullDelivered(MessageInfo{false, true, iteration, worker, 0, 0, 0.0});
    });
    return;
  }
  for (uint32_t m = 0; m < traffic.shards; ++m) {
    if (traffic.SliceKeys(worker, m) == 0) continue;
    Send(MessageInfo{true, false, iteration, worker, m, traffic.SliceBytes(worker, m)});
  }
}

void PsDriver::Send(MessageInfo info) {
  const uint64_t id = m_messages.size();
  info.sent_ns = m_clock.NowNs();
  m_messages.push_back(info);
  const uint64_t worker = m_workload.worker_npus[info.worker];
  const uint64_t server = m_workload.server_npus[info.shard];
  if (worker == server) {
    m_clock.ScheduleNs(0.0, [this, id] { OnDelivered(id); });
    return;
  }
  ++m_network_messages_sent;
  m_network_bytes_sent += info.bytes;
  m_transport.Send({id, info.push ? worker : server, info.push ? server : worker, info.bytes});
}

void PsDriver::OnDelivered(uint64_t id) {
  if (id >= m_messages.size()) {
    m_errors.Add(fmt::format("message {} delivered but never sent", id));
    return;
  }
  MessageInfo& info = m_messages[id];
  if (info.delivered) {
    m_errors.Add(fmt::format("message {} delivered twice", id));
    return;
  }
  info.delivered = true;
  if (m_workload.worker_npus[info.worker] != m_workload.server_npus[info.shard]) {
    m_network_bytes_delivered += info.bytes;
    m_delivery_ns.push_back(m_clock.NowNs() - info.sent_ns);
  }
  if (info.push) {
    OnPushDelivered(info);
  } else {
    OnPullDelivered(info);
  }
}

void PsDriver::OnPushDelivered(const MessageInfo& info) {
  m_bytes_push_delivered += info.bytes;
  if (m_reduction_Bpns <= 0.0) {
    OnPushAggregated(info);
    return;
  }
  // One reduction at a time per server, in delivery order.
  const double now = m_clock.NowNs();
  const double start = std::max(now, m_reduction_free_ns[info.shard]);
  const double done = start + static_cast<double>(info.bytes) / m_reduction_Bpns;
  m_reduction_free_ns[info.shard] = done;
  m_clock.ScheduleNs(done - now, [this, info] { OnPushAggregated(info); });
}

void PsDriver::OnPushAggregated(const MessageInfo& info) {
  ShardIteration& state = m_shards[info.iteration][info.shard];
  const PsIterationTraffic& traffic = m_traffic[info.iteration];
  // The keys this push carries, checked against the key -> shard map on their own.
  for (uint64_t key : traffic.SliceKeyIds(m_workload, info.worker, info.shard)) {
    if (m_workload.ShardOf(key) != info.shard) {
      ++m_key_errors;
      m_errors.Add(fmt::format("key {} reduced at shard {}, but it belongs to shard {}", key,
                               info.shard, m_workload.ShardOf(key)));
    }
    state.reduced.emplace_back(key, info.worker);
  }
  ++state.aggregated;
  ++m_pushes_aggregated;
  ++m_shard_pushes[info.shard];
  if (state.aggregated == state.expected) CloseShardIteration(info.shard, info.iteration);
}

void PsDriver::CloseShardIteration(uint32_t shard, uint32_t iteration) {
  ShardIteration& state = m_shards[iteration][shard];
  const PsIterationTraffic& traffic = m_traffic[iteration];
  // Exactly once: no (key, worker) pair twice, and as many pairs as the plan's key counts.
  std::sort(state.reduced.begin(), state.reduced.end());
  const auto repeated = std::adjacent_find(state.reduced.begin(), state.reduced.end());
  if (repeated != state.reduced.end()) {
    ++m_key_errors;
    m_errors.Add(fmt::format("iteration {}: key {} of worker {} reduced twice at shard {}",
                             iteration, repeated->first, repeated->second, shard));
  }
  uint64_t planned = 0;
  for (uint32_t w = 0; w < traffic.workers; ++w) planned += traffic.SliceKeys(w, shard);
  if (planned != state.reduced.size()) {
    ++m_key_errors;
    m_errors.Add(fmt::format("iteration {}: shard {} reduced {} (worker, key) pairs, planned {}",
                             iteration, shard, state.reduced.size(), planned));
  }
  m_keys_aggregated += state.reduced.size();
  m_shard_keys[shard] += state.reduced.size();
  state.reduced.clear();
  state.reduced.shrink_to_fit();
  for (uint32_t w = 0; w < traffic.workers; ++w) {
    if (traffic.SliceKeys(w, shard) == 0) continue;
    Send(MessageInfo{false, false, iteration, w, shard, traffic.PullSliceBytes(w, shard)});
  }
}

void PsDriver::OnPullDelivered(const MessageInfo& info) {
  m_bytes_pull_delivered += info.bytes;
  if (m_pulls_pending[info.worker] > 0) --m_pulls_pending[info.worker];
  if (m_pulls_pending[info.worker] > 0) return;
  if (++m_workers_through[info.iteration] == m_workload.Workers()) {
    m_iteration_end_ns[info.iteration] = m_clock.NowNs();
  }
  StartIteration(info.worker, info.iteration + 1);
}

void PsDriver::FillReport(ParameterServerReport& report) const {
  report.bytes_push_delivered = m_bytes_push_delivered;
  report.bytes_pull_delivered = m_bytes_pull_delivered;
  report.keys_aggregated = m_keys_aggregated;
  report.key_errors = m_key_errors;
  for (PsServerReport& server : report.servers) {
    server.keys_aggregated = m_shard_keys[server.shard];
  }
  report.iteration_ns.clear();
  double previous = 0.0;
  for (double end : m_iteration_end_ns) {
    report.iteration_ns.push_back(end - previous);
    previous = end;
  }
}

bool PsDriver::CheckComplete() {
  if (!Finished()) {
    m_errors.Add(fmt::format("{} of {} workers finished all {} iterations", m_workers_done,
                             m_workload.Workers(), m_workload.iterations));
  }
  uint64_t undelivered = 0;
  for (const MessageInfo& info : m_messages) undelivered += info.delivered ? 0 : 1;
  if (undelivered > 0) m_errors.Add(fmt::format("{} messages never delivered", undelivered));
  return m_errors.Count() == 0;
}

}  // namespace hfsim
