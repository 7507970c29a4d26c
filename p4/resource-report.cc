#include "p4/resource-report.h"

#include <fmt/format.h>

#include "models/aggregation/tofino-resources.h"

namespace hfsim {

namespace {

std::string Verdict(const ResourceLine& line) { return line.Fits() ? "yes" : "NO"; }

}  // namespace

std::string ResourceReportText(const AggregationSwitchSpec& spec) {
  const TofinoLimits& limits = LimitsOf(spec.generation);
  const TofinoResourceUse use = ComputeTofinoResources(spec);
  std::string out = fmt::format("Resources of aggregation.p4 on {} (per pipe; every pipe runs the "
                                "same program)\n\n",
                                limits.name);
  out += fmt::format("{:<26} {:>10} {:>10}  {}\n", "limit", "used", "available", "fits");
  bool fits = true;
  const auto table = TofinoResourceTable(spec);
  for (const ResourceLine& line : table) {
    out += fmt::format("{:<26} {:>10} {:>10}  {}\n", line.limit, line.used, line.available,
                       Verdict(line));
    fits = fits && line.Fits();
  }
  out += "\nLayout:\n";
  const std::string routing =
      use.routing_stages > 0 ? fmt::format(" + {} routing", use.routing_stages) : std::string();
  if (spec.IsThc()) {
    out += fmt::format(
        "  MAU stages: {} control + {} THC lookup ({} tables) + {} value{} = {} of {}\n",
        use.control_stages, use.thc_lookup_stages, use.thc_lookup_tables, use.value_stages,
        routing, use.mau_stages, limits.mau_stages);
  } else {
    out += fmt::format("  MAU stages: {} control + {} value{} = {} of {}\n", use.control_stages,
                       use.value_stages, routing, use.mau_stages, limits.mau_stages);
  }
  out += fmt::format("  stateful ALUs: {} value (pair registers) + {} control = {}\n",
                     use.value_alus, use.control_alus, use.stateful_alus);
  out += fmt::format("  register entries per value register: {} ({} slot set(s) x {} slots)\n",
                     use.register_entries, spec.SlotSets(), spec.aggregator_slots);
  out += fmt::format("  SRAM blocks: {} in all, {} in a value stage\n", use.sram_blocks,
                     use.sram_blocks_per_value_stage);
  out += fmt::format("  PHV: {} bits of value words, of {} in normal containers\n",
                     use.phv_value_bits, use.phv_value_capacity_bits);
  out += fmt::format("  harvest (recirculation) passes per completed slot: {}\n",
                     use.harvest_passes_per_slot);
  if (spec.IsThc()) {
    out += fmt::format("  worst-case lane sum: {} of 255 (8-bit lanes, four to a word)\n",
                       use.thc_lane_sum);
  } else {
    out += fmt::format("  worst-case sum: {} bits with sign ({} adds)\n", use.worst_sum_bits,
                       ToString(spec.overflow));
  }
  out += "\nWhy each limit:\n";
  for (const ResourceLine& line : table) out += fmt::format("  {}: {}\n", line.limit, line.explanation);
  out += fmt::format("\nVerdict: {}\n", fits ? "fits" : "does NOT fit");
  return out;
}

nlohmann::json ResourceReportJson(const AggregationSwitchSpec& spec) {
  const TofinoResourceUse use = ComputeTofinoResources(spec);
  nlohmann::json lines = nlohmann::json::array();
  bool fits = true;
  for (const ResourceLine& line : TofinoResourceTable(spec)) {
    lines.push_back({{"limit", line.limit},
                     {"spec_key", "aggregation." + line.spec_key},
                     {"used", line.used},
                     {"available", line.available},
                     {"fits", line.Fits()},
                     {"explanation", line.explanation}});
    fits = fits && line.Fits();
  }
  nlohmann::json json = {{"generation", std::string(LimitsOf(spec.generation).name)},
          {"fits", fits},
          {"limits", lines},
          {"layout",
           {{"control_stages", use.control_stages},
            {"value_stages", use.value_stages},
            {"routing_stages", use.routing_stages},
            {"mau_stages", use.mau_stages},
            {"value_alus", use.value_alus},
            {"control_alus", use.control_alus},
            {"stateful_alus", use.stateful_alus},
            {"register_entries", use.register_entries},
            {"value_register_bits", use.value_register_bits},
            {"sram_blocks", use.sram_blocks},
            {"sram_blocks_per_value_stage", use.sram_blocks_per_value_stage},
            {"phv_value_bits", use.phv_value_bits},
            {"phv_value_capacity_bits", use.phv_value_capacity_bits},
            {"harvest_passes_per_slot", use.harvest_passes_per_slot},
            {"worst_sum_bits", use.worst_sum_bits}}}};
  if (spec.IsThc()) {
    json["layout"]["thc_lookup_tables"] = use.thc_lookup_tables;
    json["layout"]["thc_lookup_stages"] = use.thc_lookup_stages;
    json["layout"]["thc_lane_sum"] = use.thc_lane_sum;
  }
  return json;
}

}  // namespace hfsim
