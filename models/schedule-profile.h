// The closed-form cost of a schedule on one dimension, linear in the buffer size.
//
// For a buffer of S bytes on a dimension with per-NPU bandwidth B (bytes/ns), hop latency a (ns),
// per-step endpoint delay e (ns), reduction memory bandwidth R (bytes/ns, 0 = free) and a host
// stack (models/host-stack.h) with send/receive costs per message o_s, o_r (ns) and per byte
// p_s, p_r (ns/B) and k extra round trips:
//
//   time(S) = steps * e + messages * o_s + latency_hops * a + bandwidth_coefficient * S / B
//             + reduction_coefficient * S / R
//             + received_messages * o_r + (sent_bytes_coefficient * p_s
//             + received_bytes_coefficient * p_r) * S + k * 2 * latency_hops * a
//
// (the host terms: per step, each cost times the most messages / bytes one NPU sends or receives,
// and k round trips of the step's longest route).
//
// Each step costs its longest route's hops times a, plus the busiest link's bytes divided by
// that link's share of B (links per kind: topologies/dimension-links.h), plus the most bytes any
// one NPU reduces in it divided by R. A step's transfers share links; nothing else is modelled
// (no queueing across steps: that is the packet engine's job).
#pragma once

#include <cstdint>

#include "models/collective.h"
#include "models/host-stack.h"
#include "models/schedule.h"
#include "topologies/dimension.h"

namespace hfsim {

struct ScheduleProfile {
  uint32_t steps = 0;
  /// Sum over steps of the most messages one NPU sends in that step (each costs the host o).
  double messages = 0.0;
  /// Sum over steps of the longest route (in hops) in that step.
  double latency_hops = 0.0;
  /// Sum over steps of (busiest link's bytes / S) / (that link's fraction of B).
  double bandwidth_coefficient = 0.0;
  /// Sum over steps of (most bytes reduced at one NPU / S).
  double reduction_coefficient = 0.0;
  /// Bytes one NPU sends into the dimension, divided by S (mean over the group's NPUs; the
  /// algorithms here are symmetric so mean = max except for trees).
  double traffic_coefficient = 0.0;
  /// Bytes crossing links (sum over links of bytes / S), i.e. traffic counted once per hop.
  double link_bytes_coefficient = 0.0;
  /// Sum over steps of the most messages one NPU receives in that step.
  double received_messages = 0.0;
  /// Sum over steps of (most bytes one NPU sends in that step / S).
  double sent_bytes_coefficient = 0.0;
  /// Sum over steps of (most bytes one NPU receives in that step / S).
  double received_bytes_coefficient = 0.0;

  /// time(S) as in the header comment. reduction_Bpns <= 0 means reductions are free.
  double TimeNs(double buffer_bytes, double bandwidth_Bpns, double latency_ns,
                double endpoint_delay_ns, double reduction_Bpns, const HostStack& host) const;
  /// The same with only a posting cost per message (a host stack of kind none).
  double TimeNs(double buffer_bytes, double bandwidth_Bpns, double latency_ns,
                double endpoint_delay_ns, double reduction_Bpns,
                double host_per_message_ns = 0.0) const {
    HostStack host;
    host.send_per_message_ns = host_per_message_ns;
    return TimeNs(buffer_bytes, bandwidth_Bpns, latency_ns, endpoint_delay_ns, reduction_Bpns,
                  host);
  }
  /// The host terms of time(S) beyond messages * o_s (receive, per-byte, round trips), ns.
  double HostExtraNs(double buffer_bytes, double latency_ns, const HostStack& host) const;
};

/// Derives the profile by walking the schedule's transfers over the dimension's links.
ScheduleProfile ProfileSchedule(const Schedule& schedule, DimensionKind dimension_kind);
/// The same on a whole dimension (a Clos needs its leaves and spines): NPU links as on a Switch,
/// and each leaf's traffic to other leaves spread evenly over its spines (ideal ECMP), each step
/// costing the longer of its busiest NPU link and its busiest leaf-spine link.
ScheduleProfile ProfileSchedule(const Schedule& schedule, const Dimension& dim);

/// ProfileSchedule(BuildSchedule(kind, algorithm, peers), dimension_kind), computed once per
/// argument tuple and then served from a process-wide, thread-safe cache (profiles are pure
/// functions of their arguments, so sharing them between simulations is safe). Computed by
/// ClosedFormProfile (schedule-profile-closed-form.h), which equals the walk bit for bit, where it
/// has a formula; by walking the schedule (double_binary_tree) otherwise.
const ScheduleProfile& CachedProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                     uint32_t peers, DimensionKind dimension_kind);
/// The same for a whole dimension: what a Clos is priced with (the others give what the kind
/// and size give).
const ScheduleProfile& CachedProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                     const Dimension& dim);

}  // namespace hfsim
