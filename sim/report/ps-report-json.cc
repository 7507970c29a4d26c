#include "sim/report/ps-report-json.h"

namespace hfsim {

nlohmann::json PsReportToJson(const ParameterServerReport& r) {
  nlohmann::json servers = nlohmann::json::array();
  for (const PsServerReport& s : r.servers) {
    servers.push_back({{"shard", s.shard},
                       {"npu", s.npu},
                       {"pushes", s.pushes},
                       {"keys_pushed", s.keys_pushed},
                       {"keys_aggregated", s.keys_aggregated},
                       {"push_bytes", s.push_bytes},
                       {"incast_bytes", s.incast_bytes},
                       {"pull_bytes", s.pull_bytes}});
  }
  double total_ns = 0.0;
  for (double ns : r.iteration_ns) total_ns += ns;
  return {{"workers", r.workers},
          {"shards", r.shards},
          {"iterations", r.iterations},
          {"iteration_ns", r.iteration_ns},
          {"total_ns", total_ns},
          {"phases_ns",
           {{"compute", r.compute_ns},
            {"push", r.push_ns},
            {"aggregate", r.aggregate_ns},
            {"pull", r.pull_ns}}},
          {"push_messages", r.push_messages},
          {"pull_messages", r.pull_messages},
          {"bytes_pushed", r.bytes_pushed},
          {"bytes_pulled", r.bytes_pulled},
          {"local_bytes", r.local_bytes},
          {"busiest_server", r.busiest_server},
          {"conservation",
           {{"bytes_pushed", r.bytes_pushed},
            {"bytes_push_delivered", r.bytes_push_delivered},
            {"bytes_pulled", r.bytes_pulled},
            {"bytes_pull_delivered", r.bytes_pull_delivered},
            {"keys_pushed", r.keys_pushed},
            {"keys_aggregated", r.keys_aggregated},
            {"key_errors", r.key_errors}}},
          {"servers", servers}};
}

}  // namespace hfsim
