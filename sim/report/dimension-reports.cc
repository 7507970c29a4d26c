#include "sim/report/dimension-reports.h"

namespace hfsim {

void AddDimensionReports(const std::vector<Dimension>& dimensions, Report& report) {
  const double total_ns = report.iteration.total_ns;
  for (uint32_t d = 0; d < dimensions.size(); ++d) {
    const Dimension& dim = dimensions[d];
    DimensionReport entry;
    entry.index = d;
    entry.kind = std::string(ToString(dim.kind));
    entry.size = dim.size;
    entry.bandwidth_GBps = dim.bandwidth_Bpns;
    entry.latency_ns = dim.latency_ns;
    for (const CollectiveReport& collective : report.collectives) {
      const double occurrences = static_cast<double>(collective.occurrences);
      entry.traffic_bytes_per_npu += collective.dimension_traffic_bytes[d] * occurrences;
      entry.busy_ns += collective.dimension_busy_ns[d] * occurrences;
    }
    if (!report.point_to_point_traffic_bytes.empty()) {
      entry.traffic_bytes_per_npu += report.point_to_point_traffic_bytes[d];
      entry.busy_ns += report.point_to_point_busy_ns[d];
    }
    entry.utilisation =
        total_ns > 0.0 ? entry.traffic_bytes_per_npu / (dim.bandwidth_Bpns * total_ns) : 0.0;
    report.total_traffic_bytes += entry.traffic_bytes_per_npu * static_cast<double>(report.npus);
    report.dimensions.push_back(std::move(entry));
  }
}

}  // namespace hfsim
