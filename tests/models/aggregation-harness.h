// A test network for the aggregation protocol: W workers and the switch model, with seeded random
// loss and duplication in both directions (and on the server links in parameter-server mode),
// random per-packet delay, and FIFO order on each directed link (SwitchML's assumption, see
// switch-aggregator.h). Shared by the protocol tests of int32 and THC jobs.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <queue>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "models/aggregation/aggregation-worker.h"
#include "models/aggregation/switch-aggregator.h"

namespace hfsim::test {

struct NetworkConfig {
  double loss = 0.0;
  double duplication = 0.0;
  double delay_ns = 1000.0;  ///< every hop takes delay_ns plus up to the same again
  uint64_t seed = 1;
};

struct Event {
  double time_ns;
  uint64_t sequence;
  bool timer;
  uint32_t worker;  // timer events
  AggregationPacket packet;
  bool operator>(const Event& other) const {
    return time_ns != other.time_ns ? time_ns > other.time_ns : sequence > other.sequence;
  }
};

class LossyHarness {
 public:
  LossyHarness(const AggregationSwitchSpec& spec, std::vector<std::vector<float>> tensors,
               NetworkConfig network, AggregationWorkerOptions options)
      : m_spec(spec), m_switch(spec), m_network(network), m_rng(network.seed) {
    for (uint32_t w = 0; w < spec.workers; ++w)
      m_workers.emplace_back(spec, w, tensors[w], options);
  }
  /// Workers made by the caller (THC jobs), worker w at index w.
  LossyHarness(const AggregationSwitchSpec& spec, std::vector<AggregationWorker> workers,
               NetworkConfig network)
      : m_spec(spec), m_switch(spec), m_workers(std::move(workers)), m_network(network),
        m_rng(network.seed) {}

  void Run() {
    for (uint32_t w = 0; w < m_workers.size(); ++w) {
      for (auto& p : m_workers[w].Start(0.0)) Send(p, 0.0);
      ScheduleTimer(w);
    }
    uint64_t events = 0;
    while (!m_events.empty()) {
      ASSERT_LT(++events, 20000000u) << "the protocol did not finish";
      Event e = m_events.top();
      m_events.pop();
      m_now = e.time_ns;
      if (e.timer) {
        m_timers[e.worker].erase(e.time_ns);
        for (auto& p : m_workers[e.worker].OnTimeout(m_now)) Send(p, m_now);
        ScheduleTimer(e.worker);
      } else {
        Deliver(e.packet);
      }
    }
  }

  const AggregationWorker& Worker(uint32_t w) const { return m_workers[w]; }
  const SwitchAggregator& Switch() const { return m_switch; }
  /// (key offset, value count) of every round the switch completed, in order.
  const std::vector<std::pair<uint32_t, uint32_t>>& Completions() const { return m_completions; }
  uint64_t Lost() const { return m_lost; }
  uint64_t Duplicated() const { return m_duplicated; }

 private:
  void ScheduleTimer(uint32_t w) {
    const auto next = m_workers[w].NextTimeoutNs();
    if (!next || m_timers[w].count(*next) != 0) return;
    m_timers[w].insert(*next);
    m_events.push({*next, m_sequence++, true, w, {}});
  }

  void Send(const AggregationPacket& packet, double now) {
    if (m_unit(m_rng) < m_network.loss) {
      ++m_lost;
      return;
    }
    const int copies = m_unit(m_rng) < m_network.duplication ? 2 : 1;
    m_duplicated += copies - 1;
    const auto link = std::make_pair(Key(packet.source), Key(packet.destination));
    for (int c = 0; c < copies; ++c) {
      double at = now + m_network.delay_ns * (1.0 + m_unit(m_rng));
      at = std::max(at, m_link_clear[link]);  // FIFO per directed link
      m_link_clear[link] = at;
      m_events.push({at, m_sequence++, false, 0, packet});
    }
  }

  static uint32_t Key(const Endpoint& e) { return (static_cast<uint32_t>(e.kind) << 16) | e.index; }

  void Deliver(const AggregationPacket& packet) {
    switch (packet.destination.kind) {
      case EndpointKind::kSwitch: {
        const uint64_t before = m_switch.Counters().slots_completed;
        const auto out = m_switch.Receive(packet);
        if (m_switch.Counters().slots_completed != before) {
          m_completions.emplace_back(packet.header.key_offset, packet.header.num_values);
        }
        for (const auto& p : out) Send(p, m_now);
        break;
      }
      case EndpointKind::kWorker: {
        const uint32_t w = packet.destination.index;
        for (auto& p : m_workers[w].OnPacket(packet, m_now)) Send(p, m_now);
        ScheduleTimer(w);
        break;
      }
      case EndpointKind::kServer: {
        // A server that answers with the aggregate: to every worker for a completed slot, to
        // one worker for a retransmission the switch passed on.
        ASSERT_EQ(packet.header.type, AggregationMessage::kResult) << Describe(packet);
        for (uint32_t w = 0; w < m_spec.workers; ++w) {
          if (packet.header.worker_id != kAllWorkers && packet.header.worker_id != w) continue;
          AggregationPacket reply = packet;
          reply.source = packet.destination;
          reply.destination = Endpoint::Worker(w);
          reply.header.worker_id = static_cast<uint8_t>(w);
          Send(reply, m_now);
        }
        break;
      }
    }
  }

  AggregationSwitchSpec m_spec;
  SwitchAggregator m_switch;
  std::vector<AggregationWorker> m_workers;
  NetworkConfig m_network;
  std::mt19937_64 m_rng;
  std::uniform_real_distribution<double> m_unit{0.0, 1.0};
  std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
  std::map<std::pair<uint32_t, uint32_t>, double> m_link_clear;
  std::map<uint32_t, std::set<double>> m_timers;
  std::vector<std::pair<uint32_t, uint32_t>> m_completions;
  uint64_t m_sequence = 0;
  double m_now = 0.0;
  uint64_t m_lost = 0;
  uint64_t m_duplicated = 0;
};

}  // namespace hfsim::test
