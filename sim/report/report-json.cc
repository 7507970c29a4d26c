#include "sim/report/report-json.h"

#include <algorithm>
#include <string>

#include "sim/report/compute-breakdown.h"
#include "sim/report/convergence-report-json.h"
#include "sim/report/gossip-report-json.h"
#include "sim/report/in-network-report-json.h"
#include "sim/report/ps-report-json.h"
#include "sim/report/throughput.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

constexpr size_t kBusiestLinksShown = 16;

// The links that carried the most bytes, at most kBusiestLinksShown, busiest first (ties: lower
// id first): the packet and flow engines' link rows alike.
template <typename Link>
std::vector<const Link*> Busiest(const std::vector<Link>& links) {
  std::vector<const Link*> busiest;
  for (const Link& l : links) busiest.push_back(&l);
  const size_t shown = std::min(kBusiestLinksShown, busiest.size());
  std::partial_sort(busiest.begin(), busiest.begin() + static_cast<ptrdiff_t>(shown), busiest.end(),
                    [](const Link* a, const Link* b) {
                      return a->bytes != b->bytes ? a->bytes > b->bytes : a->link < b->link;
                    });
  busiest.resize(shown);
  return busiest;
}

nlohmann::json LinkToJson(const LinkReport& l) {
  return {{"link", l.link},
          {"source", l.source},
          {"target", l.target},
          {"dimension", l.dimension},
          {"packets", l.packets},
          {"bytes", l.bytes},
          {"utilisation_fraction", l.utilisation},
          {"queue_peak_bytes", l.queue_peak_bytes},
          {"drops_queue_full", l.drops_queue_full},
          {"drops_injected", l.drops_injected},
          {"ecn_marks", l.ecn_marks}};
}

// Packet-only results. Wall-clock time is left out on purpose: files must be byte-identical
// for the same scenario and seed. Every link is in links.csv; here the busiest ones and
// per-dimension aggregates keep the JSON readable at thousands of links.
nlohmann::json PacketToJson(const PacketReport& p, size_t dimension_count) {
  nlohmann::json per_dimension = nlohmann::json::array();
  for (uint32_t d = 0; d < dimension_count; ++d) {
    uint64_t bytes = 0, drops = 0, marks = 0, peak = 0, count = 0;
    double max_utilisation = 0.0;
    for (const LinkReport& l : p.links) {
      if (l.dimension != d) continue;
      ++count;
      bytes += l.bytes;
      drops += l.drops_queue_full + l.drops_injected;
      marks += l.ecn_marks;
      peak = std::max(peak, l.queue_peak_bytes);
      max_utilisation = std::max(max_utilisation, l.utilisation);
    }
    per_dimension.push_back({{"dimension", d},
                             {"links", count},
                             {"bytes", bytes},
                             {"max_link_utilisation_fraction", max_utilisation},
                             {"queue_peak_bytes", peak},
                             {"drops", drops},
                             {"ecn_marks", marks}});
  }
  nlohmann::json top = nlohmann::json::array();
  for (const LinkReport* l : Busiest(p.links)) top.push_back(LinkToJson(*l));
  const TimeSummary& m = p.message_delivery;
  return {{"events", p.events},
          {"simulated_ns", p.simulated_ns},
          {"transport",
           {{"messages", p.transport.messages},
            {"data_packets_sent", p.transport.data_packets_sent},
            {"retransmitted_packets", p.transport.retransmitted_packets},
            {"acks_sent", p.transport.acks_sent},
            {"nacks_sent", p.transport.nacks_sent},
            {"timeouts", p.transport.timeouts},
            {"cnps_sent", p.transport.cnps_sent},
            {"rate_cuts", p.transport.rate_cuts},
            {"out_of_order_dropped", p.transport.out_of_order_dropped},
            {"duplicates_received", p.transport.duplicates_received}}},
          {"conservation",
           {{"bytes_scheduled", p.bytes_scheduled},
            {"bytes_delivered", p.bytes_delivered},
            {"reductions_scheduled", p.reductions_scheduled},
            {"reductions_performed", p.reductions_performed},
            {"duplicate_deliveries", p.duplicate_deliveries},
            {"protocol_errors", p.protocol_errors}}},
          {"message_delivery",
           {{"count", m.count},
            {"mean_ns", m.mean_ns},
            {"p50_ns", m.p50_ns},
            {"p99_ns", m.p99_ns},
            {"max_ns", m.max_ns}}},
          {"fabric",
           {{"links", p.links.size()},
            {"drops_queue_full", p.drops_queue_full},
            {"drops_injected", p.drops_injected},
            {"ecn_marks", p.ecn_marks},
            {"queue_peak_bytes", p.queue_peak_bytes},
            {"per_dimension", per_dimension},
            {"busiest_links", top}}}};
}

nlohmann::json FlowLinkToJson(const FlowLinkReport& l) {
  return {{"link", l.link},
          {"source", l.source},
          {"target", l.target},
          {"dimension", l.dimension},
          {"bytes", l.bytes},
          {"utilisation_fraction", l.utilisation},
          {"peak_flows", l.peak_flows}};
}

// Flow-only results, shaped like the packet section's (wall time and memory left out: files
// must be byte-identical for the same scenario).
nlohmann::json FlowToJson(const FlowReport& f, size_t dimension_count) {
  nlohmann::json per_dimension = nlohmann::json::array();
  for (uint32_t d = 0; d < dimension_count; ++d) {
    uint64_t bytes = 0, count = 0;
    uint32_t peak = 0;
    double max_utilisation = 0.0;
    for (const FlowLinkReport& l : f.links) {
      if (l.dimension != d) continue;
      ++count;
      bytes += l.bytes;
      peak = std::max(peak, l.peak_flows);
      max_utilisation = std::max(max_utilisation, l.utilisation);
    }
    per_dimension.push_back({{"dimension", d},
                             {"links", count},
                             {"bytes", bytes},
                             {"max_link_utilisation_fraction", max_utilisation},
                             {"peak_flows", peak}});
  }
  nlohmann::json top = nlohmann::json::array();
  for (const FlowLinkReport* l : Busiest(f.links)) top.push_back(FlowLinkToJson(*l));
  return {{"events", f.events},
          {"rate_solves", f.rate_solves},
          {"largest_solve_flows", f.largest_solve_flows},
          {"simulated_ns", f.simulated_ns},
          {"conservation",
           {{"messages_sent", f.messages_sent},
            {"messages_delivered", f.messages_delivered},
            {"bytes_sent", f.bytes_sent},
            {"bytes_delivered", f.bytes_delivered}}},
          {"fabric",
           {{"links", f.links.size()}, {"per_dimension", per_dimension}, {"busiest_links", top}}}};
}

}  // namespace

nlohmann::json ThroughputToJson(const Throughput& t) {
  nlohmann::json out = {{"samples_per_s_per_gpu", t.samples_per_s_per_gpu},
                        {"model_tflops_per_gpu", t.model_tflops_per_gpu},
                        {"mfu", t.mfu},
                        {"flop_convention", ToString(t.convention)},
                        {"model_flops_per_iteration", t.model_flops_per_iteration},
                        {"peak_TFLOPS_used", t.peak_TFLOPS_used}};
  if (t.tokens_per_s_per_gpu) out["tokens_per_s_per_gpu"] = *t.tokens_per_s_per_gpu;
  return out;
}

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
      {"step_compute_ns", it.step_compute_ns},
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
                          {"utilisation_fraction", dim.utilisation}});
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
  out["traffic"] = {
      {"total_bytes", report.total_traffic_bytes},
      {"per_npu_bytes", report.npus ? report.total_traffic_bytes / report.npus : 0.0}};
  if (report.packet) out["packet"] = PacketToJson(*report.packet, report.dimensions.size());
  if (report.flow) out["flow"] = FlowToJson(*report.flow, report.dimensions.size());
  if (report.parameter_server) out["parameter_server"] = PsReportToJson(*report.parameter_server);
  if (report.gossip) out["gossip"] = GossipReportToJson(*report.gossip);
  if (report.convergence) out["convergence"] = ConvergenceReportToJson(*report.convergence);
  if (report.in_network) out["in_network"] = InNetworkReportToJson(*report.in_network);
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    // A load-time estimate (workloads/memory-estimate.h), the same for every engine.
    const TrainingWorkload& t = scenario.training;
    const RankMemory& m = t.memory;
    out["memory"] = {{"rank", m.rank},
                     {"pipeline_stage", m.stage},
                     {"weights_bytes", m.weights_bytes},
                     {"gradients_bytes", m.gradients_bytes},
                     {"optimizer_bytes", m.optimizer_bytes},
                     {"activations_bytes", m.activations_bytes},
                     {"buffers_bytes", m.buffers_bytes},
                     {"total_bytes", m.TotalBytes()}};
    if (t.hbm_GiB > 0.0) out["memory"]["capacity_bytes"] = t.hbm_GiB * 1024.0 * 1024.0 * 1024.0;
  }
  if (const auto throughput = ReportThroughput(report, scenario)) {
    out["throughput"] = ThroughputToJson(*throughput);
  }
  // Only under the kernel-level compute model, so that other reports stay as they were.
  if (const auto breakdown = ReportComputeBreakdown(scenario)) {
    nlohmann::json classes;
    for (const OpClass c : kAllOpClasses) {
      classes[std::string(ToString(c)) + "_ns"] = breakdown->kernels[c];
    }
    classes["roofline_ns"] = breakdown->roofline_ns;
    classes["total_ns"] = breakdown->TotalNs();
    out["compute_breakdown"] = classes;
  }
  if (report.graph) {
    const GraphReport& g = *report.graph;
    out["graph"] = {{"programs", g.programs},
                    {"nodes", g.nodes},
                    {"communicators", g.communicators},
                    {"reported_rank", g.reported_rank},
                    {"reported_class_ranks", g.reported_class_ranks}};
  }
  return out;
}

}  // namespace hfsim
