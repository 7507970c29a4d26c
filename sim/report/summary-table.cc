#include "sim/report/summary-table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "sim/report/convergence-report-json.h"
#include "sim/report/gossip-report-json.h"
#include "sim/report/in-network-report-json.h"
#include "sim/report/ps-summary.h"
#include "sim/report/throughput.h"

namespace hfsim {

std::string FormatDuration(double ns) {
  if (ns >= 1e9) return fmt::format("{:.4g} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.4g} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.4g} us", ns / 1e3);
  return fmt::format("{:.4g} ns", ns);
}

std::string FormatBytes(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.4g} {}", bytes, kUnits[unit]);
}

namespace {

// A rate with 4 significant digits, whole above 10,000 (33050, not 3.305e+04).
std::string Rate(double value) {
  return value >= 1e4 ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
}

std::string Share(double part, double whole) {
  return whole > 0.0 ? fmt::format("{:5.1f}%", 100.0 * part / whole) : std::string("     -");
}

}  // namespace

std::string SummaryTable(const Report& report, const Scenario& scenario) {
  const IterationTimeline& it = report.iteration;
  const double total = it.total_ns;
  std::string out;
  out += fmt::format("hfsim {} | {} engine | scenario \"{}\" | {} NPUs\n", report.hfsim_version,
                     report.engine, scenario.name, report.npus);
  if (scenario.workload_kind == WorkloadKind::kTraining && scenario.training.MegatronLayout()) {
    const TrainingWorkload& t = scenario.training;
    const PipelineLayout& p = t.pipeline;
    const char* placed = !p.placement.empty()        ? "ranks placed as given"
                         : p.order == kMegatronOrder ? "ranks in Megatron's order"
                                                     : "ranks in the given order";
    // One stage with micro-batches accumulates gradients: no pipeline schedule to name.
    const std::string steps =
        p.pipeline == 1 && p.micro_batches > 1
            ? fmt::format("{} micro-batches in turn (gradients accumulated)", p.micro_batches)
            : fmt::format("{} over {} micro-batches{}", ToString(p.schedule), p.micro_batches,
                          p.virtual_stages > 1
                              ? fmt::format(", {} chunks per stage", p.virtual_stages)
                              : std::string());
    out += fmt::format(
        "workload: {} ({} layers), batch {}, tensor {}{} x data {}{} x pipeline {} "
        "({}), {}, overlap {}\n",
        t.model_name, t.model.layers.size(), t.config.global_batch_samples,
        t.config.tensor_parallel,
        t.config.context_parallel > 1 ? fmt::format(" x context {}", t.config.context_parallel)
                                      : std::string(),
        t.config.data_parallel,
        t.config.expert_parallel > 1 ? fmt::format(" (expert {})", t.config.expert_parallel)
                                     : std::string(),
        p.pipeline, placed, steps, OverlapSummary(t.config.overlap, t.config.overlap_options));
    if (report.graph) {
      out += fmt::format("breakdown of rank {}, the first of those whose program ends last\n",
                         report.graph->reported_rank);
    }
  } else if (scenario.workload_kind == WorkloadKind::kTraining) {
    const TrainingWorkload& t = scenario.training;
    out += fmt::format(
        "workload: {} ({} layers), batch {}, data {} on dims [{}], tensor {} on dims "
        "[{}], overlap {}\n",
        t.model_name, t.model.layers.size(), t.config.global_batch_samples, t.config.data_parallel,
        fmt::join(t.data_dimensions, ","), t.config.tensor_parallel,
        fmt::join(t.tensor_dimensions, ","), OverlapSummary(t.config.overlap, t.config.overlap_options));
  } else if (scenario.workload_kind == WorkloadKind::kParameterServer) {
    out += PsWorkloadLine(scenario.parameter_server);
    if (report.convergence) out += ConvergenceSummary(*report.convergence);
  } else if (report.gossip) {
    out += GossipSummary(*report.gossip);
  } else if (report.graph) {
    const GraphReport& g = *report.graph;
    out += fmt::format(
        "workload: execution graph, {} program{}, {} node{}, {} communicator{}; "
        "breakdown of rank {} (its program runs on {} rank{})\n",
        g.programs, g.programs == 1 ? "" : "s", g.nodes, g.nodes == 1 ? "" : "s", g.communicators,
        g.communicators == 1 ? "" : "s", g.reported_rank, g.reported_class_ranks,
        g.reported_class_ranks == 1 ? "" : "s");
  } else {
    out += fmt::format("workload: {} of {} over dims [{}]\n", ToString(scenario.collective.kind),
                       FormatBytes(static_cast<double>(scenario.collective.size_bytes)),
                       fmt::join(scenario.collective.dimensions, ","));
  }
  out += "\n";
  out += fmt::format("{:<34}{:>14}{:>9}\n", "iteration", "time", "share");
  auto row = [&](std::string_view name, double ns) {
    out += fmt::format("  {:<32}{:>14}{:>9}\n", name, FormatDuration(ns), Share(ns, total));
  };
  row("total", total);
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    row("compute", it.ComputeNs());
    row("  forward", it.forward_compute_ns);
    row("  input gradients", it.input_grad_compute_ns);
    row("  weight gradients", it.weight_grad_compute_ns);
    row("exposed communication", it.ExposedCommNs());
    // Blocking activation exchanges: tensor all-reduces, and with expert parallelism the
    // token all-to-alls.
    const bool experts = scenario.training.config.expert_parallel > 1;
    row(experts ? "  forward (tensor, experts)" : "  forward (tensor)", it.forward_comm_ns);
    row(experts ? "  input grads (tensor, experts)" : "  input gradients (tensor)",
        it.input_grad_comm_ns);
    row("  weight gradients (data)", it.weight_grad_comm_exposed_ns);
    row("communication, incl. hidden", report.communication_ns);
  } else if (report.graph) {
    row("compute", it.ComputeNs());
    row("exposed communication", it.ExposedCommNs());
    row("communication, incl. hidden", report.communication_ns);
  }
  out += "\n";
  out += fmt::format("{:<5}{:<16}{:>6}{:>12}{:>12}{:>14}{:>12}{:>8}\n", "dim", "kind", "size",
                     "GB/s", "latency", "traffic/NPU", "busy", "util");
  for (const DimensionReport& d : report.dimensions) {
    out += fmt::format("{:<5}{:<16}{:>6}{:>12.4g}{:>12}{:>14}{:>12}{:>7.1f}%\n", d.index, d.kind,
                       d.size, d.bandwidth_GBps, FormatDuration(d.latency_ns),
                       FormatBytes(d.traffic_bytes_per_npu), FormatDuration(d.busy_ns),
                       100.0 * d.utilisation);
  }
  // A parameter-server run has no collectives: its own lines (below) replace the table.
  if (!report.collectives.empty()) {
    out += "\n";
    // The group column fits its longest name ("expert_data", a graph's own communicators).
    size_t group_width = 8;
    for (const CollectiveReport& c : report.collectives) {
      group_width = std::max(group_width, c.group.size() + 1);
    }
    out += fmt::format("{:<12}{:<{}}{:<16}{:>12}{:>8}{:>12}{:>12}\n", "collective", "group",
                       group_width, "kind", "size", "count", "each", "total");
    for (const CollectiveReport& c : report.collectives) {
      out +=
          fmt::format("{:<12}{:<{}}{:<16}{:>12}{:>8}{:>12}{:>12}\n", c.phase, c.group, group_width,
                      ToString(c.kind), FormatBytes(static_cast<double>(c.size_bytes)),
                      c.occurrences, FormatDuration(c.time_ns),
                      FormatDuration(c.time_ns * static_cast<double>(c.occurrences)));
    }
  }
  out += fmt::format("\ntraffic: {} per NPU, {} in total per iteration\n",
                     FormatBytes(report.npus ? report.total_traffic_bytes / report.npus : 0.0),
                     FormatBytes(report.total_traffic_bytes));
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    const TrainingWorkload& t = scenario.training;
    const RankMemory& m = t.memory;
    out += fmt::format(
        "memory: {} on rank {} (weights {}, gradients {}, optimizer {}, activations {}{}){}\n",
        FormatBytes(m.TotalBytes()), m.rank, FormatBytes(m.weights_bytes),
        FormatBytes(m.gradients_bytes), FormatBytes(m.optimizer_bytes),
        FormatBytes(m.activations_bytes),
        m.buffers_bytes > 0.0 ? ", buffers " + FormatBytes(m.buffers_bytes) : std::string(),
        t.hbm_GiB > 0.0 ? fmt::format(" of {} GiB", t.hbm_GiB) : std::string());
  }
  if (const auto throughput = ReportThroughput(report, scenario)) {
    const Throughput& t = *throughput;
    out += fmt::format(
        "throughput: {} per GPU, {} model TFLOP/s per GPU, MFU {:.1f} % of {} TFLOP/s ({} FLOPs, "
        "no recomputation)\n",
        t.tokens_per_s_per_gpu ? Rate(*t.tokens_per_s_per_gpu) + " tokens/s"
                               : Rate(t.samples_per_s_per_gpu) + " samples/s",
        Rate(t.model_tflops_per_gpu), 100.0 * t.mfu, Rate(t.peak_TFLOPS_used),
        ToString(t.convention));
  }
  if (report.parameter_server) out += PsSummary(*report.parameter_server);
  if (report.in_network) out += InNetworkSummary(*report.in_network);
  if (report.packet) {
    const PacketReport& p = *report.packet;
    out += fmt::format(
        "\npacket level: {} events in {:.3g} s of wall time ({:.3g} M events/s), simulated {} "
        "({:.3g} simulated s per wall s), peak memory {}\n",
        p.events, p.wall_seconds, p.wall_seconds > 0 ? p.events / p.wall_seconds / 1e6 : 0.0,
        FormatDuration(p.simulated_ns),
        p.wall_seconds > 0 ? p.simulated_ns * 1e-9 / p.wall_seconds : 0.0,
        FormatBytes(static_cast<double>(p.peak_memory_bytes)));
    out += fmt::format(
        "  transport: {} messages, {} data packets, {} retransmitted, {} timeouts, "
        "{} NACKs, {} CNPs\n",
        p.transport.messages, p.transport.data_packets_sent, p.transport.retransmitted_packets,
        p.transport.timeouts, p.transport.nacks_sent, p.transport.cnps_sent);
    out += fmt::format("  fabric: peak queue {}, {} ECN marks, {} tail drops, {} injected losses\n",
                       FormatBytes(static_cast<double>(p.queue_peak_bytes)), p.ecn_marks,
                       p.drops_queue_full, p.drops_injected);
    out += fmt::format("  messages: {} delivered, mean {}, p99 {}, max {}\n",
                       p.message_delivery.count, FormatDuration(p.message_delivery.mean_ns),
                       FormatDuration(p.message_delivery.p99_ns),
                       FormatDuration(p.message_delivery.max_ns));
    out += fmt::format(
        "  conservation: {} of {} bytes delivered, {} of {} reductions, {} protocol "
        "errors\n",
        p.bytes_delivered, p.bytes_scheduled, p.reductions_performed, p.reductions_scheduled,
        p.protocol_errors);
  }
  if (report.flow) {
    const FlowReport& f = *report.flow;
    uint32_t peak_flows = 0;
    double peak_utilisation = 0.0;
    for (const FlowLinkReport& l : f.links) {
      peak_flows = std::max(peak_flows, l.peak_flows);
      peak_utilisation = std::max(peak_utilisation, l.utilisation);
    }
    out += fmt::format(
        "\nflow level: {} events and {} rate solves (the largest {} flows) in {:.3g} s of wall "
        "time, simulated {}, peak memory {}\n",
        f.events, f.rate_solves, f.largest_solve_flows, f.wall_seconds,
        FormatDuration(f.simulated_ns), FormatBytes(static_cast<double>(f.peak_memory_bytes)));
    out += fmt::format(
        "  fabric: {} links, at most {} flows on one link, busiest link {:.1f} % "
        "utilised\n",
        f.links.size(), peak_flows, peak_utilisation * 100.0);
    out += fmt::format("  conservation: {} of {} messages and {} of {} bytes delivered\n",
                       f.messages_delivered, f.messages_sent, f.bytes_delivered, f.bytes_sent);
  }
  return out;
}

}  // namespace hfsim
