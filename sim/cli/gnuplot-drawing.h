// Draws a picture by running one of hfsim's gnuplot scripts in the output directory (so the
// script stays relocatable next to its picture). gnuplot draws to a temporary name that is renamed
// into place once the drawing succeeded, so a failure never leaves a half-written picture.
#pragma once

#include <optional>
#include <string>

namespace hfsim {

/// Runs `directory`/`script`, whose `set output` names `png` (a plain file name); an error
/// message naming the picture when gnuplot fails or is missing.
std::optional<std::string> DrawWithGnuplot(const std::string& directory, const std::string& script,
                                           const std::string& png);

}  // namespace hfsim
