// What a parameter-server run reports (docs/parameter-server.md): per-iteration times, bytes
// pushed and pulled, per-server incast, and the conservation counters both engines fill. Part of
// Report; set only for workload "parameter_server".
#pragma once

#include <cstdint>
#include <vector>

namespace hfsim {

/// One server shard, summed over all iterations.
struct PsServerReport {
  uint32_t shard = 0;
  uint64_t npu = 0;
  uint64_t pushes = 0;           ///< push messages to it (local ones included)
  uint64_t keys_pushed = 0;      ///< (worker, key) pairs pushed to it
  uint64_t keys_aggregated = 0;  ///< (worker, key) pairs it summed (delivered)
  uint64_t push_bytes = 0;       ///< bytes pushed to it (local ones included)
  uint64_t incast_bytes = 0;     ///< of those, bytes that crossed the fabric
  uint64_t pull_bytes = 0;       ///< bytes it sent back in pulls
};

struct ParameterServerReport {
  uint32_t workers = 0;
  uint32_t shards = 0;
  uint32_t iterations = 0;
  /// Duration of each iteration, ns. Analytical: its priced time. Packet: from the end of the
  /// previous iteration (the last worker receiving its last pull; 0 for the first) to the end of
  /// this one.
  std::vector<double> iteration_ns;
  /// Analytical only (0 from the packet engine): the phases of the priced time, summed over
  /// iterations, ns.
  double compute_ns = 0.0;
  double push_ns = 0.0;
  double aggregate_ns = 0.0;
  double pull_ns = 0.0;
  /// Planned (from the traffic) and delivered (what the servers / workers received).
  uint64_t push_messages = 0;
  uint64_t pull_messages = 0;
  uint64_t bytes_pushed = 0;
  uint64_t bytes_pulled = 0;
  uint64_t bytes_push_delivered = 0;
  uint64_t bytes_pull_delivered = 0;
  /// Bytes between a worker and a server on the same NPU (never on the fabric), both ways.
  uint64_t local_bytes = 0;
  /// (worker, key) pairs pushed, and aggregated at their shard; a key found at the wrong shard
  /// or aggregated other than exactly once per pusher and iteration counts in key_errors.
  uint64_t keys_pushed = 0;
  uint64_t keys_aggregated = 0;
  uint64_t key_errors = 0;
  std::vector<PsServerReport> servers;
  /// The shard with the most push bytes (lowest index on a tie).
  uint32_t busiest_server = 0;
};

}  // namespace hfsim
