// A test double for the message runtime's transport (sim/messages/event-clock.h), on the runtime's
// own event loop (sim/messages/event-loop.h): a transport that delivers a message
// `latency + bytes / bandwidth` after it is sent, with knobs to serialise messages that share a
// channel, shuffle deliveries that fall on the same time, deliver a message twice or lose it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/messages/event-clock.h"
#include "sim/messages/event-loop.h"
#include "topologies/topology.h"

namespace hfsim::test {

/// Where a message queues and how fast it then goes. Messages with the same `key` are
/// serialised (first come, first served); a message with no key has a channel of its own.
struct FakeChannel {
  std::optional<uint64_t> key;
  double bandwidth_Bpns = 1.0;
  double latency_ns = 0.0;
};

struct FakeTransportOptions {
  /// Used when `channel` is not set: every message alone on its own channel at these rates, or
  /// (serialise_per_source) all of one NPU's messages queued behind each other.
  double latency_ns = 0.0;
  double bandwidth_Bpns = 1.0;
  bool serialise_per_source = false;
  std::function<FakeChannel(const MessageTransport::Message&)> channel;
  /// The acknowledgement reaches the sender this long after the delivery.
  double ack_delay_ns = 0.0;
  /// Deliveries and acknowledgements due at the same time run in a shuffled (seeded, so
  /// deterministic) order instead of the order they were sent in.
  bool shuffle_equal_times = false;
  uint64_t seed = 1;
  /// The n-th message sent (from 0) is delivered a second time, `duplicate_after_ns` after the
  /// first delivery.
  std::optional<uint64_t> duplicate_message;
  double duplicate_after_ns = 0.0;
  /// The n-th message sent is never delivered nor acknowledged.
  std::optional<uint64_t> lose_message;
};

class FakeTransport final : public MessageTransport {
 public:
  FakeTransport(EventClock& clock, FakeTransportOptions options)
      : m_clock(clock), m_options(std::move(options)), m_shuffle(m_options.seed) {}

  void SetHandlers(Handlers handlers) override { m_handlers = std::move(handlers); }

  void Send(const Message& message) override {
    if (message.bytes == 0) throw std::invalid_argument("FakeTransport: a message of 0 bytes");
    const uint64_t index = m_sent++;
    m_bytes_sent += message.bytes;
    m_endpoints.emplace_back(message.src, message.dst);
    FakeChannel channel;
    if (m_options.channel) {
      channel = m_options.channel(message);
    } else {
      channel = {
          m_options.serialise_per_source ? std::optional<uint64_t>(message.src) : std::nullopt,
          m_options.bandwidth_Bpns, m_options.latency_ns};
    }
    const double now = m_clock.NowNs();
    double start = now;
    if (channel.key) {
      double& free_ns = m_channel_free_ns[*channel.key];
      start = std::max(start, free_ns);
      free_ns = start + static_cast<double>(message.bytes) / channel.bandwidth_Bpns;
    }
    const double delivered =
        start + static_cast<double>(message.bytes) / channel.bandwidth_Bpns + channel.latency_ns;
    if (m_options.lose_message == index) return;
    Post(delivered, /*acknowledgement=*/false, message.id);
    Post(delivered + m_options.ack_delay_ns, /*acknowledgement=*/true, message.id);
    if (m_options.duplicate_message == index) {
      Post(delivered + m_options.duplicate_after_ns, false, message.id);
    }
  }

  uint64_t MessagesSent() const { return m_sent; }
  uint64_t BytesSent() const { return m_bytes_sent; }
  /// Every message's (source, destination), in the order sent.
  const std::vector<std::pair<uint64_t, uint64_t>>& Endpoints() const { return m_endpoints; }

 private:
  struct Report {
    bool acknowledgement;
    uint64_t id;
  };

  void Post(double time_ns, bool acknowledgement, uint64_t id) {
    const double delay = time_ns - m_clock.NowNs();
    if (!m_options.shuffle_equal_times) {
      m_clock.ScheduleNs(delay, [this, acknowledgement, id] { Fire({acknowledgement, id}); });
      return;
    }
    // Everything due at one time waits in one bucket, fired by one event in shuffled order.
    std::vector<Report>& bucket = m_buckets[time_ns];
    if (bucket.empty()) {
      m_clock.ScheduleNs(delay, [this, time_ns] {
        std::vector<Report> due = std::move(m_buckets[time_ns]);
        m_buckets.erase(time_ns);
        std::shuffle(due.begin(), due.end(), m_shuffle);
        for (const Report& report : due) Fire(report);
      });
    }
    bucket.push_back({acknowledgement, id});
  }

  void Fire(const Report& report) {
    if (report.acknowledgement) {
      m_handlers.acknowledged(report.id);
    } else {
      m_handlers.delivered(report.id);
    }
  }

  EventClock& m_clock;
  FakeTransportOptions m_options;
  Handlers m_handlers;
  std::unordered_map<uint64_t, double> m_channel_free_ns;
  std::map<double, std::vector<Report>> m_buckets;
  std::mt19937_64 m_shuffle;
  uint64_t m_sent = 0;
  std::vector<std::pair<uint64_t, uint64_t>> m_endpoints;
  uint64_t m_bytes_sent = 0;
};

/// Channels that move bytes the way models/schedule-profile.h prices them, for transfers within
/// one dimension (the only coordinate in which src and dst differ), with bandwidth B and hop
/// latency a of that dimension (topologies/dimension-links.h):
///   Switch:              all of an NPU's messages into the dimension share its up-link: one
///                        queue per (source, dimension) at B; 2 hops.
///   FullyConnected:      one link per ordered pair at B / (n - 1); 1 hop.
///   Ring, n = 2:         one link each way at B; 1 hop.
///   Ring, n >= 3:        one link per ordered pair at B / 2, min(k, n - k) hops. Exact for
///                        neighbour transfers (the ring algorithm); longer routes do not share
///                        the intermediate links here as they do in the profile.
/// Down-links of a Switch are not modelled: exact for schedules in which no NPU receives more
/// bytes per step than it sends (ring, direct, halving-doubling).
inline std::function<FakeChannel(const MessageTransport::Message&)> DimensionChannels(
    const Topology& topology) {
  return [topology](const MessageTransport::Message& m) {
    const uint64_t npus = topology.NpuCount();
    uint32_t d = 0;
    while (d < topology.DimensionCount() &&
           topology.Coordinate(m.src, d) == topology.Coordinate(m.dst, d)) {
      ++d;
    }
    if (d == topology.DimensionCount())
      throw std::invalid_argument("DimensionChannels: src == dst");
    const Dimension& dim = topology.Dim(d);
    const uint64_t pair = m.src * npus + m.dst;
    switch (dim.kind) {
      case DimensionKind::kSwitch:
        return FakeChannel{npus * npus + m.src * topology.DimensionCount() + d, dim.bandwidth_Bpns,
                           2.0 * dim.latency_ns};
      case DimensionKind::kFullyConnected:
        return FakeChannel{pair, dim.bandwidth_Bpns / (dim.size - 1), dim.latency_ns};
      case DimensionKind::kRing: {
        if (dim.size == 2) return FakeChannel{pair, dim.bandwidth_Bpns, dim.latency_ns};
        const uint32_t k =
            (topology.Coordinate(m.dst, d) + dim.size - topology.Coordinate(m.src, d)) % dim.size;
        return FakeChannel{pair, dim.bandwidth_Bpns / 2.0,
                           std::min(k, dim.size - k) * dim.latency_ns};
      }
      case DimensionKind::kClos:
      case DimensionKind::kTorus2D:
        break;  // the tests' fake network models only the three textbook kinds
    }
    throw std::invalid_argument("DimensionChannels: dimension kind not modelled by the fake network");
  };
}

}  // namespace hfsim::test
