#include "sim/report/in-network-report-json.h"

#include <fmt/format.h>

namespace hfsim {

nlohmann::json InNetworkReportToJson(const InNetworkReport& r) {
  nlohmann::json out = {{"mode", r.mode},
                        {"dimension", r.dimension},
                        {"workers", r.workers},
                        {"groups", r.groups},
                        {"values_per_worker", r.values_per_worker},
                        {"blocks", r.blocks},
                        {"pool_slots", r.pool_slots},
                        {"packets_per_worker", r.packets_per_worker},
                        {"value_format", r.value_format},
                        {"frame_bytes", r.frame_bytes},
                        {"wire_bytes_per_worker", r.wire_bytes_per_worker},
                        {"update_frame_bytes", r.update_frame_bytes},
                        {"update_wire_bytes_per_worker", r.update_wire_bytes_per_worker},
                        {"bandwidth_bound_ns", r.bandwidth_bound_ns},
                        {"window_bound_ns", r.window_bound_ns},
                        {"closed_form_ns", r.closed_form_ns}};
  if (r.mode == "parameter_server") {
    out["hot_keys"] = r.hot_keys;
    out["hot_ns"] = r.hot_ns;
    out["cold_ns"] = r.cold_ns;
    out["shared_ns"] = r.shared_ns;
  }
  if (r.measured) {
    const InNetworkMeasured& m = *r.measured;
    out["measured"] = {{"updates_sent", m.updates_sent},
                       {"retransmissions", m.retransmissions},
                       {"results_accepted", m.results_accepted},
                       {"stale_results", m.stale_results},
                       {"updates_aggregated", m.updates_aggregated},
                       {"slots_completed", m.slots_completed},
                       {"slots_expected", m.slots_expected},
                       {"duplicates_dropped", m.duplicates_dropped},
                       {"results_resent", m.results_resent},
                       {"frames_rejected", m.frames_rejected},
                       {"frames_lost", m.frames_lost},
                       {"exactly_once", m.exactly_once},
                       {"exact_sums", m.exact_sums},
                       {"sum_mismatches", m.sum_mismatches}};
    if (m.decoded_nmse) out["measured"]["decoded_nmse"] = *m.decoded_nmse;
  }
  return out;
}

std::string InNetworkSummary(const InNetworkReport& r) {
  std::string out = fmt::format(
      "\nin-network aggregation ({}, dimension {}): {} switch(es) x {} workers, {} values per "
      "worker in {} packets of {} B ({} slots)\n",
      r.mode, r.dimension, r.groups, r.workers, r.values_per_worker, r.packets_per_worker,
      r.frame_bytes, r.pool_slots);
  if (r.value_format == "thc") {
    out += fmt::format("  THC: {} B updates of table indices, {} B results of 8-bit lane sums\n",
                       r.update_frame_bytes, r.frame_bytes);
  }
  out += fmt::format(
      "  closed form: {:.1f} ns (bandwidth bound {:.1f} ns, slot-pool bound {:.1f} ns)\n",
      r.closed_form_ns, r.bandwidth_bound_ns, r.window_bound_ns);
  if (r.mode == "parameter_server") {
    out += fmt::format(
        "  hot keys [0, {}) in the switch: {:.1f} ns; cold keys at the servers: {:.1f} "
        "ns; shared links: {:.1f} ns (per iteration, mean)\n",
        r.hot_keys, r.hot_ns, r.cold_ns, r.shared_ns);
  }
  if (r.measured) {
    const InNetworkMeasured& m = *r.measured;
    out += fmt::format(
        "  measured: {} updates sent, {} retransmissions, {} results resent by the switch, {} "
        "duplicates dropped, {} stale results, {} frames lost\n",
        m.updates_sent, m.retransmissions, m.results_resent, m.duplicates_dropped, m.stale_results,
        m.frames_lost);
    out +=
        fmt::format("  exactly once: {} ({} of {} slot rounds); exact sums: {} ({} mismatches)\n",
                    m.exactly_once ? "yes" : "NO", m.slots_completed, m.slots_expected,
                    m.exact_sums ? "yes" : "NO", m.sum_mismatches);
  }
  return out;
}

}  // namespace hfsim
