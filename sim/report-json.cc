#include "sim/report-json.h"

#include "sim/scenario-parser.h"

namespace hfsim {

nlohmann::json ReportToJson(const Report& report, const Scenario& scenario) {
  const IterationTimeline& it = report.iteration;
  nlohmann::json out;
  out["hfsim_version"] = report.hfsim_version;
  out["engine"] = report.engine;
  out["scenario"] = ScenarioToJson(scenario);
  out["npus"] = report.npus;
  out["iteration"] = {
      {"time_ns", it.total_ns},
      {"compute_ns", it.ComputeNs()},
      {"exposed_communication_ns", it.ExposedCommNs()},
      {"communication_ns", report.communication_ns},
      {"forward_compute_ns", it.forward_compute_ns},
      {"input_grad_compute_ns", it.input_grad_compute_ns},
      {"weight_grad_compute_ns", it.weight_grad_compute_ns},
      {"forward_communication_ns", it.forward_comm_ns},
      {"input_grad_communication_ns", it.input_grad_comm_ns},
      {"weight_grad_communication_ns", it.weight_grad_comm_ns},
      {"weight_grad_communication_exposed_ns", it.weight_grad_comm_exposed_ns},
  };
  nlohmann::json dimensions = nlohmann::json::array();
  for (const DimensionReport& dim : report.dimensions) {
    dimensions.push_back({{"index", dim.index},
                          {"kind", dim.kind},
                          {"size", dim.size},
                          {"bandwidth_GBps", dim.bandwidth_GBps},
                          {"latency_ns", dim.latency_ns},
                          {"traffic_bytes_per_npu", dim.traffic_bytes_per_npu},
                          {"busy_ns", dim.busy_ns},
                          {"utilisation", dim.utilisation}});
  }
  out["dimensions"] = dimensions;
  nlohmann::json collectives = nlohmann::json::array();
  for (const CollectiveReport& c : report.collectives) {
    nlohmann::json per_dimension = nlohmann::json::array();
    for (uint32_t d : c.dimensions) {
      per_dimension.push_back({{"dimension", d},
                               {"busy_ns", c.dimension_busy_ns[d]},
                               {"traffic_bytes_per_npu", c.dimension_traffic_bytes[d]}});
    }
    collectives.push_back({{"phase", c.phase},
                           {"group", c.group},
                           {"kind", ToString(c.kind)},
                           {"dimensions", c.dimensions},
                           {"size_bytes", c.size_bytes},
                           {"occurrences", c.occurrences},
                           {"first_layer", c.first_layer},
                           {"last_layer", c.last_layer},
                           {"time_ns", c.time_ns},
                           {"total_time_ns", c.time_ns * static_cast<double>(c.occurrences)},
                           {"per_dimension", per_dimension}});
  }
  out["collectives"] = collectives;
  out["traffic"] = {{"total_bytes", report.total_traffic_bytes},
                    {"per_npu_bytes", report.npus ? report.total_traffic_bytes / report.npus : 0.0}};
  return out;
}

}  // namespace hfsim
