#include "sim/report/report-plot.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace hfsim {

namespace {

// What a bar is part of: its colour and its legend entry.
enum class Part { kCompute, kCommunication, kWhole };
constexpr struct {
  int rgb;
  const char* legend;
} kParts[] = {{0x4472c4, "compute"}, {0xed7d31, "communication"}, {0xa5a5a5, "the collective"}};

struct Bar {
  std::string label;
  double ns = 0.0;
  Part part = Part::kWhole;
};

struct Breakdown {
  std::string title;
  std::string xlabel;
  std::vector<Bar> bars;
};

std::string DimensionLabel(const DimensionReport& d) {
  return fmt::format("dim {} {} {}", d.index, d.kind, d.size);
}

// "where the iteration goes (total 1.2 ms)", "where the 3 iterations go (total ...)".
std::string WhereTheyGo(uint64_t count, std::string_view unit, double total_ns) {
  return count == 1 ? fmt::format("where the {} goes (total {:.4g} ms)", unit, total_ns / 1e6)
                    : fmt::format("where the {} {}s go (total {:.4g} ms)", count, unit,
                                  total_ns / 1e6);
}

// The parts of the time the report holds for the workload's kind, each a report field.
Breakdown WhereTimeGoes(const Report& report, const Scenario& scenario) {
  const IterationTimeline& it = report.iteration;
  Breakdown out;
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    out.title = WhereTheyGo(1, "iteration", it.total_ns);
    out.bars = {{"forward compute", it.forward_compute_ns, Part::kCompute},
                {"input-grad compute", it.input_grad_compute_ns, Part::kCompute},
                {"weight-grad compute", it.weight_grad_compute_ns, Part::kCompute},
                {"forward comm", it.forward_comm_ns, Part::kCommunication},
                {"input-grad comm", it.input_grad_comm_ns, Part::kCommunication},
                {"exposed weight-grad comm", it.weight_grad_comm_exposed_ns, Part::kCommunication}};
  } else if (scenario.workload_kind == WorkloadKind::kParameterServer && report.parameter_server) {
    const ParameterServerReport& ps = *report.parameter_server;
    double total_ns = 0.0;
    for (double ns : ps.iteration_ns) total_ns += ns;
    if (ps.compute_ns + ps.push_ns + ps.aggregate_ns + ps.pull_ns > 0.0) {
      out.title = WhereTheyGo(ps.iterations, "iteration", total_ns);
      out.bars = {{"worker compute", ps.compute_ns, Part::kCompute},
                  {"push", ps.push_ns, Part::kCommunication},
                  {"aggregate (servers)", ps.aggregate_ns, Part::kCompute},
                  {"pull", ps.pull_ns, Part::kCommunication}};
    } else {
      // The packet engine measures each iteration, not its phases: its compute and the
      // communication after it (the iteration's step_compute_ns and communication_ns).
      out.title = WhereTheyGo(1, "mean iteration", it.total_ns);
      out.bars = {{"worker compute", it.step_compute_ns, Part::kCompute},
                  {"push, aggregate, pull", report.communication_ns, Part::kCommunication}};
    }
  } else if (scenario.workload_kind == WorkloadKind::kGossip && report.gossip) {
    const GossipReport& g = *report.gossip;
    out.title = WhereTheyGo(g.steps, "step", g.total_ns);
    out.bars = {{"local compute", g.compute_ns, Part::kCompute},
                {"exchange phases", g.exchange_ns, Part::kCommunication}};
  } else {
    // Chunks pipeline over the dimensions, so their busy times overlap instead of adding up.
    out.title = fmt::format("the collective ({:.4g} ms) and each dimension's busy time "
                            "(overlapping)", it.total_ns / 1e6);
    out.bars.push_back({"collective", it.total_ns, Part::kWhole});
    for (const DimensionReport& d : report.dimensions) {
      if (d.busy_ns > 0.0) {
        out.bars.push_back({DimensionLabel(d) + " busy", d.busy_ns, Part::kCommunication});
      }
    }
    if (out.bars.size() == 1) out.title += fmt::format("; none from the {} engine", report.engine);
  }
  return out;
}

}  // namespace

std::string BreakdownPlotScript(const Report& report, const Scenario& scenario,
                                const std::string& png_name) {
  const Breakdown breakdown = WhereTimeGoes(report, scenario);
  std::string bars;
  std::vector<Part> parts;
  for (const Bar& bar : breakdown.bars) {
    bars += fmt::format("{} {} {}\n", DataLabel(bar.label), bar.ns / 1e6,
                        kParts[static_cast<int>(bar.part)].rgb);
    if (std::find(parts.begin(), parts.end(), bar.part) == parts.end()) parts.push_back(bar.part);
  }
  // A legend only when the bars are of more than one part.
  std::string legend;
  for (Part part : parts.size() > 1 ? parts : std::vector<Part>{}) {
    legend += fmt::format(", keyentry with boxes linecolor rgb '#{:06x}' title {}",
                          kParts[static_cast<int>(part)].rgb,
                          GnuplotQuoted(kParts[static_cast<int>(part)].legend));
  }
  std::string dimensions;
  for (const DimensionReport& d : report.dimensions) {
    dimensions += fmt::format("{} {}\n", DataLabel(DimensionLabel(d)), 100.0 * d.utilisation);
  }
  return GnuplotHeader(png_name, 1100, 480) + DataBlock("breakdown", bars) +
         DataBlock("dimensions", dimensions) +
         fmt::format(
             "set multiplot layout 1,2 title {}\n"
             "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset grid ytics\n"
             "set xtics rotate by -30 nomirror\nset key top right reverse Left\n"
             // Headroom above the tallest bar, for the legend.
             "set offsets 0, 0, graph 0.15, 0\n"
             "set title {}\nset xlabel {}\nset ylabel 'ms'\nset yrange [0:*]\n"
             "set xrange [-0.5:{}]\n"
             "plot $breakdown using 0:2:3:xticlabels(1) with boxes linecolor rgb variable "
             "notitle{}\n"
             "set title 'dimension utilisation'\nset xlabel ''\n"
             "set ylabel '% of bandwidth x iteration time'\nset yrange [0:100]\nset offsets\n"
             "set xrange [-0.5:{}]\n"
             "plot $dimensions using 0:2:xticlabels(1) with boxes linecolor rgb '#ed7d31' "
             "notitle\n"
             "unset multiplot\n",
             GnuplotQuoted(fmt::format("{} ({} engine, {} NPUs)", scenario.name, report.engine,
                                       report.npus)),
             GnuplotQuoted(breakdown.title), GnuplotQuoted(breakdown.xlabel),
             breakdown.bars.size() - 0.5, legend, report.dimensions.size() - 0.5);
}

}  // namespace hfsim
