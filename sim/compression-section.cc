#include "sim/compression-section.h"

#include <fmt/format.h>

#include "sim/scenario.h"

namespace hfsim {

namespace {

const std::vector<std::string_view> kSchemes = {"none", "fp16", "top_k", "thc"};

}  // namespace

CompressionChoice ReadCompression(const JsonCursor& section) {
  section.ExpectObject({"scheme", "top_k_fraction", "thc"});
  CompressionChoice choice;
  choice.scheme = static_cast<CompressionScheme>(
      section.At("scheme", "\"none\", \"fp16\", \"top_k\" or \"thc\"").Choice(kSchemes));
  if (auto f = section.Find("top_k_fraction")) {
    if (choice.scheme != CompressionScheme::kTopK) f->Fail("only with \"scheme\": \"top_k\"");
    choice.top_k_fraction = f->Number(0.0, 1.0, true);
  }
  if (auto t = section.Find("thc")) {
    if (choice.scheme != CompressionScheme::kThc) t->Fail("only with \"scheme\": \"thc\"");
    t->ExpectObject({"bits", "granularity", "clip", "block"});
    ThcConfig& thc = choice.thc;
    if (auto p = t->Find("bits")) thc.bits = static_cast<uint32_t>(p->Integer(1, 8));
    if (auto p = t->Find("granularity")) {
      thc.granularity = static_cast<uint32_t>(p->Integer((1u << thc.bits) - 1, 65535));
    } else if ((1u << thc.bits) - 1 > thc.granularity) {
      thc.granularity = (1u << thc.bits) - 1;  // 30 is too fine a grid for more than 5 bits' levels
    }
    if (auto p = t->Find("clip")) thc.clip = p->Number(0.0, 100.0, true);
    if (auto p = t->Find("block")) {
      const uint64_t block = p->Integer(1, uint64_t{1} << 24);
      if ((block & (block - 1)) != 0) {
        p->Fail(fmt::format("got {}; accepted: a power of two (the Hadamard transform's size)", block));
      }
      thc.block = static_cast<uint32_t>(block);
    }
  }
  return choice;
}

nlohmann::json CompressionToJson(const CompressionChoice& choice) {
  nlohmann::json out = {{"scheme", ToString(choice.scheme)}};
  if (choice.scheme == CompressionScheme::kTopK) out["top_k_fraction"] = choice.top_k_fraction;
  if (choice.scheme == CompressionScheme::kThc) {
    out["thc"] = {{"bits", choice.thc.bits},
                  {"granularity", choice.thc.granularity},
                  {"clip", choice.thc.clip},
                  {"block", choice.thc.block}};
  }
  return out;
}

void ApplyCompression(const JsonCursor& root, Scenario& scenario) {
  const CompressionChoice& choice = scenario.communication.compression;
  if (choice.scheme == CompressionScheme::kNone) return;
  const JsonCursor where = root.Child("communication").Child("compression");
  ParameterServerWorkload& ps = scenario.parameter_server;
  if (scenario.workload_kind != WorkloadKind::kParameterServer || ps.kind != PsModelKind::kDense) {
    where.Fail("applies to parameter_server workloads with a dense model only so far (the "
               "software parameter server of S5); accepted: \"scheme\": \"none\", or leave it out");
  }
  if (scenario.aggregation) {
    where.Fail("cannot be combined with in-network aggregation yet (the switch sums int32, not "
               "THC's table integers); accepted: \"scheme\": \"none\", or remove \"aggregation\"");
  }
  // Each key is one tensor for the compressor: its fp32 values, n workers for the lane width.
  const uint32_t workers = ps.Workers();
  ps.wire_encoding = [choice, workers](uint64_t value_bytes) {
    const WireBytes wire = CompressedWireBytes(choice, (value_bytes + 3) / 4, workers);
    return PsWireBytes{wire.up, wire.down};
  };
}

}  // namespace hfsim
