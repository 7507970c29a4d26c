#include "sim/report/report-csv.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/report/number-text.h"
#include "sim/report/throughput.h"

namespace hfsim {

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// A training run's row goes on with its throughput (an empty tokens field for a model without
// tokens); other workloads' rows end at the traffic.
std::string SummaryCsv(const Report& report, const Scenario& scenario) {
  const IterationTimeline& it = report.iteration;
  const std::optional<Throughput> throughput = ReportThroughput(report, scenario);
  std::string header =
      "scenario,engine,npus,iteration_time_ns,compute_ns,exposed_communication_ns,"
      "communication_ns,total_traffic_bytes";
  std::string row = fmt::format("{},{},{},{},{},{},{},{}", CsvField(scenario.name), report.engine,
                                report.npus, NumberText(it.total_ns), NumberText(it.ComputeNs()),
                                NumberText(it.ExposedCommNs()), NumberText(report.communication_ns),
                                NumberText(report.total_traffic_bytes));
  if (throughput) {
    const Throughput& t = *throughput;
    header += ",tokens_per_s_per_gpu,model_tflops_per_gpu,mfu,flop_convention";
    row += fmt::format(",{},{},{},{}",
                       t.tokens_per_s_per_gpu ? NumberText(*t.tokens_per_s_per_gpu) : "",
                       NumberText(t.model_tflops_per_gpu), NumberText(t.mfu),
                       ToString(t.convention));
  }
  return header + "\n" + row + "\n";
}

std::string DimensionsCsv(const Report& report) {
  std::string out =
      "dimension,kind,size,bandwidth_GBps,latency_ns,traffic_bytes_per_npu,busy_ns,"
      "utilisation_fraction\n";
  for (const DimensionReport& d : report.dimensions) {
    out += fmt::format("{},{},{},{},{},{},{},{}\n", d.index, d.kind, d.size,
                       NumberText(d.bandwidth_GBps), NumberText(d.latency_ns),
                       NumberText(d.traffic_bytes_per_npu), NumberText(d.busy_ns),
                       NumberText(d.utilisation));
  }
  return out;
}

std::string CollectivesCsv(const Report& report) {
  std::string out =
      "phase,group,kind,dimensions,size_bytes,occurrences,first_layer,last_layer,time_ns,"
      "total_time_ns\n";
  for (const CollectiveReport& c : report.collectives) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", c.phase, c.group, ToString(c.kind),
                       CsvField(fmt::format("{}", fmt::join(c.dimensions, " "))), c.size_bytes,
                       c.occurrences, CsvField(c.first_layer), CsvField(c.last_layer),
                       NumberText(c.time_ns),
                       NumberText(c.time_ns * static_cast<double>(c.occurrences)));
  }
  return out;
}

std::string LinksCsv(const PacketReport& packet) {
  std::string out =
      "link,source,target,dimension,packets,bytes,utilisation_fraction,queue_peak_bytes,"
      "drops_queue_full,"
      "drops_injected,ecn_marks\n";
  for (const LinkReport& l : packet.links) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", l.link, l.source, l.target,
                       l.dimension, l.packets, l.bytes, NumberText(l.utilisation),
                       l.queue_peak_bytes, l.drops_queue_full, l.drops_injected, l.ecn_marks);
  }
  return out;
}

std::string LinksCsv(const FlowReport& flow) {
  std::string out = "link,source,target,dimension,bytes,utilisation_fraction,peak_flows\n";
  for (const FlowLinkReport& l : flow.links) {
    out += fmt::format("{},{},{},{},{},{},{}\n", l.link, l.source, l.target, l.dimension, l.bytes,
                       NumberText(l.utilisation), l.peak_flows);
  }
  return out;
}

}  // namespace hfsim
