// LIBRA's workload: ASTRA-sim 1.0's text format. Optionally a parallelism line (one word, e.g.
// DATA) and a layer-count line, then one line per layer with 12 fields:
//   name reserved  fwd_compute fwd_type fwd_size  ig_compute ig_type ig_size
//                  wg_compute wg_type wg_size  update_delay
// e.g. "conv1 -1 13003 NONE 0 12864 NONE 0 32291 ALLREDUCE 51005824 3229".
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sim/import/libra-formats.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

constexpr size_t kFieldsPerLayer = 12;
constexpr double kMaxComputeTime = 1e15;

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  std::string field;
  while (in >> field && fields.size() <= kFieldsPerLayer) fields.push_back(field);
  return fields;
}

// A field as shown in a message: at most 60 characters, bytes that do not print as '?'.
std::string Shown(const std::string& field) {
  std::string shown = field.substr(0, 60);
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return field.size() > 60 ? shown + "..." : shown;
}

bool ParseDouble(const std::string& text, double& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

bool ParseUnsigned(const std::string& text, uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

std::optional<UserError> ReadPhase(const std::vector<std::string>& fields, size_t first,
                                   const std::string& where, const char* phase, LibraPhase& out) {
  const std::string& compute = fields[first];
  if (!ParseDouble(compute, out.compute) || out.compute < 0 || out.compute > kMaxComputeTime) {
    return UserError{where, fmt::format("{} compute time (field {}): got \"{}\"; accepted: a number "
                                        "from 0 to 1e15 (cycles, imported as ns)",
                                        phase, first + 1, Shown(compute))};
  }
  std::string type = fields[first + 1];
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::toupper(c); });
  if (type == "ALLREDUCE") out.kind = CollectiveKind::kAllReduce;
  else if (type == "REDUCESCATTER") out.kind = CollectiveKind::kReduceScatter;
  else if (type == "ALLGATHER") out.kind = CollectiveKind::kAllGather;
  else if (type == "ALLTOALL") out.kind = CollectiveKind::kAllToAll;
  else if (type != "NONE") {
    return UserError{where, fmt::format("{} communication type (field {}): got \"{}\"; accepted: "
                                        "NONE, ALLREDUCE, REDUCESCATTER, ALLGATHER, ALLTOALL",
                                        phase, first + 2, Shown(fields[first + 1]))};
  }
  const std::string& size = fields[first + 2];
  if (!ParseUnsigned(size, out.size_bytes) || out.size_bytes > ScenarioLimits::kMaxCollectiveBytes) {
    return UserError{where, fmt::format("{} communication size (field {}): got \"{}\"; accepted: an "
                                        "integer number of bytes from 0 to 2^50",
                                        phase, first + 3, Shown(size))};
  }
  if (out.size_bytes == 0) out.kind.reset();  // LIBRA prices a 0-byte collective at 0
  if (!out.kind) out.size_bytes = 0;
  return std::nullopt;
}

}  // namespace

Expected<LibraWorkload> ReadLibraWorkload(const std::string& path) {
  auto text = ReadLibraFile(path);
  if (!text) return text.Error();
  return ParseLibraWorkloadText(text.Value(), path);
}

Expected<LibraWorkload> ParseLibraWorkloadText(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  LibraWorkload workload;
  std::optional<uint64_t> declared_count;
  int declared_line = 0;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::vector<std::string> fields = Split(line);
    if (fields.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    uint64_t count = 0;
    const bool numeric = ParseUnsigned(fields[0], count);
    // The parallelism line: first, not a layer line (ASTRA-sim 1.0 may add options after the word).
    // A layer line's second field (reserved) is a number, -1 in practice; the parallelism
    // line's is not, when it has one.
    double second = 0.0;
    const bool layer_like = fields.size() > 1 && ParseDouble(fields[1], second);
    if (workload.layers.empty() && workload.parallelism.empty() && !declared_count && !numeric &&
        fields.size() != kFieldsPerLayer && !layer_like) {
      workload.parallelism = line.substr(0, 200);
      continue;
    }
    if (fields.size() == 1 && workload.layers.empty()) {
      if (numeric && !declared_count) {
        if (count < 1 || count > ScenarioLimits::kMaxLayers) {
          return UserError{where, fmt::format("layer count: got {}; accepted: 1 to {}", count,
                                              ScenarioLimits::kMaxLayers)};
        }
        declared_count = count;
        declared_line = number;
        continue;
      }
    }
    if (fields.size() != kFieldsPerLayer) {
      return UserError{where, fmt::format(
          "got {}{} fields; accepted: a layer line of 12 fields (name, reserved, then compute time, "
          "communication type and size for forward, input gradient and weight gradient, then the "
          "update delay), optionally after a parallelism line and a layer-count line",
          fields.size() > kFieldsPerLayer ? "more than " : "", std::min(fields.size(), kFieldsPerLayer))};
    }
    if (workload.layers.size() >= ScenarioLimits::kMaxLayers) {
      return UserError{where, fmt::format("more than {} layers; accepted: at most {}",
                                          ScenarioLimits::kMaxLayers, ScenarioLimits::kMaxLayers)};
    }
    LibraLayer layer;
    layer.name = fields[0];
    layer.line = number;
    if (auto e = ReadPhase(fields, 2, where, "forward", layer.forward)) return *e;
    if (auto e = ReadPhase(fields, 5, where, "input-gradient", layer.input_grad)) return *e;
    if (auto e = ReadPhase(fields, 8, where, "weight-gradient", layer.weight_grad)) return *e;
    double delay = 0.0;
    if (!ParseDouble(fields[11], delay) || delay < 0) {
      return UserError{where, fmt::format("update delay (field 12): got \"{}\"; accepted: a number "
                                          "of at least 0 (read and ignored, as LIBRA does)", Shown(fields[11]))};
    }
    workload.layers.push_back(std::move(layer));
  }
  if (workload.layers.empty()) {
    return UserError{path, "no layer lines; accepted: one line of 12 fields per layer"};
  }
  if (declared_count && *declared_count != workload.layers.size()) {
    return UserError{fmt::format("{}:{}", path, declared_line),
                     fmt::format("layer count: got {}, but the file has {} layer lines; accepted: {}",
                                 *declared_count, workload.layers.size(), workload.layers.size())};
  }
  return workload;
}

}  // namespace hfsim
