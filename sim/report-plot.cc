#include "sim/report-plot.h"

#include <fmt/format.h>

namespace hfsim {

std::string GnuplotQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string BreakdownPlotScript(const Report& report, const Scenario& scenario,
                                const std::string& png_name) {
  const IterationTimeline& it = report.iteration;
  std::string script;
  script += fmt::format("set terminal pngcairo size 1100,480 font 'sans,10'\nset output {}\n",
                        GnuplotQuoted(png_name));
  script += "$breakdown << EOD\n";
  auto row = [&](std::string_view name, double ns) {
    script += fmt::format("\"{}\" {}\n", name, ns / 1e6);
  };
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    row("forward compute", it.forward_compute_ns);
    row("input-grad compute", it.input_grad_compute_ns);
    row("weight-grad compute", it.weight_grad_compute_ns);
    row("forward comm", it.forward_comm_ns);
    row("input-grad comm", it.input_grad_comm_ns);
    row("exposed weight-grad comm", it.weight_grad_comm_exposed_ns);
  } else if (scenario.workload_kind == WorkloadKind::kParameterServer) {
    row("parameter-server iteration", it.total_ns);
  } else if (scenario.workload_kind == WorkloadKind::kGossip) {
    row("gossip step (compute + exchanges)", it.total_ns);
  } else {
    row("collective", it.total_ns);
  }
  script += "EOD\n$dimensions << EOD\n";
  for (const DimensionReport& d : report.dimensions) {
    script += fmt::format("\"dim {} {} {}\" {}\n", d.index, d.kind, d.size, 100.0 * d.utilisation);
  }
  script += "EOD\n";
  script += fmt::format(
      "set multiplot layout 1,2 title {}\n"
      "set style data histogram\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
      "set grid ytics\nset xtics rotate by -30 nomirror\nunset key\n"
      "set title 'where the iteration goes (total {:.4g} ms)'\nset ylabel 'ms'\nset yrange [0:*]\n"
      "plot $breakdown using 2:xtic(1) linecolor rgb '#4472c4'\n"
      "set title 'dimension utilisation'\nset ylabel '% of bandwidth x iteration time'\n"
      "set yrange [0:100]\n"
      "plot $dimensions using 2:xtic(1) linecolor rgb '#ed7d31'\n"
      "unset multiplot\n",
      GnuplotQuoted(fmt::format("{} ({} engine, {} NPUs)", scenario.name, report.engine, report.npus)),
      it.total_ns / 1e6);
  return script;
}

}  // namespace hfsim
