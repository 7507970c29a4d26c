#include "sim/scenario/parameter-server-section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "sim/scenario/gossip-section.h"
#include "sim/scenario/scenario-parser.h"
#include "workloads/model-zoo.h"

namespace hfsim {

namespace {

// Bounds that keep one run's key lists in memory: every iteration's sampled keys are held at
// once (8 bytes each), so iterations x workers x lookups is capped at 2^27 (1 GiB).
constexpr uint64_t kMaxIterations = 100000;
constexpr uint64_t kMaxServers = 4096;
constexpr uint64_t kMaxKeyCount = uint64_t{1} << 50;
constexpr uint64_t kMaxBytesPerKey = uint64_t{1} << 24;
constexpr uint64_t kMaxLookups = uint64_t{1} << 24;
constexpr uint64_t kMaxTotalDraws = uint64_t{1} << 27;
constexpr uint64_t kMaxDenseKeys = uint64_t{1} << 24;

std::vector<uint64_t> ReadNpuList(const JsonCursor& list, uint64_t npus, size_t max_count) {
  std::vector<uint64_t> ids;
  std::vector<bool> seen(npus, false);
  for (const JsonCursor& entry : list.Elements(1, max_count)) {
    const uint64_t npu = entry.Integer(0, npus - 1);
    if (seen[npu])
      entry.Fail(fmt::format("NPU {} is listed twice; accepted: distinct NPU ids", npu));
    seen[npu] = true;
    ids.push_back(npu);
  }
  return ids;
}

PsDenseModel ReadDense(const JsonCursor& dense) {
  dense.ExpectObject({"model", "params", "bytes_per_param", "partition_bytes"});
  PsDenseModel model;
  const bool has_model = dense.Has("model");
  if (has_model == dense.Has("params")) {
    dense.Fail(
        fmt::format("give exactly one of \"model\" (a zoo name: {}) or \"params\" (an "
                    "integer number of parameters)",
                    fmt::join(ModelZooNames(), ", ")));
  }
  if (auto bytes = dense.Find("bytes_per_param")) {
    model.bytes_per_param = static_cast<uint32_t>(bytes->Integer(1, 16));
  }
  if (auto partition = dense.Find("partition_bytes")) {
    model.partition_bytes = partition->Integer(1, ScenarioLimits::kMaxCollectiveBytes);
  }
  std::vector<uint64_t> tensor_bytes;
  if (has_model) {
    const JsonCursor name = dense.Child("model");
    model.zoo_name = name.String();
    const auto zoo = BuildZooModel(model.zoo_name);
    if (!zoo) {
      name.Fail(fmt::format("unknown model \"{}\"; accepted: {} (or \"params\" instead)",
                            model.zoo_name, fmt::join(ModelZooNames(), ", ")));
    }
    for (const Layer& layer : zoo->layers)
      tensor_bytes.push_back(layer.params * model.bytes_per_param);
    model.params = zoo->TotalParams();
  } else {
    model.params = dense.Child("params").Integer(1, uint64_t{1} << 45);
    tensor_bytes.push_back(model.params * model.bytes_per_param);
  }
  uint64_t keys = 0;
  for (uint64_t bytes : tensor_bytes)
    keys += (bytes + model.partition_bytes - 1) / model.partition_bytes;
  if (keys > kMaxDenseKeys) {
    dense.Child(dense.Has("partition_bytes") ? "partition_bytes" : (has_model ? "model" : "params"))
        .Fail(fmt::format("the model cuts into {} keys of at most {} bytes; accepted: at most {} "
                          "keys (raise \"partition_bytes\")",
                          keys, model.partition_bytes, kMaxDenseKeys));
  }
  model.key_bytes = DenseKeyBytes(tensor_bytes, model.partition_bytes);
  return model;
}

PsSparseModel ReadSparse(const JsonCursor& sparse) {
  sparse.ExpectObject({"key_count", "bytes_per_key", "lookups_per_worker", "zipf_exponent"});
  PsSparseModel model;
  model.key_count = sparse.At("key_count", "an integer number of keys (embedding rows), at least 1")
                        .Integer(1, kMaxKeyCount);
  model.bytes_per_key = sparse.At("bytes_per_key", "an integer number of bytes per key's value")
                            .Integer(1, kMaxBytesPerKey);
  model.lookups_per_worker =
      sparse.At("lookups_per_worker", "an integer number of key draws per worker per iteration")
          .Integer(1, kMaxLookups);
  if (auto s = sparse.Find("zipf_exponent")) model.zipf_exponent = s->Number(0.0, 10.0, false);
  return model;
}

}  // namespace

ParameterServerWorkload ReadParameterServerSection(const JsonCursor& section,
                                                   const Scenario& scenario) {
  // "convergence" is read by ReadConvergenceSection once the workload is known.
  section.ExpectObject({"workers", "servers", "dense", "sparse", "key_partition", "iterations",
                        "worker_compute_ns", "convergence"});
  uint64_t npus = 1;
  for (const Dimension& dim : scenario.dimensions) npus *= dim.size;
  ParameterServerWorkload ps;
  if (auto workers = section.Find("workers")) {
    ps.worker_npus = ReadNpuList(*workers, npus, npus);
  } else {
    ps.worker_npus.resize(npus);
    std::iota(ps.worker_npus.begin(), ps.worker_npus.end(), uint64_t{0});
  }
  ps.server_npus = ReadNpuList(section.At("servers", "an array of distinct NPU ids, one per shard"),
                               npus, std::min(npus, kMaxServers));
  const bool dense = section.Has("dense");
  if (dense == section.Has("sparse")) {
    section.Fail(
        "give exactly one of \"dense\" (a model whose every parameter is pushed each "
        "iteration) or \"sparse\" (an embedding table with Zipf-distributed lookups)");
  }
  if (dense) {
    ps.kind = PsModelKind::kDense;
    ps.dense = ReadDense(section.Child("dense"));
  } else {
    ps.kind = PsModelKind::kSparse;
    ps.sparse = ReadSparse(section.Child("sparse"));
  }
  if (auto partition = section.Find("key_partition")) {
    ps.partition = partition->Choice(kKeyPartitionNames);
  }
  if (auto iterations = section.Find("iterations")) {
    ps.iterations = static_cast<uint32_t>(iterations->Integer(1, kMaxIterations));
  }
  if (auto compute = section.Find("worker_compute_ns")) {
    ps.worker_compute_ns = compute->Number(0.0, 1e15, false);
  }
  if (ps.kind == PsModelKind::kSparse) {
    const unsigned __int128 draws =
        static_cast<unsigned __int128>(ps.iterations) * ps.Workers() * ps.sparse.lookups_per_worker;
    if (draws > kMaxTotalDraws) {
      section.Child("sparse")
          .Child("lookups_per_worker")
          .Fail(fmt::format(
              "{} iterations x {} workers x {} lookups is more than {} key draws in one run; "
              "accepted: a product of at most {}",
              ps.iterations, ps.Workers(), ps.sparse.lookups_per_worker, kMaxTotalDraws,
              kMaxTotalDraws));
    }
  }
  return ps;
}

void CheckPointToPointWorkloadFits(const JsonCursor& root, const Scenario& scenario) {
  const bool gossip = scenario.workload_kind == WorkloadKind::kGossip;
  if (scenario.workload_kind != WorkloadKind::kParameterServer && !gossip) return;
  const std::string_view workload = gossip ? "gossip" : "parameter_server";
  // The optimiser's and the analytical sweep's time model (sim/optimize/time-model.h) price
  // collectives only: they would price this workload as nothing.
  for (std::string_view section : {"optimize", "sweep"}) {
    if (root.Has(section)) {
      root.Child(section).Fail(fmt::format(
          "not available for a {} workload (hfsim optimize and sweep price collectives only); "
          "accepted: remove this section",
          workload));
    }
  }
  // Gossip exchanges are whole models between peers: nothing for a switch to sum.
  if (gossip && root.Has("aggregation")) {
    root.Child("aggregation").Fail("not used by a gossip workload; accepted: remove this section");
  }
  if (const auto refusal = GossipPacketRefusal(scenario)) {
    root.Child("workload").Child("gossip").Fail(refusal->message);
  }
  const auto communication = root.Find("communication");
  if (!communication) return;
  // Keys at their defaults are accepted (a report's echo writes them all); others would be
  // silently ignored, so they are refused. Collective algorithms are never used here either,
  // but a choice of algorithm changes no time, so it is left alone.
  const CommunicationSpec& spec = scenario.communication;
  const CommunicationSpec defaults;
  const std::pair<std::string_view, bool> changed[] = {
      {"scheme", spec.scheme != defaults.scheme},
      {"chunks", spec.chunks != defaults.chunks},
      {"endpoint_delay_ns", spec.endpoint_delay_ns != defaults.endpoint_delay_ns},
      {"host_overhead_ns_per_message", spec.host != defaults.host},
      {"host_stack", spec.host != defaults.host},
      {"pricing", spec.pricing != defaults.pricing},
      {"active_chunks_per_dimension",
       spec.active_chunks_per_dimension != defaults.active_chunks_per_dimension}};
  for (const auto& [key, differs] : changed) {
    if (differs && communication->Has(key)) {
      communication->Child(key).Fail(fmt::format(
          "does not apply to a {} workload (it sends point-to-point messages, not collectives); "
          "accepted: its default, or leave it out",
          workload));
    }
  }
}

nlohmann::json ParameterServerSectionToJson(const ParameterServerWorkload& ps) {
  nlohmann::json out;
  out["workers"] = ps.worker_npus;
  out["servers"] = ps.server_npus;
  if (ps.kind == PsModelKind::kDense) {
    nlohmann::json dense;
    if (ps.dense.zoo_name.empty()) {
      dense["params"] = ps.dense.params;
    } else {
      dense["model"] = ps.dense.zoo_name;
    }
    dense["bytes_per_param"] = ps.dense.bytes_per_param;
    dense["partition_bytes"] = ps.dense.partition_bytes;
    out["dense"] = dense;
  } else {
    out["sparse"] = {{"key_count", ps.sparse.key_count},
                     {"bytes_per_key", ps.sparse.bytes_per_key},
                     {"lookups_per_worker", ps.sparse.lookups_per_worker},
                     {"zipf_exponent", ps.sparse.zipf_exponent}};
  }
  out["key_partition"] = ToString(ps.partition);
  out["iterations"] = ps.iterations;
  out["worker_compute_ns"] = ps.worker_compute_ns;
  return {{"parameter_server", out}};
}

}  // namespace hfsim
