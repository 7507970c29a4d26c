// What an in-network aggregation run reports (docs/in-network.md): the plan from the switch spec
// (both engines) and, from the packet engine, what the switches and workers counted, with the
// exactly-once and exact-sum checks. Part of Report; set only when an "in_network" collective ran.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hfsim {

/// Counted by the packet engine, summed over every switch group and worker.
struct InNetworkMeasured {
  uint64_t updates_sent = 0;        ///< worker -> switch frames, retransmissions included
  uint64_t retransmissions = 0;     ///< worker timeouts that resent a frame
  uint64_t results_accepted = 0;    ///< results the workers took (one per packet of the plan)
  uint64_t stale_results = 0;       ///< results the workers ignored (duplicates, late copies)
  uint64_t updates_aggregated = 0;  ///< updates the switches added into a slot
  uint64_t slots_completed = 0;     ///< slot rounds that reached every worker
  uint64_t slots_expected = 0;      ///< rounds of the plan: packets per worker x groups
  uint64_t duplicates_dropped = 0;  ///< duplicate updates into an incomplete slot
  uint64_t results_resent = 0;      ///< duplicates into a complete slot, answered
  uint64_t frames_rejected = 0;     ///< frames a switch or worker could not parse or accept
  uint64_t frames_lost = 0;         ///< frames the link faults dropped
  /// Every slot round completed exactly once, every worker finished with one accepted result per
  /// packet, and every worker's integer sums equal the exact sums of the quantised inputs.
  bool exactly_once = false;
  bool exact_sums = false;
  uint64_t sum_mismatches = 0;  ///< (worker, value) pairs whose sum differs from the exact one
  /// THC jobs: the largest, over switch groups, normalised mean squared error of the mean a
  /// worker decodes from its lane sums against the exact mean of the group's gradients.
  std::optional<double> decoded_nmse;
};

struct InNetworkReport {
  std::string mode;        ///< "allreduce" (SwitchML)
  uint32_t dimension = 0;  ///< the Switch dimension whose switches aggregate
  uint32_t workers = 0;    ///< per switch
  uint64_t groups = 0;     ///< switches aggregating at once
  uint64_t values_per_worker = 0;
  uint64_t blocks = 0;
  uint64_t pool_slots = 0;
  uint64_t packets_per_worker = 0;
  std::string value_format = "int32";  ///< "int32", or "thc" (indices up, 8-bit lane sums down)
  uint64_t frame_bytes = 0;            ///< a result (switch -> worker)
  uint64_t wire_bytes_per_worker = 0;  ///< results received by one worker
  uint64_t update_frame_bytes = 0;     ///< an update (worker -> switch); = frame_bytes but for THC
  uint64_t update_wire_bytes_per_worker = 0;  ///< updates sent by one worker
  double bandwidth_bound_ns = 0.0;     ///< closed form (models/in-network-allreduce.h)
  double window_bound_ns = 0.0;
  double closed_form_ns = 0.0;
  /// Parameter-server mode (Libra) only, means over iterations: the hot keys and the three
  /// bounds of the iteration's communication (sim/analytical/ina-ps-pricing.h).
  uint64_t hot_keys = 0;
  double hot_ns = 0.0;
  double cold_ns = 0.0;
  double shared_ns = 0.0;
  std::optional<InNetworkMeasured> measured;
};

}  // namespace hfsim
