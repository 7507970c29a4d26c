// Runs parameter-server iterations (workloads/parameter-server.h) message by message over a
// MessageTransport: the N x M pushes, the aggregation at each shard, the M x N pulls. Holds no
// ns-3 type (tests run it on tests/messages/fake-network.h; the packet engine on ns-3).
//
// Each worker, in every iteration: computes worker_compute_ns, then sends one push per shard
// holding some of its keys (all at once: the transport shares its links among them), and starts
// the next iteration when every pull it waits for has arrived. Each shard reduces a push when it
// is delivered, bytes / reduction_Bpns later (one reduction at a time per server; instantly when
// reduction_Bpns is 0), and when all pushes of an iteration are reduced it sends every pusher
// its pull. A worker and a server on the same NPU exchange their messages locally (delivered at
// once, never on the fabric). Nothing else synchronises workers: the shards' barriers do.
//
// Checks as it runs (Errors()): a message delivered twice or never sent, a key reduced at a shard
// it does not hash to, a (worker, key) pair reduced twice or not at all in an iteration.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/messages/error-log.h"
#include "sim/messages/event-clock.h"
#include "sim/messages/executor-stats.h"
#include "sim/report/ps-report.h"
#include "workloads/parameter-server.h"

namespace hfsim {

class PsDriver {
 public:
  /// `traffic[i]` is iteration i's (BuildIterationTraffic), one per workload.iterations. Calls
  /// transport.SetHandlers. The driver must outlive the events it schedules.
  PsDriver(EventClock& clock, MessageTransport& transport, const ParameterServerWorkload& workload,
           std::vector<PsIterationTraffic> traffic, double reduction_Bpns);
  PsDriver(const PsDriver&) = delete;
  PsDriver& operator=(const PsDriver&) = delete;

  /// Starts iteration 0 on every worker now; run the clock's event loop to the end afterwards.
  void Start();
  /// Every worker finished every iteration.
  bool Finished() const { return m_workers_done == m_workload.Workers(); }
  /// When iteration i ended (its last pull arrived at its last worker), ns.
  const std::vector<double>& IterationEndNs() const { return m_iteration_end_ns; }

  /// Adds what was delivered to `report` (already holding the plan, sim/report/ps-planned-report.h):
  /// delivered bytes, keys aggregated, per-server aggregation, key errors, iteration times.
  void FillReport(ParameterServerReport& report) const;

  /// Bytes and messages given to the transport (fabric traffic only) and delivered by it.
  uint64_t NetworkBytesSent() const { return m_network_bytes_sent; }
  uint64_t NetworkBytesDelivered() const { return m_network_bytes_delivered; }
  uint64_t NetworkMessagesSent() const { return m_network_messages_sent; }
  /// Pushes planned and pushes reduced at their shard.
  uint64_t PushesPlanned() const { return m_pushes_planned; }
  uint64_t PushesAggregated() const { return m_pushes_aggregated; }

  /// Adds unfinished workers and undelivered messages to Errors(); true when there are none.
  bool CheckComplete();
  const std::vector<std::string>& Errors() const { return m_errors.Texts(); }
  uint64_t ErrorCount() const { return m_errors.Count(); }
  /// Fabric messages: from handing them to the transport to their delivery, ns.
  TimeSummary DeliverySummary() const { return Summarise(m_delivery_ns); }

 private:
  struct MessageInfo {
    bool push = true;
    bool delivered = false;
    uint32_t iteration = 0;
    uint32_t worker = 0;
    uint32_t shard = 0;
    uint64_t bytes = 0;
    double sent_ns = 0.0;
  };
  struct ShardIteration {
    uint32_t expected = 0;  ///< pushers
    uint32_t aggregated = 0;
    std::vector<std::pair<uint64_t, uint32_t>> reduced;  ///< (key, worker) pairs reduced
  };

  void StartIteration(uint32_t worker, uint32_t iteration);
  void SendPushes(uint32_t worker, uint32_t iteration);
  void Send(MessageInfo info);
  void OnDelivered(uint64_t id);
  void OnPushDelivered(const MessageInfo& info);
  void OnPushAggregated(const MessageInfo& info);
  void OnPullDelivered(const MessageInfo& info);
  void CloseShardIteration(uint32_t shard, uint32_t iteration);

  EventClock& m_clock;
  MessageTransport& m_transport;
  const ParameterServerWorkload& m_workload;
  std::vector<PsIterationTraffic> m_traffic;
  double m_reduction_Bpns;

  std::vector<MessageInfo> m_messages;                ///< by message id
  std::vector<uint32_t> m_pulls_pending;              ///< per worker, in its current iteration
  std::vector<double> m_reduction_free_ns;            ///< per shard
  std::vector<std::vector<ShardIteration>> m_shards;  ///< [iteration][shard]
  std::vector<uint32_t> m_workers_through;            ///< per iteration
  std::vector<double> m_iteration_end_ns;
  uint32_t m_workers_done = 0;

  uint64_t m_network_bytes_sent = 0;
  uint64_t m_network_bytes_delivered = 0;
  uint64_t m_network_messages_sent = 0;
  uint64_t m_pushes_planned = 0;
  uint64_t m_pushes_aggregated = 0;
  uint64_t m_bytes_push_delivered = 0;
  uint64_t m_bytes_pull_delivered = 0;
  uint64_t m_keys_aggregated = 0;
  uint64_t m_key_errors = 0;
  std::vector<uint64_t> m_shard_pushes;  ///< reduced, per shard
  std::vector<uint64_t> m_shard_keys;    ///< (worker, key) pairs reduced, per shard

  std::vector<double> m_delivery_ns;  ///< per fabric message delivered
  ErrorLog m_errors;
};

}  // namespace hfsim
