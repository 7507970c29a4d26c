#include "sim/analytical/astra-sim-phase.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "topologies/dimension-kinds.h"

namespace hfsim {

// Hops between two NPUs `distance` apart along the logical ring of the dimension, as ASTRA-sim's
// backend counts them for the dimension's kind (DimensionKindEntry::astra_hops: its Ring is
// bidirectional, the shorter way; FullyConnected one hop, Switch two). Kinds ASTRA-sim lacks are
// refused with astra_sim pricing (scenario-parser.cc).
uint32_t AstraHops(DimensionKind topology, uint32_t npus, uint32_t distance) {
  const auto hops = KindEntry(topology).astra_hops;
  if (hops == nullptr) throw std::logic_error("AstraHops: ASTRA-sim has no such topology");
  return hops(npus, distance);
}

namespace {


// The ring algorithm has one message in flight and every message goes to the neighbour, so
// its phase is a closed form: one endpoint delay before the first send, then per message the
// message time and an endpoint delay, and a reduction after each of the first n-1 receipts of
// a reduce-scatter or all-reduce.
double RingPhaseNs(const AstraPhase& p) {
  const uint64_t n = p.npus;
  uint64_t sends = n - 1;
  if (p.kind == CollectiveKind::kAllReduce) sends = 2 * (n - 1);
  if (p.kind == CollectiveKind::kAllToAll) sends = n * (n - 1) / 2;
  const uint64_t bytes = p.kind == CollectiveKind::kAllGather ? p.data_bytes : p.data_bytes / n;
  const double message =
      AstraMessageNs(AstraHops(p.topology, p.npus, 1), p.latency_ns, p.link_Bpns, bytes);
  const bool reduces =
      p.kind == CollectiveKind::kAllReduce || p.kind == CollectiveKind::kReduceScatter;
  const uint64_t reductions = reduces ? n - 1 : 0;
  const auto delay = static_cast<double>(p.endpoint_delay);
  return delay + static_cast<double>(sends) * (message + delay) +
         static_cast<double>(reductions) * AstraReductionNs(bytes, p.local_mem_GBps);
}

struct Packet {
  uint64_t bytes = 0;
  uint32_t distance = 1;
};

// The packets an algorithm inserts, in insertion order: their size and how far along the
// logical ring their destination is.
class PacketSource {
 public:
  explicit PacketSource(const AstraPhase& p) : m_phase(p) {
    const uint32_t n = p.npus;
    if (p.algorithm == CollectiveAlgorithm::kHalvingDoubling) {
      if (p.kind == CollectiveKind::kAllGather) {
        m_bytes = p.data_bytes;
        m_offset = static_cast<int>(n / 2);
        m_multiplier = 0.5;
      } else {
        m_bytes = p.data_bytes / 2;
        m_offset = 1;
        m_multiplier = 2.0;
      }
    } else {
      m_bytes = p.kind == CollectiveKind::kAllGather ? p.data_bytes : p.data_bytes / n;
    }
  }

  Packet Next() {
    const uint32_t n = m_phase.npus;
    if (m_phase.algorithm != CollectiveAlgorithm::kHalvingDoubling) {
      // Direct: the destination moves one further round the ring per packet, skipping itself.
      const Packet packet{m_bytes, static_cast<uint32_t>(m_count % (n - 1)) + 1};
      ++m_count;
      return packet;
    }
    const Packet packet{m_bytes, static_cast<uint32_t>(m_offset)};
    // Halving-doubling doubles the partner distance and halves the message after each packet
    // (the all-gather the reverse); an all-reduce turns round when the distance reaches n.
    // The integer truncations are ASTRA-sim's (int and uint64_t scaled by a double).
    m_offset = static_cast<int>(m_offset * m_multiplier);
    m_bytes = static_cast<uint64_t>(static_cast<double>(m_bytes) / m_multiplier);
    if (m_offset == static_cast<int>(n) && m_phase.kind == CollectiveKind::kAllReduce) {
      m_multiplier = 0.5;
      m_offset = static_cast<int>(m_offset * m_multiplier);
      m_bytes = static_cast<uint64_t>(static_cast<double>(m_bytes) / m_multiplier);
    }
    return packet;
  }

 private:
  const AstraPhase& m_phase;
  uint64_t m_bytes = 0;
  int m_offset = 1;
  double m_multiplier = 1.0;
  uint64_t m_count = 0;
};

// Replays the direct and halving-doubling state machines of one NPU. Every NPU of the group
// runs the same machine at the same times, so the message it receives from its k-th peer
// arrives when its own message to its k-th peer does.
class PhaseMachine {
 public:
  explicit PhaseMachine(const AstraPhase& p) : m_phase(p), m_source(p) {
    const int64_t n = p.npus;
    if (p.algorithm == CollectiveAlgorithm::kDirect) {
      m_parallel = n - 1;
      m_streams = p.kind == CollectiveKind::kAllReduce ? 2 * (n - 1) : n - 1;
      m_nonzero_per_cycle = m_parallel;
    } else {
      int64_t log = 0;
      while ((int64_t{1} << (log + 1)) <= n) ++log;
      m_parallel = 1;
      m_streams = p.kind == CollectiveKind::kAllReduce ? 2 * log : log;
      m_nonzero_per_cycle = log - 1;
    }
  }

  double Run() {
    for (int64_t i = 0; i < m_parallel; ++i) Insert(0);
    while (!m_events.empty() && !m_done) {
      const auto [time, seq, type, value] = m_events.top();
      m_events.pop();
      switch (type) {
        case kArrival:
          ++m_received;
          Insert(time);
          break;
        case kBundle:
          // The memory bus hop is over; a reduction (value = its time + 1) is then a
          // separate event, even when it takes 0 ns.
          if (value > 0) {
            Schedule(time + value - 1, kGeneral, 0);
          } else {
            General(time);
          }
          break;
        case kGeneral:
          General(time);
          break;
      }
    }
    return m_end;
  }

 private:
  enum Type { kArrival, kBundle, kGeneral };
  // time, order of scheduling (ASTRA-sim runs events of equal time first come first served),
  // type, and for a bundle 0 or its reduction time + 1.
  using Event = std::tuple<double, uint64_t, Type, double>;

  void Schedule(double time, Type type, double value) {
    m_events.emplace(time, m_seq++, type, value);
  }

  // A new packet: the first of each cycle goes NPU to memory, the others memory to NPU, each
  // after the endpoint delay; the latter are reduced in a reduce-scatter and in the first half
  // of an all-reduce.
  void Insert(double now) {
    if (m_zero == 0 && m_nonzero == 0) {
      m_zero = m_parallel;
      m_nonzero = m_nonzero_per_cycle;
      m_toggle = !m_toggle;
    }
    const Packet packet = m_source.Next();
    m_packets.push_back(packet);
    double reduction = 0.0;  // 0: not reduced; else the reduction's ns + 1
    if (m_zero > 0) {
      --m_zero;
    } else {
      --m_nonzero;
      const bool processed = m_phase.kind == CollectiveKind::kReduceScatter ||
                             (m_phase.kind == CollectiveKind::kAllReduce && m_toggle);
      if (processed) reduction = AstraReductionNs(packet.bytes, m_phase.local_mem_GBps) + 1;
    }
    Schedule(now + static_cast<double>(m_phase.endpoint_delay), kBundle, reduction);
  }

  void General(double now) {
    ++m_free;
    const int64_t middle = static_cast<int64_t>(m_phase.npus) - 1;
    if (m_phase.algorithm == CollectiveAlgorithm::kDirect &&
        m_phase.kind == CollectiveKind::kAllReduce && m_streams <= middle) {
      // Direct all-reduce: the all-gather half starts only once every reduce-scatter message
      // has arrived.
      if (m_received < middle) return;
      // ASTRA-sim tries n-1 sends; once one cannot go, none of the rest can (nothing changes
      // in between), so stop there rather than spin n-1 times per receipt.
      for (int64_t i = 0; i < m_parallel && Send(now); ++i) {
      }
    } else {
      Send(now);
    }
    if (m_streams == 0 && m_free == m_parallel) {
      m_done = true;
      m_end = now;
    }
  }

  // Sends the next packet if it may go now; false if not.
  bool Send(double now) {
    if (m_packets.empty() || m_streams == 0 || m_free == 0) return false;
    const Packet packet = m_packets.front();
    m_packets.pop_front();
    --m_streams;
    --m_free;
    const uint32_t hops = AstraHops(m_phase.topology, m_phase.npus, packet.distance);
    Schedule(now + AstraMessageNs(hops, m_phase.latency_ns, m_phase.link_Bpns, packet.bytes),
             kArrival, 0);
    return true;
  }

  const AstraPhase& m_phase;
  PacketSource m_source;
  int64_t m_parallel = 1;
  int64_t m_streams = 0;
  int64_t m_nonzero_per_cycle = 0;
  int64_t m_zero = 0;
  int64_t m_nonzero = 0;
  bool m_toggle = false;
  int64_t m_free = 0;
  int64_t m_received = 0;
  std::deque<Packet> m_packets;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
  uint64_t m_seq = 0;
  bool m_done = false;
  double m_end = 0.0;
};

}  // namespace

double AstraMessageNs(uint32_t hops, double latency_ns, double link_Bpns, uint64_t bytes) {
  return std::floor(hops * latency_ns + static_cast<double>(bytes) / link_Bpns);
}

double AstraReductionNs(uint64_t bytes, double local_mem_GBps) {
  if (local_mem_GBps <= 0.0) return 0.0;
  // Bytes per second, then seconds to ns, as ASTRA-sim computes it (so the double rounding
  // is the same); two reads and one write, each truncated.
  const double pass = static_cast<double>(bytes) / (local_mem_GBps * 1000000000) * 1e9;
  return 3.0 * std::floor(pass);
}

double AstraPhaseNs(const AstraPhase& phase) {
  if (phase.algorithm == CollectiveAlgorithm::kRing) return RingPhaseNs(phase);
  return PhaseMachine(phase).Run();
}

uint64_t AstraPhaseOutputBytes(CollectiveKind kind, uint32_t npus, uint64_t data_bytes) {
  switch (kind) {
    case CollectiveKind::kReduceScatter:
      return data_bytes / npus;
    case CollectiveKind::kAllGather:
      return data_bytes * npus;
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllToAll:
      return data_bytes;
  }
  return data_bytes;
}

}  // namespace hfsim
