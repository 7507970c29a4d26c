#include "sim/report/ps-planned-report.h"

#include "sim/report/dimension-reports.h"

namespace hfsim {

void AddPlannedIteration(const ParameterServerWorkload& workload, const PsIterationTraffic& traffic,
                         ParameterServerReport& report) {
  if (report.servers.empty()) {
    report.workers = workload.Workers();
    report.shards = workload.Shards();
    for (uint32_t m = 0; m < workload.Shards(); ++m) {
      PsServerReport server;
      server.shard = m;
      server.npu = workload.server_npus[m];
      report.servers.push_back(server);
    }
  }
  for (uint32_t w = 0; w < traffic.workers; ++w) {
    for (uint32_t m = 0; m < traffic.shards; ++m) {
      const uint64_t keys = traffic.SliceKeys(w, m);
      if (keys == 0) continue;
      const uint64_t bytes = traffic.SliceBytes(w, m);
      const uint64_t pull_bytes = traffic.PullSliceBytes(w, m);
      const bool local = workload.worker_npus[w] == workload.server_npus[m];
      PsServerReport& server = report.servers[m];
      ++server.pushes;
      server.keys_pushed += keys;
      server.push_bytes += bytes;
      server.pull_bytes += pull_bytes;
      if (!local) server.incast_bytes += bytes;
      ++report.push_messages;
      ++report.pull_messages;
      report.bytes_pushed += bytes;
      report.bytes_pulled += pull_bytes;
      report.keys_pushed += keys;
      if (local) report.local_bytes += bytes + pull_bytes;
    }
  }
}

void FindBusiestServer(ParameterServerReport& report) {
  report.busiest_server = 0;
  for (const PsServerReport& server : report.servers) {
    if (server.push_bytes > report.servers[report.busiest_server].push_bytes) {
      report.busiest_server = server.shard;
    }
  }
}

std::vector<double> PsDimensionBytes(const Topology& topology,
                                     const ParameterServerWorkload& workload,
                                     const PsIterationTraffic& traffic) {
  std::vector<double> bytes(topology.DimensionCount(), 0.0);
  for (uint32_t w = 0; w < traffic.workers; ++w) {
    for (uint32_t m = 0; m < traffic.shards; ++m) {
      const uint64_t worker = workload.worker_npus[w];
      const uint64_t server = workload.server_npus[m];
      for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
        if (topology.Coordinate(worker, d) != topology.Coordinate(server, d)) {
          bytes[d] += static_cast<double>(traffic.SliceBytes(w, m) + traffic.PullSliceBytes(w, m));
        }
      }
    }
  }
  return bytes;
}

void AddPsDimensionReports(const std::vector<Dimension>& dimensions,
                           const std::vector<double>& dimension_bytes, Report& report) {
  AddDimensionReports(dimensions, report);  // no collectives: zero traffic, filled below
  const double iterations = report.parameter_server ? report.parameter_server->iterations : 1.0;
  const double npus = static_cast<double>(report.npus);
  report.total_traffic_bytes = 0.0;
  for (DimensionReport& dim : report.dimensions) {
    dim.traffic_bytes_per_npu = dimension_bytes[dim.index] / iterations / npus;
    const double total_ns = report.iteration.total_ns;
    dim.utilisation =
        total_ns > 0.0 ? dim.traffic_bytes_per_npu / (dim.bandwidth_GBps * total_ns) : 0.0;
    // The time the mean NPU's bytes occupy its link, so busy_ns = utilisation x time_ns (the
    // packet engine then raises it to its busiest link's).
    dim.busy_ns = dim.traffic_bytes_per_npu / dim.bandwidth_GBps;
    report.total_traffic_bytes += dimension_bytes[dim.index] / iterations;
  }
}

}  // namespace hfsim
