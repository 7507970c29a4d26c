#include "sim/report/number-text.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace hfsim {

namespace {

void TidyNumbers(nlohmann::json& node) {
  if (node.is_number_float()) {
    node = Tidy(node.get<double>());
  } else if (node.is_structured()) {
    for (auto& child : node) TidyNumbers(child);
  }
}

}  // namespace

double Tidy(double value) {
  if (!std::isfinite(value)) return value;
  return std::strtod(fmt::format("{:.15g}", value).c_str(), nullptr);
}

std::string NumberText(double value) { return fmt::format("{}", Tidy(value)); }

nlohmann::json TidiedJson(nlohmann::json document) {
  TidyNumbers(document);
  return document;
}

std::string JsonFileText(const nlohmann::json& document) {
  return TidiedJson(document).dump(2) + "\n";
}

}  // namespace hfsim
