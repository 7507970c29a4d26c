#include "sim/report/ps-summary.h"

#include <fmt/format.h>

#include "sim/report/summary-table.h"

namespace hfsim {

std::string PsWorkloadLine(const ParameterServerWorkload& ps) {
  std::string model;
  if (ps.kind == PsModelKind::kDense) {
    model = fmt::format("dense {} ({} params, {} keys of <= {})",
                        ps.dense.zoo_name.empty() ? "model" : ps.dense.zoo_name, ps.dense.params,
                        ps.dense.key_bytes.size(),
                        FormatBytes(static_cast<double>(ps.dense.partition_bytes)));
  } else {
    model =
        fmt::format("sparse, {} keys of {}, {} lookups per worker, Zipf s = {}",
                    ps.sparse.key_count, FormatBytes(static_cast<double>(ps.sparse.bytes_per_key)),
                    ps.sparse.lookups_per_worker, ps.sparse.zipf_exponent);
  }
  return fmt::format(
      "workload: parameter server, {} workers x {} shards ({} partition), {}, {} "
      "iteration(s)\n",
      ps.Workers(), ps.Shards(), ToString(ps.partition), model, ps.iterations);
}

std::string PsSummary(const ParameterServerReport& r) {
  std::string out;
  double total_ns = 0.0;
  for (double ns : r.iteration_ns) total_ns += ns;
  out += fmt::format(
      "\nparameter server: {} iteration(s) in {}; pushed {} in {} messages, pulled "
      "{} in {}, {} local (same NPU)\n",
      r.iterations, FormatDuration(total_ns), FormatBytes(static_cast<double>(r.bytes_pushed)),
      r.push_messages, FormatBytes(static_cast<double>(r.bytes_pulled)), r.pull_messages,
      FormatBytes(static_cast<double>(r.local_bytes)));
  if (r.push_ns + r.aggregate_ns + r.pull_ns > 0.0) {
    out += fmt::format("  phases (all iterations): compute {}, push {}, aggregate {}, pull {}\n",
                       FormatDuration(r.compute_ns), FormatDuration(r.push_ns),
                       FormatDuration(r.aggregate_ns), FormatDuration(r.pull_ns));
  }
  out += fmt::format("  {:<7}{:>8}{:>10}{:>14}{:>14}{:>14}\n", "shard", "NPU", "pushes", "keys",
                     "push bytes", "incast");
  for (const PsServerReport& s : r.servers) {
    out += fmt::format("  {:<7}{:>8}{:>10}{:>14}{:>14}{:>14}{}\n", s.shard, s.npu, s.pushes,
                       s.keys_aggregated, FormatBytes(static_cast<double>(s.push_bytes)),
                       FormatBytes(static_cast<double>(s.incast_bytes)),
                       s.shard == r.busiest_server ? "  busiest" : "");
  }
  out += fmt::format(
      "  keys: {} of {} (worker, key) pairs aggregated at their shard, {} key "
      "errors; bytes: {} of {} pushed and {} of {} pulled delivered\n",
      r.keys_aggregated, r.keys_pushed, r.key_errors, r.bytes_push_delivered, r.bytes_pushed,
      r.bytes_pull_delivered, r.bytes_pulled);
  return out;
}

}  // namespace hfsim
