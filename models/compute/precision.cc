// The one table of precision names and element sizes (models/compute/precision.h).
#include "models/compute/precision.h"

namespace hfsim {
namespace {

struct PrecisionRow {
  Precision precision;
  std::string_view name;
  double bytes;
};

// In the order of the enum: ToString indexes it, ParsePrecision searches it.
constexpr std::array<PrecisionRow, kPrecisionCount> kRows = {{
    {Precision::kBf16, "bf16", 2.0},
    {Precision::kFp16, "fp16", 2.0},
    {Precision::kFp8, "fp8", 1.0},
    {Precision::kTf32, "tf32", 4.0},
    {Precision::kFp32, "fp32", 4.0},
}};

static_assert(
    [] {
      for (size_t i = 0; i < kRows.size(); ++i) {
        if (Index(kRows[i].precision) != i) return false;
      }
      return true;
    }(),
    "kRows must follow the enum order");

}  // namespace

std::string_view ToString(Precision precision) { return kRows[Index(precision)].name; }

std::optional<Precision> ParsePrecision(std::string_view name) {
  for (const PrecisionRow& row : kRows) {
    if (row.name == name) return row.precision;
  }
  return std::nullopt;
}

std::string PrecisionNames() {
  std::string names;
  for (const PrecisionRow& row : kRows) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

double BytesPerElement(Precision precision) { return kRows[Index(precision)].bytes; }

}  // namespace hfsim
