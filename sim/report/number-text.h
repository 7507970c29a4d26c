// How hfsim's output files write numbers (docs/report.md §1, "Names and numbers"): a double is
// written with at most 15 significant digits, the most a double holds exactly in decimal, so a
// sum that lands one ulp off a round value reads 26160, not 26160.000000000004. Every value
// printed that way reads back to within one part in 10^15 of what was computed.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hfsim {

/// The double nearest `value`'s 15-significant-digit decimal.
double Tidy(double value);
/// `value` as output files write it: the shortest text of Tidy(value).
std::string NumberText(double value);
/// `document` with every floating-point number tidied.
nlohmann::json TidiedJson(nlohmann::json document);
/// TidiedJson(document) dumped with 2-space indentation and a final newline: the bytes of a JSON
/// output file.
std::string JsonFileText(const nlohmann::json& document);

}  // namespace hfsim
