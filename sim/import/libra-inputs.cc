// Assembles the scenario document from LIBRA's files (sim/import/libra-formats.h). Choices where
// LIBRA and hfsim differ are explained in docs/libra-import.md.
#include "sim/import/libra-inputs.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/collective.h"
#include "sim/import/libra-formats.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

// LIBRA prices a collective as max_d traffic_d / B_d: hfsim's pipelined time in the limit of many
// chunks with zero latency, so the import uses the most chunks a scenario allows and no latency.
constexpr uint64_t kLibraChunks = ScenarioLimits::kMaxChunks;
// Bandwidth written when no total is given; the optimiser replaces it, `hfsim run` uses it.
constexpr double kPlaceholderGBps = 100.0;

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

uint64_t GroupNpus(const std::vector<uint32_t>& npus_per_dimension) {
  uint64_t npus = 1;
  for (uint32_t n : npus_per_dimension) npus *= n;
  return npus;
}

// The parallel groups: forward and input-gradient collectives on the tensor group, weight-
// gradient ones on the data group (how hfsim's training loop assigns them).
struct LibraGroups {
  std::vector<uint32_t> tensor, data;  ///< dimensions each spans
  std::vector<uint32_t> tensor_npus, data_npus;  ///< NPUs of each along every dimension
  bool splits = false;  ///< some dimension is shared by the two groups
};

Expected<LibraGroups> Groups(const LibraFiles& files, const LibraNetwork& network,
                             const LibraCommunicator& comm, const LibraWorkload& workload) {
  const std::string& path = files.communicator;
  if (!comm.forward.empty() && !comm.input_grad.empty() &&
      comm.forward_npus != comm.input_grad_npus) {
    return UserError{path + ": InputGrad", fmt::format(
        "spans {} NPUs of dimensions {} but Forward spans {}; accepted: the same as Forward, or "
        "-1 everywhere (hfsim runs both phases on the one tensor-parallel group)",
        comm.input_grad_npus, comm.input_grad, comm.forward_npus)};
  }
  LibraGroups groups;
  const bool forward = !comm.forward.empty();
  groups.tensor = forward ? comm.forward : comm.input_grad;
  groups.tensor_npus = forward ? comm.forward_npus : comm.input_grad_npus;
  groups.data = comm.weight_grad;
  groups.data_npus = comm.weight_grad_npus;
  for (uint32_t d = 0; d < network.sizes.size(); ++d) {
    const uint32_t n = network.sizes[d], t = groups.tensor_npus[d], p = groups.data_npus[d];
    if (t == n && p == n && n > 1) {
      return UserError{path + ": WeightGrad", fmt::format(
          "dimension {} is also used by Forward/InputGrad; accepted: each NPU of a dimension in "
          "one tensor-parallel and one data-parallel group (tensor x data NPUs = the dimension's "
          "{})", d, n)};
    }
    if (t == 1 && p == 1 && n > 1) {
      return UserError{path, fmt::format(
          "dimension {} ({} of {} NPUs) is used by no phase; accepted: every dimension in "
          "Forward/InputGrad or in WeightGrad (hfsim maps every dimension to the parallel groups)",
          d, network.kinds[d], network.sizes[d])};
    }
    if (static_cast<uint64_t>(t) * p != n) {
      return UserError{path, fmt::format(
          "dimension {} ({} of {} NPUs): Forward/InputGrad hold {} of them and WeightGrad {}; "
          "accepted: tensor x data = {}, so that every NPU is in one group of each",
          d, network.kinds[d], n, t, p, n)};
    }
    groups.splits |= t > 1 && p > 1;
  }
  const bool any_tensor_comm = std::any_of(
      workload.layers.begin(), workload.layers.end(),
      [](const LibraLayer& l) { return l.forward.kind.has_value() || l.input_grad.kind.has_value(); });
  if (GroupNpus(groups.tensor_npus) > 1 && !any_tensor_comm) {
    return UserError{path + ": Forward", fmt::format(
        "spans dimensions {}, but no layer of {} has a forward or input-gradient collective; "
        "accepted: -1 everywhere in Forward and InputGrad for this workload",
        groups.tensor, files.workload)};
  }
  return groups;
}

Expected<nlohmann::json> PhaseComm(const LibraPhase& phase, uint64_t group_npus,
                                   const std::string& where) {
  uint64_t size = phase.size_bytes;
  // LIBRA's all-gather size is the shard each NPU starts with; hfsim's is the gathered buffer.
  if (*phase.kind == CollectiveKind::kAllGather) {
    if (size > ScenarioLimits::kMaxCollectiveBytes / group_npus) {
      return UserError{where, fmt::format("all-gather of {} bytes per NPU over {} NPUs gathers more "
                                          "than 2^50 bytes; accepted: at most 2^50 bytes gathered",
                                          size, group_npus)};
    }
    size *= group_npus;
  }
  return nlohmann::json{{"kind", ToString(*phase.kind)}, {"size_bytes", size}};
}

Expected<nlohmann::json> Cost(const LibraFiles& files, const LibraNetwork& network) {
  auto table = ReadLibraCost(files.cost);
  if (!table) return table.Error();
  if (network.cost_dimensions.empty()) {
    return UserError{files.network + ": CostDimension",
                     "missing, but a cost model was given; accepted: a list naming, for each "
                     "dimension, an entry of " + files.cost};
  }
  nlohmann::json dims = nlohmann::json::array();
  for (size_t d = 0; d < network.sizes.size(); ++d) {
    const std::string& name = network.cost_dimensions[d];
    const auto it = table.Value().find(name);
    if (it == table.Value().end()) {
      std::vector<std::string> known;  // the first 20 names, for the message
      for (const auto& [key, value] : table.Value()) {
        if (known.size() == 20) break;
        known.push_back(key.substr(0, 60));
      }
      return UserError{fmt::format("{}: CostDimension[{}]", files.network, d),
                       fmt::format("got \"{}\", which {} does not define; accepted: {}", name,
                                   files.cost, fmt::join(known, ", "))};
    }
    const LibraCostEntry& entry = it->second;
    if (!entry.link) {
      return UserError{files.cost + ": " + name, "no Link price; accepted: Link: $ per GB/s"};
    }
    if (network.kinds[d] == "Switch" && !entry.switch_) {
      return UserError{files.cost + ": " + name, fmt::format(
          "no Switch price, but dimension {} is a Switch; accepted: Switch: $ per GB/s", d)};
    }
    nlohmann::json prices = {{"link_usd_per_GBps", *entry.link}};
    if (entry.switch_) prices["switch_usd_per_GBps"] = *entry.switch_;
    if (entry.nic) prices["nic_usd_per_GBps"] = *entry.nic;
    dims.push_back(prices);
  }
  return nlohmann::json{{"dimensions", dims}};
}

}  // namespace

Expected<nlohmann::json> ImportLibra(const LibraFiles& files, const LibraProblem& problem) {
  // LIBRA's objectives are time and time_x_cost (time_under_budget needs a budget it lacks).
  const auto objective = ParseIn(kOptimizeObjectiveNames, problem.objective);
  if (!objective || *objective == OptimizeObjective::kTimeUnderBudget) {
    return UserError{"--objective",
                     fmt::format("got \"{}\"; accepted: {}, {}", problem.objective,
                                 ToString(OptimizeObjective::kTime),
                                 ToString(OptimizeObjective::kTimeXCost))};
  }
  if (!ParseIn(kTotalRelationNames, problem.total)) {
    return UserError{"--total-mode", fmt::format("got \"{}\"; accepted: {}", problem.total,
                                                 fmt::join(NamesOf(kTotalRelationNames), ", "))};
  }
  auto network = ReadLibraNetwork(files.network);
  if (!network) return network.Error();
  // Checked before any product of sizes is formed (8 sizes of 65536 would overflow 64 bits).
  uint64_t npus = 1;
  for (uint64_t size : network.Value().sizes) {
    npus *= size;
    if (npus > ScenarioLimits::kMaxNpus) {
      return UserError{files.network + ": NpusCount", fmt::format(
          "{} NPUs in all; accepted: at most {} (2^20)",
          fmt::join(network.Value().sizes, " x "), ScenarioLimits::kMaxNpus)};
    }
  }
  auto workload = ReadLibraWorkload(files.workload);
  if (!workload) return workload.Error();
  auto communicator = ReadLibraCommunicator(files.communicator, network.Value());
  if (!communicator) return communicator.Error();
  auto groups = Groups(files, network.Value(), communicator.Value(), workload.Value());
  if (!groups) return groups.Error();
  const LibraGroups& g = groups.Value();
  const uint64_t tensor_npus = GroupNpus(g.tensor_npus);
  const uint64_t data_npus = GroupNpus(g.data_npus);
  // A dimension shared by the two groups: hfsim's tensor_per_dimension (docs/graph.md).
  const nlohmann::json parallelism =
      g.splits ? nlohmann::json{{"tensor_per_dimension", g.tensor_npus}}
               : nlohmann::json{{"data_dimensions", g.data}, {"tensor_dimensions", g.tensor}};

  const size_t k = network.Value().sizes.size();
  // The equal split when a total is given (capped at what a dimension can hold).
  const double bandwidth =
      problem.total_GBps_per_npu
          ? std::min(*problem.total_GBps_per_npu / static_cast<double>(k), ScenarioLimits::kMaxBandwidthGBps)
          : kPlaceholderGBps;
  nlohmann::json dims = nlohmann::json::array();
  for (size_t d = 0; d < k; ++d) {
    dims.push_back({{"kind", network.Value().kinds[d]},
                    {"size", network.Value().sizes[d]},
                    {"bandwidth_GBps", bandwidth},
                    {"latency_ns", 0}});
  }
  nlohmann::json layers = nlohmann::json::array();
  for (const LibraLayer& layer : workload.Value().layers) {
    nlohmann::json entry = {{"name", layer.name},
                            {"params", 0},
                            {"forward_ns", layer.forward.compute},
                            {"input_grad_ns", layer.input_grad.compute},
                            {"weight_grad_ns", layer.weight_grad.compute}};
    const std::string where = fmt::format("{}:{}", files.workload, layer.line);
    const std::pair<const char*, std::pair<const LibraPhase*, uint64_t>> phases[] = {
        {"forward_comm", {&layer.forward, tensor_npus}},
        {"input_grad_comm", {&layer.input_grad, tensor_npus}},
        {"weight_grad_comm", {&layer.weight_grad, data_npus}}};
    for (const auto& [key, phase] : phases) {
      if (!phase.first->kind) continue;
      auto comm = PhaseComm(*phase.first, phase.second, where);
      if (!comm) return comm.Error();
      entry[key] = comm.Value();
    }
    layers.push_back(entry);
  }
  const std::string name = std::filesystem::path(files.workload).stem().string();
  nlohmann::json scenario = {
      {"name", name},
      {"description",
       fmt::format("Imported from LIBRA inputs: network {}, workload {}{}, communicator {}{}.",
                   FileName(files.network), FileName(files.workload),
                   workload.Value().parallelism.empty()
                       ? std::string()
                       : fmt::format(" (parallelism line \"{}\")", workload.Value().parallelism),
                   FileName(files.communicator),
                   files.cost.empty() ? std::string(", default cost classes")
                                      : ", cost model " + FileName(files.cost))},
      {"topology", {{"dimensions", dims}}},
      {"workload",
       {{"training",
         {{"model", {{"name", name}, {"layers", layers}}},
          {"global_batch_samples", data_npus},
          {"parallelism", parallelism},
          {"overlap", "none"}}}}},
      {"communication", {{"scheme", "hierarchical"}, {"chunks", kLibraChunks}, {"endpoint_delay_ns", 0}}}};
  if (!files.cost.empty()) {
    auto cost = Cost(files, network.Value());
    if (!cost) return cost.Error();
    scenario["cost"] = cost.Value();
  }
  if (problem.total_GBps_per_npu) {
    scenario["optimize"] = {{"objective", problem.objective},
                            {"total_bandwidth_GBps_per_npu", *problem.total_GBps_per_npu},
                            {"total", problem.total}};
  }
  return scenario;
}

}  // namespace hfsim
